/**
 * `k6-triton serve`: the embedded Triton-compatible server in the foreground. Prints Triton's model table and
 * service lines, then serves until SIGINT/SIGTERM, when in-flight requests finish before it exits.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { modelTable, startServer } from '../server/index.ts';

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
  httpMaxInputSize: number;
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
    .action(async (opts: ServeOptions) => {
      const log = opts.logVerbose > 0 ? (line: string) => console.log(line) : undefined;
      const server = await startServer({
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
        log,
      });
      console.log(modelTable(server.models));
      console.log(`Started GRPCInferenceService at ${server.host}:${server.grpcPort}`);
      console.log(`Started HTTPService at ${server.host}:${server.httpPort}`);
      console.log(`Started Metrics Service at ${server.host}:${server.metricsPort}`);
      await new Promise<void>((resolve) => {
        const onSignal = (signal: string) => {
          console.log(`Received ${signal}, waiting for in-flight requests to finish`);
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          server.stop().then(resolve, resolve);
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      console.log('Server stopped');
    });
}
