/**
 * `k6-triton serve`: the embedded Triton-compatible server in the foreground. Prints Triton's model table and
 * service lines, then serves until SIGINT/SIGTERM, when in-flight requests finish before it exits (up to
 * --exit-timeout-secs, then it exits with Triton's code 1).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration_s } from '../lib/load/parse.ts';
import { EXIT } from '../measure/core/exit-codes.ts';
import { withCatalog } from '../measure/repository/built-in.ts';
import {
  modelTable,
  parseProbability,
  parseSpike,
  parseStatusFaults,
  startServer,
  tlsIdentity,
} from '@k6-triton/server';

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new InvalidArgumentError(`must be a port 0..65535 (0 = any free port), got "${value}"`);
  return n;
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`must be a number >= 0, got "${value}"`);
  return n;
}

function fraction(value: string): number {
  const n = nonNegative(value);
  if (n > 1) throw new InvalidArgumentError(`must be between 0 and 1, got "${value}"`);
  return n;
}

/** Wraps a parser that throws Error into one commander reports as the option's error. */
function checked<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

const duration_ms = (name: string) =>
  checked((text) => parseDuration_s(name, text, { allowZero: true }) * 1000);

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface ServeOptions {
  modelRepository?: string;
  host: string;
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  logVerbose: number;
  modelControlMode: 'none' | 'explicit';
  loadModel: string[];
  timeScale: number;
  jitter: number;
  errorRate: number;
  extraDelayMs: number;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  httpMaxInputSize: number;
  httpHeaderTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpMaxConnections: number;
  httpMaxInflatedJsonSize: number;
  faultStatus?: Record<number, number>;
  faultSpike?: { p: number; duration_ms: number };
  faultReset?: number;
  faultSeed: number;
  restartAfter?: number;
  restartDown?: number;
  exitTimeoutSecs: number;
  grpcPrefaceTimeoutMs: number;
  grpcMaxConnectionIdleMs: number;
}

