/**
 * The embedded Triton-compatible server: startServer() builds the repository, loads models and listens on
 * HTTP, gRPC and metrics ports. stop() refuses new requests, lets in-flight ones finish, then closes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { BackendRegistry } from './backends/registry.ts';
import type { SimulatedOptions } from './backends/simulated.ts';
import type { BackendFactory } from './backends/types.ts';
import { InferenceCore } from './core.ts';
import { createGrpcServer } from './grpc/server.ts';
import { tuneGrpcTransport } from './grpc/transport.ts';
import { createHttpServer } from './http/server.ts';
import { ServerMetrics } from './metrics.ts';
import { type IndexRow, Repository } from './repository.ts';

export { modelTable } from './table.ts';
export type { IndexRow } from './repository.ts';

/** How long stop() waits for connections and streams left open by clients after in-flight requests finished. */
const CLOSE_GRACE_MS = 2000;

/** startServer settings; every field has a default. */
export interface ServerOptions {
  /** Triton-layout model repository; absent: the built-in catalog repository. */
  modelRepository?: string;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 = ephemeral. @default 8000 */
  httpPort?: number;
  /** 0 = ephemeral, -1 = no gRPC. @default 8001 */
  grpcPort?: number;
  /** 0 = ephemeral, -1 = no metrics. @default 8002 */
  metricsPort?: number;
  /** @default 'none' */
  modelControlMode?: 'none' | 'explicit';
  /** Models loaded at start in explicit mode ('*' = all). @default [] */
  loadModels?: string[];
  /** Simulated backend defaults (timeScale multiplies every profile's compute time). */
  simulated?: SimulatedOptions;
  /** Largest HTTP body / gRPC message. @default 67108864 */
  maxBody_bytes?: number;
  /** Built-in repository only: PRECISION per catalog id, e.g. { 'resnext101-32x4d': 'FP16' }. */
  precisions?: Record<string, string>;
  /** Extra backends by name (tests, embedders). */
  backends?: Record<string, BackendFactory>;
  /** Verbose log lines (per request); default: none. */
  log?: (line: string) => void;
}

/** A running server. */
export interface RunningServer {
  host: string;
  httpPort: number;
  /** -1 when disabled. */
  grpcPort: number;
  /** -1 when disabled. */
  metricsPort: number;
  core: InferenceCore;
  /** Model table rows as loaded at start. */
  models: IndexRow[];
  /** Stops accepting requests, waits for in-flight ones, unloads models, closes the ports. */
  stop(): Promise<void>;
}

/** Starts the server; rejects with a one-line error when a port is taken or the repository is unreadable. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const mode = options.modelControlMode ?? 'none';
  const registry = new BackendRegistry(options.simulated);
  for (const [name, factory] of Object.entries(options.backends ?? {})) registry.register(name, factory);
  let core: InferenceCore | undefined;
  const metrics = new ServerMetrics(() => core?.pendingCounts() ?? []);
  const repository = new Repository({
    dir: options.modelRepository,
    registry,
    metrics,
    log: options.log,
    precisions: options.precisions,
  });
  core = new InferenceCore({ repository, metrics, modelControlMode: mode });
  await repository.scan();
  const toLoad =
    mode === 'none' || options.loadModels?.includes('*') ? repository.names() : (options.loadModels ?? []);
  for (const name of toLoad) {
    if (!repository.names().includes(name)) {
      throw new Error(
        `--load-model ${name}: no such model in the repository; known: ${repository.names().join(', ')}`,
      );
    }
  }
  // A model that fails to load stays UNAVAILABLE with its reason (shown in the table), as in Triton.
  await Promise.all(toLoad.map((name) => repository.load(name).catch(() => {})));

  const httpServer = createHttpServer(core, { maxBody_bytes: options.maxBody_bytes, log: options.log });
  const closers: (() => Promise<void>)[] = [];
  try {
    const httpPort = await listen(httpServer, host, options.httpPort ?? 8000, 'HTTP');
    closers.push(() => closeHttp(httpServer));
    let grpcPort = -1;
    let grpcServer: grpc.Server | undefined;
    if ((options.grpcPort ?? 8001) >= 0) {
      grpcServer = createGrpcServer(core, { maxMessage_bytes: options.maxBody_bytes });
      grpcPort = await bindGrpc(grpcServer, host, options.grpcPort ?? 8001);
      tuneGrpcTransport(grpcServer);
      const g = grpcServer;
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            // Open streams (ModelStreamInfer) would hold a graceful shutdown forever: force it after a grace period.
            const force = setTimeout(() => g.forceShutdown(), CLOSE_GRACE_MS);
            force.unref();
            g.tryShutdown(() => {
              clearTimeout(force);
              resolve();
            });
          }),
      );
    }
    let metricsPort = -1;
    if ((options.metricsPort ?? 8002) >= 0) {
      const metricsServer = http.createServer((req, res) => {
        if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
          metrics.registry.metrics().then(
            (text) => {
              res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
              res.end(text);
            },
            (err: Error) => {
              res.writeHead(500);
              res.end(err.message);
            },
          );
          return;
        }
        res.writeHead(404);
        res.end();
      });
      metricsPort = await listen(metricsServer, host, options.metricsPort ?? 8002, 'metrics');
      closers.push(() => closeHttp(metricsServer));
    }
    let stopping: Promise<void> | undefined;
    const c = core;
    return {
      host,
      httpPort,
      grpcPort,
      metricsPort,
      core: c,
      models: repository.index(),
      stop() {
        stopping ??= (async () => {
          await c.drain();
          await Promise.all(closers.map((close) => close()));
          await repository.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await Promise.all(closers.map((close) => close()));
    await repository.close();
    throw err;
  }
}

function listen(server: http.Server, host: string, port: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          `cannot listen for ${what} on ${host}:${port}: ${err.code ?? err.message}; pick another port (0 = any free port)`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function bindGrpc(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (err)
        reject(
          new Error(
            `cannot listen for gRPC on ${host}:${port}: ${err.message}; pick another port (0 = any free port)`,
          ),
        );
      else resolve(bound);
    });
  });
}

/** Closes a server after its open requests finish; idle keep-alive sockets are closed at once, the rest after a grace period. */
function closeHttp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
