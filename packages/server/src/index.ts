/**
 * The embedded Triton-compatible server, and its one entry: startServer() reads the repository (a folder, or
 * models handed over in memory), loads models and listens on HTTP, gRPC and metrics ports; stop() refuses new
 * requests, lets in-flight ones finish, then closes. Everything the tool uses of the server is exported here.
 */
import http from 'node:http';
import { BackendRegistry } from './backends/registry.ts';
import type { SimulatedOptions } from './backends/simulated.ts';
import type { BackendFactory } from './backends/types.ts';
import { InferenceCore } from './core.ts';
import { ActiveCalls } from './grpc/active-calls.ts';
import { createGrpcServer } from './grpc/server.ts';
import { type GrpcListener, listenGrpc } from './grpc/transport.ts';
import type { FaultOptions } from './faults/spec.ts';
import type { HttpLimits } from './http/limits.ts';
import { createHttpServer } from './http/server.ts';
import { closeHttp, listen } from './listen.ts';
import { METRICS_CONTENT_TYPE, ServerMetrics, withoutEmptyBackendFamilies } from './metrics.ts';
import { registerPrefixCacheMetrics } from './genai/prefix-cache-metrics.ts';
import type { LatencyProfiles } from './backends/profiles.ts';
import type { ModelDefinition } from './model-sources.ts';
import { type IndexRow, Repository } from './repository.ts';
import type { TlsIdentity } from './tls.ts';

export { configToPbtxt } from './config/to-pbtxt.ts';
export { parseConfigJson, parsePbtxt } from './config/parse.ts';
export type { ModelConfigJson } from './config/types.ts';
export { parseProbability, parseSpike, parseStatusFaults } from './faults/spec.ts';
export { GenerationEngine } from './genai/engine.ts';
export { PREFIX_CACHE_METRICS, registerPrefixCacheMetrics } from './genai/prefix-cache-metrics.ts';
export { PREFIX_BLOCK_TOKENS, PrefixCache } from './genai/prefix-cache.ts';
export { PREFIX_CACHE_PARAMETER } from './backends/simulated-llm.ts';
export type { BackendFactory, DecoupledBackend, SendResponse, TensorData } from './backends/types.ts';
export type { GenerativeTiming } from './genai/scheduler.ts';
export { TIMING_PARAMETERS } from './genai/timing.ts';
export { countInputTokens } from './genai/tokens.ts';
export { PROTO_OPTIONS } from './grpc/messages.ts';
export { type ModelDefinition, onnxRuntimeAvailable } from './model-sources.ts';
export { type ModelIo, onnxConfigMismatch, tensorInfoFromOrt } from './onnx/config-check.ts';
export type { LatencyProfile, LatencyProfiles } from './backends/profiles.ts';
export { GPT2_TOKENIZER_FILE, gpt2TokenizerText } from './models/gpt2/tokenizer.ts';
export { modelTable } from './table.ts';
export type { IndexRow } from './repository.ts';
export { selfSignedIdentity, type TlsIdentity, tlsIdentity } from './tls.ts';

/** How long a restart keeps the ports closed when no downtime is given. */
const RESTART_DOWN_MS = 1000;

/** startServer settings; every field has a default. */
export interface ServerOptions {
  /** Triton-layout model repository folder; absent: the models in `models`. */
  modelRepository?: string;
  /** Models handed over in memory (config and model folder each), served when no modelRepository is given. */
  models?: ModelDefinition[];
  /** Latency profiles the simulated backend's latency_profile parameter may name, besides its own "zero". */
  latencyProfiles?: LatencyProfiles;
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
  /** Extra backends by name (tests, embedders). */
  backends?: Record<string, BackendFactory>;
  /** HTTP header/body deadlines and the connection cap (the cap applies to gRPC too). */
  limits?: HttpLimits;
  /** gRPC connection deadlines: the HTTP/2 preface (default 120 s, 0 = none) and idle connections (default none). */
  grpc?: { prefaceTimeout_ms?: number; maxConnectionIdle_ms?: number };
  /** Faults injected into inference requests (each model's fault_* parameters override them). */
  faults?: FaultOptions;
  /** Restart the HTTP and gRPC frontends once, this long after start. */
  restartAfter_ms?: number;
  /** How long a restart keeps the ports closed. @default 1000 */
  restartDown_ms?: number;
  /** Told when a restart closes and reopens the ports (one line each). */
  onRestart?: (line: string) => void;
  /** Serve HTTPS and gRPC over TLS with this identity (see tls.ts: files or self-signed); default: plaintext. */
  tls?: TlsIdentity;
  /** Verbose log lines (per request); default: none. */
  log?: (line: string) => void;
  /** Called when the deadline passed with requests still in flight. */
  onExpired?: () => void;
}

