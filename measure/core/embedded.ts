/** Starts and stops the embedded server in a child process for a bench run. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerOptions, TlsIdentity } from '@k6-triton/server';
import type { Interruption } from './interrupt.ts';
import { childCommand } from './process-group.ts';

/** A running embedded server: its URLs and how to stop it. */
export interface EmbeddedServer {
  url: string;
  grpcUrl: string;
  /** Its Prometheus endpoint (Triton's metrics port), which the bench scrapes per level. */
  metricsUrl: string;
  stop(): Promise<void>;
}

/** What a run that benches one model asks of its embedded server (bench, capacity and sweep alike). */
export interface ServingChoice {
  /** Catalog id of the benched model ('generic' serves the default repository as it is). */
  modelId: string;
  /** The run's PRECISION when one was asked for; the model is then served at it. */
  precision?: string;
  modelRepository?: string;
  timeScale?: number;
  /** Serve HTTPS and gRPC over TLS with this identity. */
  tls?: TlsIdentity;
}

/**
 * What the embedded server's child process starts from: server options, and the PRECISION per catalog id the
 * built-in repository serves its models at (the catalog is handed to the server when no repository is named).
 */
export interface EmbeddedOptions extends ServerOptions {
  precisions?: Record<string, string>;
}

/**
 * Open connections the embedded server of a run accepts. The 1,024 of `serve` guards it against hostile
 * clients; a run's only client is its own load, and an open-loop level may hold up to 4 x its rate in VUs, each
 * with its connection, when the machine stalls (a CI run's 400/s ramp met the 1,024 and failed on 503s).
 */
export const RUN_MAX_CONNECTIONS = 16_384;

/** Server options for a run: the model at the precision its payloads are made in, as a deployer exports it. */
export function servingOptions(choice: ServingChoice): EmbeddedOptions {
  return {
    limits: { maxConnections: RUN_MAX_CONNECTIONS },
    ...(choice.precision && choice.modelId !== 'generic'
      ? { precisions: { [choice.modelId]: choice.precision } }
      : {}),
    ...(choice.modelRepository ? { modelRepository: choice.modelRepository } : {}),
    ...(choice.timeScale !== undefined ? { simulated: { timeScale: choice.timeScale } } : {}),
    ...(choice.tls ? { tls: choice.tls } : {}),
  };
}

/** How long a stopping server may take to let in-flight requests finish before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Forks the server on ephemeral 127.0.0.1 ports and waits until it listens. With `interruption`, the
 * server runs in its own process group, so a Ctrl-C to the bench's group does not drop it under the
 * runtime's last requests; the bench stops it after the runtime, and kills it on a second signal. It also
 * stops when the bench goes away (its IPC channel closes), whatever killed the bench.
 */
export async function startEmbedded(
  options: EmbeddedOptions = {},
  interruption?: Interruption,
): Promise<EmbeddedServer> {
  // What fork() would run (this node, an IPC channel), through childCommand so that the server's own group
  // stays in the bench's session: the build's embedded-child.js when the command started from a build
  // (bin/k6-triton.js says where), else the source under the tsx loader.
  const start = childCommand(process.execPath, childArgs(), interruption !== undefined);
  const child = spawn(start.program, start.args, {
    env: { ...process.env, K6_TRITON_SERVER_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    detached: start.detached,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const unKill = interruption?.onKill(kill);
  void exited.then(() => unKill?.());
  try {
    type Ports = { httpPort: number; grpcPort: number; metricsPort: number };
    const ports = await new Promise<Ports>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ports));
      child.once('exit', (code) =>
        reject(new Error(`embedded server exited with code ${code} before listening`)),
      );
      child.once('error', reject);
    });
    return {
      url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${ports.httpPort}`,
      grpcUrl: `${options.tls ? 'grpcs://' : ''}127.0.0.1:${ports.grpcPort}`,
      metricsUrl: `http://127.0.0.1:${ports.metricsPort}/metrics`,
      async stop() {
        if (child.connected) child.send('stop');
        const timer = setTimeout(kill, STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    kill();
    throw error;
  }
}

/** The embedded server's child-process entry: the build's when there is one, else the source through tsx. */
function childArgs(): string[] {
  const built = process.env.K6_TRITON_BUILD_DIR;
  if (built) return [join(built, 'embedded-child.js')];
  // tsx by its resolved path: a bare 'tsx' would be looked up from the working directory, which need not be ours.
  return [
    '--import',
    import.meta.resolve('tsx'),
    fileURLToPath(new URL('./embedded-child.ts', import.meta.url)),
  ];
}