/** Adds the `serve` subcommand to the program. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the embedded Triton-compatible server (HTTP, gRPC, metrics) until SIGINT/SIGTERM')
    .option(
      '--model-repository <dir>',
      'Triton-layout model repository (default: the built-in catalog models)',
    )
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--http-port <n>', 'HTTP port (0 = any free port)', port, 8000)
    .option('--grpc-port <n>', 'gRPC port (0 = any free port)', port, 8001)
    .option('--metrics-port <n>', 'Prometheus metrics port (0 = any free port)', port, 8002)
    .option('--log-verbose <level>', 'log every request when > 0', nonNegative, 0)
    .addOption(
      new Option('--model-control-mode <mode>', 'none: load all, no load/unload; explicit: load/unload API')
        .choices(['none', 'explicit'])
        .default('none'),
    )
    .option(
      '--load-model <name>',
      'in explicit mode, load this model at start (repeatable; * = all)',
      collect,
      [],
    )
    .option('--time-scale <f>', 'multiply simulated compute times (0 = no compute time)', nonNegative, 1)
    .option('--jitter <f>', 'simulated compute time spread, e.g. 0.1 for ±10%', nonNegative, 0)
    .option('--error-rate <p>', 'probability that a simulated batch fails', fraction, 0)
    .option('--extra-delay-ms <ms>', 'added to every simulated batch', nonNegative, 0)
    .option(
      '--http-max-input-size <bytes>',
      'largest request body accepted (413 above)',
      nonNegative,
      64 * 1024 * 1024,
    )
    .option(
      '--http-header-timeout-ms <ms>',
      'deadline for request headers (408 past it)',
      nonNegative,
      10_000,
    )
    .option(
      '--http-request-timeout-ms <ms>',
      'deadline for a whole request, headers and body (408 past it; 0 = none)',
      nonNegative,
      30_000,
    )
    .option(
      '--http-max-connections <n>',
      'open HTTP (and gRPC) connections served; past it, requests other than health get 503',
      nonNegative,
      1024,
    )
    .option(
      '--http-max-inflated-json-size <bytes>',
      'most JSON a gzip/deflate infer body may inflate to (413 above; reading it holds the event loop)',
      nonNegative,
      1024 * 1024,
    )
    .option(
      '--fault-status <spec>',
      'inject errors per status with a probability each, e.g. 503:0.01,500:0.02',
      checked((t) => parseStatusFaults('--fault-status', t)),
    )
    .option(
      '--fault-spike <p:duration>',
      'inject latency spikes: probability and duration, e.g. 0.05:200ms',
      checked((t) => parseSpike('--fault-spike', t)),
    )
    .option(
      '--fault-reset <p>',
      "probability that a request's connection is reset (gRPC: UNAVAILABLE)",
      checked((t) => parseProbability('--fault-reset', t)),
    )
    .option('--fault-seed <n>', 'seed of the fault draws', nonNegative, 1)
    .option(
      '--restart-after <duration>',
      'close and reopen the HTTP and gRPC ports once, this long after start (e.g. 30s)',
      duration_ms('--restart-after'),
    )
    .option(
      '--restart-down <duration>',
      'how long the ports stay closed on a restart (default 1s)',
      duration_ms('--restart-down'),
    )
    .option(
      '--grpc-preface-timeout-ms <ms>',
      'close gRPC connections that send no HTTP/2 preface this long (0 = never; gRPC C++: 120000)',
      nonNegative,
      120_000,
    )
    .option(
      '--grpc-max-connection-idle-ms <ms>',
      'close gRPC connections without calls this long (0 = never, as gRPC and Triton)',
      nonNegative,
      0,
    )
    .option(
      '--exit-timeout-secs <n>',
      'on SIGINT/SIGTERM, wait this long for in-flight requests, then exit anyway (Triton: 30)',
      nonNegative,
      30,
    )
    .option('--tls', 'serve HTTPS and gRPC over TLS (a self-signed certificate unless --tls-cert/--tls-key)')
    .option('--tls-cert <file>', 'with --tls: the PEM certificate (chain) to serve')
    .option('--tls-key <file>', 'with --tls: the PEM private key of --tls-cert')
    .action(async (opts: ServeOptions) => {
      if ((opts.tlsCert || opts.tlsKey) && !opts.tls) opts.tls = true;
      const tls = opts.tls ? await tlsIdentity({ certFile: opts.tlsCert, keyFile: opts.tlsKey }) : undefined;
      const log = opts.logVerbose > 0 ? (line: string) => console.log(line) : undefined;
      // Without --model-repository the server serves the catalog, which the tool hands to it.
      const options = await withCatalog({
        modelRepository: opts.modelRepository,
        host: opts.host,
        httpPort: opts.httpPort,
        grpcPort: opts.grpcPort,
        metricsPort: opts.metricsPort,
        modelControlMode: opts.modelControlMode,
        loadModels: opts.loadModel,
        maxBody_bytes: opts.httpMaxInputSize,
        simulated: {
          timeScale: opts.timeScale,
          jitter: opts.jitter,
          errorRate: opts.errorRate,
          extraDelay_ms: opts.extraDelayMs,
        },
        limits: {
          headersTimeout_ms: opts.httpHeaderTimeoutMs,
          requestTimeout_ms: opts.httpRequestTimeoutMs,
          maxConnections: opts.httpMaxConnections,
          inflatedJson_bytes: opts.httpMaxInflatedJsonSize,
        },
        faults: {
          status: opts.faultStatus,
          spike: opts.faultSpike,
          reset: opts.faultReset,
          seed: opts.faultSeed,
        },
        grpc: {
          prefaceTimeout_ms: opts.grpcPrefaceTimeoutMs,
          maxConnectionIdle_ms: opts.grpcMaxConnectionIdleMs,
        },
        restartAfter_ms: opts.restartAfter,
        restartDown_ms: opts.restartDown,
        onRestart: (line) => console.log(line),
        tls,
        log,
      });
      const server = await startServer(options);
      console.log(modelTable(server.models));
      console.log(`Started GRPCInferenceService at ${server.host}:${server.grpcPort}${tls ? ' (TLS)' : ''}`);
      console.log(`Started HTTPService at ${server.host}:${server.httpPort}${tls ? ' (HTTPS)' : ''}`);
      if (tls && !opts.tlsCert) {
        console.log(
          'TLS: self-signed certificate for localhost, 127.0.0.1, ::1; clients skip verification or trust it',
        );
      }
      console.log(`Started Metrics Service at ${server.host}:${server.metricsPort}`);
      let drained = true;
      await new Promise<void>((resolve) => {
        const onSignal = (signal: string) => {
          console.log(`Received ${signal}, waiting for in-flight requests to finish`);
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          const log = (line: string) => console.log(line);
          const onExpired = () => {
            drained = false;
          };
          server
            .stop({ drainTimeout_ms: opts.exitTimeoutSecs * 1000, log, onExpired })
            .then(resolve, resolve);
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      if (!drained) {
        // Triton's words and exit code; exit at once, as what was in flight may still hold timers.
        console.error('failed to stop server: Internal - Exit timeout expired. Exiting immediately.');
        process.exit(EXIT.EXIT_TIMEOUT_EXPIRED);
      }
      console.log('Server stopped');
    });
}