/** A running server. */
export interface RunningServer {
  host: string;
  httpPort: number;
  /** -1 when disabled. */
  grpcPort: number;
  /** -1 when disabled. */
  metricsPort: number;
  /** The certificate served when TLS is on (PEM), for clients to trust; else undefined. */
  tlsCert?: string;
  core: InferenceCore;
  /** Model table rows as loaded at start: the models a load was tried on, as Triton prints its table. */
  models: IndexRow[];
  /**
   * Closes the HTTP and gRPC ports at once (open connections and in-flight requests are cut, as in a crash),
   * waits `down_ms`, then listens again on the same ports; models, statistics and metrics stay.
   */
  restart(down_ms?: number): Promise<void>;
  /** Restarts done so far. */
  readonly restarts: number;
  /** Injected faults so far, per model, by kind ("status 503", "reset", "spike"). */
  faultCounts(): Record<string, Record<string, number>>;
  /**
   * Stops accepting requests, waits for in-flight ones (up to `drainTimeout_ms`), unloads models, closes the
   * ports. Past the deadline the ports close at once, cutting what is still in flight, and `onExpired` is called.
   */
  stop(options?: StopOptions): Promise<void>;
}

/** How stop() drains. */
export interface StopOptions {
  /** Longest wait for in-flight requests (Triton's --exit-timeout-secs). @default no limit */
  drainTimeout_ms?: number;
  /** Told once a second while requests are still in flight, as Triton logs its countdown. */
  log?: (line: string) => void;
  /** Called when the deadline passed with requests still in flight. */
  onExpired?: () => void;
}

