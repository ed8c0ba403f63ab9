/**
 * The sweep run end to end: a grid of server configurations (instances, max queue delay, preferred batch,
 * max batch size) applied one by one through Triton's repository API (load with a config override, explicit
 * model-control mode), each measured over a concurrency list on a target prepared once, ranked by throughput
 * within the budget; the original config is loaded back at the end. Results go to
 * results/<model>/sweep-<run-id>/.
 */
import { withPromptWorkload } from '../../payloads/prompt-workload.ts';
import { join } from 'node:path';
import { EXIT } from '../core/exit-codes.ts';
import { measureLevels } from '../capacity/measure-levels.ts';
import { RUNTIME_LOG } from '../core/measure-pass.ts';
import type { SearchBudget } from '../capacity/search.ts';
import { watchSignals } from '../core/interrupt.ts';
import { type PrepareOptions, type Prepared, prepare } from '../core/prepare.ts';
import type { RuntimeChoice } from '../core/runner.ts';
import { type RunSettings, resolveTarget, runDir } from '../core/target.ts';
import { buildGrid, configLabel, type GridAxes } from './grid.ts';
import { appliedConfig, overrideMismatches, withOverride } from './override.ts';
import { idleBatchingWarning } from './idle-batching.ts';
import { type ConfigOutcome, rankConfigs } from './rank.ts';
import { type SweepRecord, sweepTable, winnerSentence, winnerSnippet, writeSweep } from './sweep-report.ts';
import { loadModelConfig, readModelConfig } from './sweep-repository.ts';

/** The grid and levels a bare `k6-triton sweep <model>` measures: seed 003's axes, 6 configs x 3 levels. */
export const SWEEP_DEFAULTS = { instances: '1,2,4', maxQueueDelayUs: '0,150', concurrency: '1,2,4' } as const;

/** What a sweep run takes. */
export interface SweepOptions extends PrepareOptions {
  model: string;
  /** Scenario settings as the bench takes them (CONCURRENCY is the sweep's). */
  settings: RunSettings;
  axes: GridAxes;
  concurrency: number[];
  runtime: RuntimeChoice;
  k6Args: string[];
  resultsDir: string;
}

/** Runs the sweep end to end and writes its results; resolves with the exit code. */
export async function runSweep(options: SweepOptions): Promise<number> {
  const grid = buildGrid(options.axes);
  // The bench's own plan, resolved once so a bad setting fails before any server is touched.
  const target = resolveTarget(
    options.model,
    withPromptWorkload(options.model, options.settings, process.env, { loadGiven: true }),
    { levels: { mode: 'concurrency', levels: options.concurrency } },
  );
  const plan = target.run;
  const budget: SearchBudget = plan.limits;
  const served = plan.settings.modelName;
  const dir = runDir(options.resultsDir, target, 'sweep-');
  const targetName = options.settings.TRITON_URL || (options.tritonserver ? 'tritonserver' : 'embedded');

  // SIGINT and SIGTERM stop the configuration being measured as they stop a bench; the sweep then stops.
  const interruption = watchSignals();
  let prepared: Prepared;
  try {
    // Explicit mode with the model loaded: the state a real Triton must be in for the load API to work.
    prepared = await prepare(target, { ...options, explicitControl: true }, interruption);
  } catch (error) {
    interruption.dispose();
    throw error;
  }
  const url = prepared.url;
  const outcomes: ConfigOutcome[] = [];
  const applied: SweepRecord['applied'] = [];
  let original: Record<string, unknown> | undefined;
  let restored = false;
  let stoppedEarly: string | undefined;
  try {
    original = await readModelConfig(url, served);
    const idle = idleBatchingWarning(served, grid, appliedConfig(original).max_batch_size);
    if (idle) console.error(`k6-triton: sweep: ${idle}`);
    console.log(
      `sweep: a line per config and level; each config's bench report is in ${join(dir, 'configs', target.modelDir)}/<run>/ (the runtime's output in ${RUNTIME_LOG})`,
    );
    for (const [i, config] of grid.entries()) {
      if (interruption.first) {
        stoppedEarly = `interrupted after ${i} of ${grid.length} configurations`;
        break;
      }
      console.log(`\nsweep ${i + 1}/${grid.length}: ${configLabel(config)}`);
      try {
        await loadModelConfig(url, served, withOverride(original, config));
        const now = appliedConfig(await readModelConfig(url, served));
        const mismatches = overrideMismatches(config, now);
        applied.push({ config, applied: now });
        // A server that ignores part of the override would be measured under the wrong label.
        if (mismatches.length > 0)
          throw new Error(`the server did not take the config: ${mismatches.join('; ')}`);
      } catch (error) {
        const message = (error as Error).message.split('\n')[0] ?? 'load failed';
        console.error(`k6-triton: sweep: ${configLabel(config)}: ${message}`);
        outcomes.push({ config, levels: [], error: message });
        continue;
      }
      const run = await measureLevels(
        prepared,
        {
          mode: 'concurrency',
          runtime: options.runtime,
          k6Args: options.k6Args,
          resultsDir: join(dir, 'configs'),
          interruption,
          quiet: true,
        },
        options.concurrency,
      );
      const last = applied[applied.length - 1];
      if (last) last.dir = run.dir;
      // A bench that failed other than on a budget keeps the levels it finished; the sweep judges them itself.
      const error = run.measured ? undefined : `bench exited ${run.exitCode} (see ${run.dir})`;
      outcomes.push({ config, levels: run.measurements, ...(error ? { error } : {}) });
      for (const m of run.measurements)
        console.log(
          `  c${m.level}: ${Math.round(m.throughput_infer_s).toLocaleString('en-US')} infer/s, p95 ${m.p95_ms.toFixed(1)} ms, p99 ${m.p99_ms.toFixed(1)} ms, errors ${(m.error_rate * 100).toFixed(2)}%`,
        );
    }
  } finally {
    if (original) {
      try {
        await loadModelConfig(url, served, original);
        restored = true;
        console.log(`\nsweep: original config of ${served} loaded back`);
      } catch (error) {
        console.error(
          `k6-triton: sweep: could not restore ${served}'s original config: ${(error as Error).message}; load it by hand`,
        );
      }
    }
    await prepared.stop();
    interruption.dispose();
  }
  if (interruption.first && !stoppedEarly)
    stoppedEarly = `interrupted after ${outcomes.length} of ${grid.length} configurations`;

  const record: SweepRecord = {
    model: options.model === 'generic' ? served : options.model,
    served_model: served,
    target: targetName,
    batch: plan.settings.batch,
    budget,
    concurrency: options.concurrency,
    original: appliedConfig(original),
    restored,
    ranking: rankConfigs(outcomes, budget),
    applied,
    ...(stoppedEarly ? { stopped_early: stoppedEarly } : {}),
  };
  // Files not written are said at the end of the output (report/not-written.ts).
  await writeSweep(dir, record);
  console.log(`\n${sweepTable(record)}\n\n${winnerSentence(record)}`);
  const snippet = winnerSnippet(record);
  if (snippet) console.log(`\nconfig.pbtxt:\n${snippet}`);
  console.log(`results: ${dir}`);
  if (interruption.first) return EXIT.EXTERNAL_ABORT;
  if (!restored) return EXIT.FAILED;
  return snippet ? EXIT.OK : EXIT.THRESHOLDS_FAILED;
}
