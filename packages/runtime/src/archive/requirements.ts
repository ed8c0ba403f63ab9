/**
 * `inspect --execution-requirements`: the options with k6's defaults, the scenarios they stand for (each with
 * every field of its executor, null when unset), the longest the test can run and the VUs it needs at once.
 */
import { formatDuration_ms } from '@k6-triton/lib/duration.ts';
import { maxScenarioDuration_ms, peakPlannedVus, plannedVus } from '../executors/index.ts';
import { consolidateOptions } from '../options/index.ts';
import { deriveScenarios } from '../options/shortcuts.ts';
import { k6OptionsJson, withArchiveDefaults } from './metadata.ts';

/** What `k6 inspect --execution-requirements` prints for these options. */
export function executionRequirements(options: Record<string, unknown>): Record<string, unknown> {
  const test = consolidateOptions(options);
  const scenarios = deriveScenarios(options, () => {});
  // k6 prints the stages shortcut's scenario with only what the options set (the runtime fills in defaults).
  const stages = options['stages'];
  if (
    Array.isArray(stages) &&
    stages.length > 0 &&
    (scenarios['default'] as { executor?: string })?.executor === 'ramping-vus'
  )
    scenarios['default'] = { executor: 'ramping-vus', startVUs: options['vus'], stages };
  const total = Math.max(0, ...test.scenarios.map((c) => c.startTime_ms + maxScenarioDuration_ms(c)));
  return {
    ...k6OptionsJson({ ...withArchiveDefaults(options), scenarios }),
    totalDuration: formatDuration_ms(total),
    // The most VUs the test may use: an arrival-rate scenario's maxVUs, not its preallocated ones.
    maxVUs: peakPlannedVus(test.scenarios, (c) =>
      c.executor.endsWith('arrival-rate') ? Math.max(c.maxVUs, plannedVus(c)) : plannedVus(c),
    ),
  };
}

/** Checks options as a run would (k6 refuses to archive a test it could not run); throws InvalidConfigError. */
export function checkOptions(options: Record<string, unknown>): void {
  consolidateOptions(options);
}