/** Starts the server; rejects with a one-line error when a port is taken or the repository is unreadable. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const mode = options.modelControlMode ?? 'none';
  const registry = new BackendRegistry(options.simulated, options.latencyProfiles);
  for (const [name, factory] of Object.entries(options.backends ?? {})) registry.register(name, factory);
  let core: InferenceCore | undefined;
  const metrics = new ServerMetrics(
    () => core?.pendingCounts() ?? [],
    () => core?.engineStates() ?? [],
  );
  registerPrefixCacheMetrics(metrics.registry, () => core?.prefixCacheCounts() ?? []);
  const repository = new Repository({
    dir: options.modelRepository,
    models: options.models,
    registry,
    metrics,
    log: options.log,
    faults: options.faults,
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

  const c = core;
  const frontends = new Frontends(c, host, options);
  const closers: ((grace_ms?: number) => Promise<void>)[] = [];
  try {
    await frontends.open(options.httpPort ?? 8000, options.grpcPort ?? 8001);
    closers.push((grace_ms) => frontends.close(grace_ms));
    let metricsPort = -1;
    if ((options.metricsPort ?? 8002) >= 0) {
      const metricsServer = createMetricsServer(metrics);
      metricsPort = await listen(metricsServer, host, options.metricsPort ?? 8002, 'metrics');
      closers.push((grace_ms) => closeHttp(metricsServer, grace_ms));
    }
    let stopping: Promise<void> | undefined;
    let restarts = 0;
    const restart = async (down_ms = options.restartDown_ms ?? RESTART_DOWN_MS) => {
      if (stopping) return;
      options.onRestart?.(`Restart: closing the HTTP and gRPC ports for ${down_ms} ms`);
      await frontends.close(0);
      await new Promise((resolve) => setTimeout(resolve, down_ms));
      if (stopping) return;
      await frontends.open(frontends.httpPort, frontends.grpcPort);
      restarts += 1;
      options.onRestart?.(
        `Restart: listening again on HTTP ${frontends.httpPort} and gRPC ${frontends.grpcPort}`,
      );
    };
    const restartTimer =
      options.restartAfter_ms !== undefined
        ? setTimeout(
            () => restart().catch((err) => options.log?.(`restart failed: ${err.message}`)),
            options.restartAfter_ms,
          )
        : undefined;
    restartTimer?.unref();
    return {
      host,
      httpPort: frontends.httpPort,
      grpcPort: frontends.grpcPort,
      metricsPort,
      tlsCert: options.tls?.cert,
      core: c,
      models: (await repository.index()).filter((row) => row.state !== undefined),
      restart,
      get restarts() {
        return restarts;
      },
      faultCounts() {
        const out: Record<string, Record<string, number>> = {};
        for (const m of repository.loaded()) if (m.faults) out[m.name] = Object.fromEntries(m.faults.counts);
        return out;
      },
      stop(stopOptions = {}) {
        clearTimeout(restartTimer);
        stopping ??= (async () => {
          const drained = await drainWithin(c, stopOptions);
          if (!drained) {
            // What is still in flight is cut: the ports close at once, and models unload without waiting.
            await Promise.all(closers.map((close) => close(0)));
            repository.close().catch(() => {});
            stopOptions.onExpired?.();
            return;
          }
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

/** Drains the core; false when `drainTimeout_ms` passed first. Counts down once a second in `log`. */
async function drainWithin(core: InferenceCore, opts: StopOptions): Promise<boolean> {
  const drain = core.drain().then(() => true);
  if (opts.drainTimeout_ms === undefined) return drain;
  const deadline = Date.now() + opts.drainTimeout_ms;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    const tick = () => {
      const left_ms = deadline - Date.now();
      if (left_ms <= 0) return resolve(false);
      opts.log?.(`Timeout ${Math.ceil(left_ms / 1000)}: Found ${core.inflight} in-flight requests`);
      timer = setTimeout(tick, Math.min(1000, left_ms));
    };
    tick();
  });
  try {
    return await Promise.race([drain, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The HTTP and gRPC frontends of a core, which a restart closes and opens again on the same ports. */
class Frontends {
  httpPort = -1;
  grpcPort = -1;
  #http: http.Server | undefined;
  #grpc: GrpcListener | undefined;
  readonly #core: InferenceCore;
  readonly #host: string;
  readonly #options: ServerOptions;

  constructor(core: InferenceCore, host: string, options: ServerOptions) {
    this.#core = core;
    this.#host = host;
    this.#options = options;
  }

  /** Listens on HTTP and (port >= 0) gRPC; port 0 picks a free port, kept for later restarts. */
  async open(httpPort: number, grpcPort: number): Promise<void> {
    const o = this.#options;
    this.#http = createHttpServer(this.#core, {
      maxBody_bytes: o.maxBody_bytes,
      limits: o.limits,
      log: o.log,
      tls: o.tls,
    });
    this.httpPort = await listen(this.#http, this.#host, httpPort, 'HTTP');
    if (grpcPort >= 0) {
      // A shut-down grpc-js server cannot serve again: each opening gets a new one.
      const calls = new ActiveCalls();
      const server = createGrpcServer(this.#core, {
        maxMessage_bytes: o.maxBody_bytes,
        maxConnectionIdle_ms: o.grpc?.maxConnectionIdle_ms,
        log: o.log,
        calls,
      });
      this.#grpc = await listenGrpc(server, this.#host, grpcPort, {
        tls: o.tls,
        maxConnections: o.limits?.maxConnections,
        calls,
        prefaceTimeout_ms: o.grpc?.prefaceTimeout_ms,
      });
      this.grpcPort = this.#grpc.port;
    }
  }

  /** Closes both ports; `grace_ms` 0 cuts every connection at once. */
  async close(grace_ms?: number): Promise<void> {
    const closing: Promise<void>[] = [];
    if (this.#http) closing.push(closeHttp(this.#http, grace_ms));
    if (this.#grpc) closing.push(this.#grpc.close(grace_ms));
    this.#http = undefined;
    this.#grpc = undefined;
    await Promise.all(closing);
  }
}

/** The Prometheus endpoint: GET /metrics. */
function createMetricsServer(metrics: ServerMetrics): http.Server {
  return http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
          res.end(withoutEmptyBackendFamilies(text));
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
}
