/**
 * The stated error bar (issue 39 item 7): before a generative run's first level, the run's own scenario,
 * runtime and protocol stream for a short window at concurrency 1 from a known-delay model served here, in
 * this process (known-delay.ts), so the generator's timing error on this machine is measured, not assumed. The
 * client's TTFT and token gaps are set against the times the server really sent each token (lib/genai/error-bar.ts).
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@k6-triton/server';
import { errorFigures, type SentStream } from '../../lib/genai/error-bar.ts';
import type { GeneratorErrorBar } from '../../lib/summary/types.ts';
import { extractRecords, readRunRecords, recordsOutputArgs } from './genai-records.ts';
import {
  KNOWN_DELAY_BACKEND,
  KNOWN_STREAM,
  type KnownStream,
  knownDelayBackend,
  knownDelayModel,
} from './known-delay.ts';
import type { MeasureOptions } from './measure-pass.ts';
import { runMeasurement, scenarioEnvironment } from './measure-pass.ts';
import type { Prepared } from './prepare.ts';
import { planAt, withLevels } from './target.ts';

/** The pre-flight's window, s: long enough for about a hundred 40 ms streams, short beside a run. */
const WINDOW_S = 3;

/** What the pre-flight runs; bench/genai/stream-capacity.ts varies it, the bench takes the defaults. */
export interface PreflightLoad {
  /** @default KNOWN_STREAM */
  stream?: KnownStream;
  /** Closed-loop VUs. @default 1 */
  concurrency?: number;
  /** @default 3 */
  window_s?: number;
  /** Print what it does. @default true */
  say?: boolean;
}

/**
 * Measures the generator's error bar; undefined (with the reason printed) when the model takes no text
 * prompt (the repeat model's tensors) or no request succeeded.
 */
export async function preflight(
  prepared: Prepared,
  options: Pick<MeasureOptions, 'runtime' | 'interruption'> & { dir: string },
  load: PreflightLoad = {},
): Promise<GeneratorErrorBar | undefined> {
  const { target } = prepared;
  const stream = load.stream ?? KNOWN_STREAM;
  const concurrency = load.concurrency ?? 1;
  const window_s = load.window_s ?? WINDOW_S;
  const say = (line: string) => {
    if (load.say !== false) console.error(`k6-triton: pre-flight: ${line}`);
  };
  if (target.entry.id === 'repeat') {
    say("skipped: the repeat model's requests are tensors, not a text prompt the known-delay model takes");
    return undefined;
  }
  const model = target.run.settings.modelName;
  const sent: SentStream[] = [];
  const server = await startServer({
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    metricsPort: -1,
    models: [knownDelayModel(model)],
    backends: { [KNOWN_DELAY_BACKEND]: knownDelayBackend(sent, stream) },
  });
  try {
    // Closed loop whatever the run's load: its open-loop or ramp settings would refuse a concurrency level.
    const {
      ARRIVALS: _a,
      ARRIVALS_SEED: _s,
      MAX_VUS: _m,
      SCHEDULE: _sc,
      REQUEST_INTERVALS: _r,
      RAMP: _ramp,
      RAMP_RATE: _rampRate,
      RAMP_DURATION: _rampDuration,
      ...closed
    } = target.settings;
    const settings = withLevels(
      // A short warm-up: the connection's set-up is no request's, as in the levels.
      { ...closed, STEP_DURATION: `${window_s}s`, WARMUP_DURATION: '1s' },
      'concurrency',
      [concurrency],
    );
    const plan = planAt(
      { ...target, settings: closed },
      { levels: { mode: 'concurrency', levels: [concurrency] }, window_s },
    );
    const here: Prepared = {
      ...prepared,
      url: `http://127.0.0.1:${server.httpPort}`,
      grpcUrl: `127.0.0.1:${server.grpcPort}`,
      metricsUrl: undefined,
      tls: undefined,
    };
    const env = {
      ...scenarioEnvironment(here, settings, options.dir),
      // Its requests are judged by nothing: the budget's verdicts of this window are not the run's.
      TTFT_P95_MS: '600000',
      ITL_P95_MS: '600000',
    };
    say(
      `streaming from a known-delay model here (first token ${stream.first_ms} ms, then one every ${stream.gap_ms} ms) for ${window_s}s at c${concurrency}`,
    );
    const measured = await runMeasurement(here, env, plan, `${model} (pre-flight)`, {
      ...options,
      progress: false,
      quiet: true,
      k6Args: recordsOutputArgs(options.dir),
    });
    await extractRecords(options.dir);
    const records = await readRunRecords(options.dir);
    const figures = errorFigures(records, sent, stream, concurrency === 1);
    if (!figures) {
      say(`no request succeeded (runtime exit ${measured.run.exitCode}); no error bar, the run goes on`);
      return undefined;
    }
    return {
      protocol: plan.settings.protocol,
      runtime: measured.run.runtime,
      known: { ...stream },
      ...figures,
      load_avg_1m: loadavg()[0]!,
      cores: cpus().length,
    };
  } finally {
    await server.stop();
  }
}

/** The pre-flight's folder inside a run's. */
export function preflightDir(runDir: string): string {
  return join(runDir, 'preflight');
}
