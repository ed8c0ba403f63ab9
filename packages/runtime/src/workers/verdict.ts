/** Thresholds judged on several workers' merged metrics (the first worker's abortOnFail checks). */
import { newRootGroup } from '../groups.ts';
import { MetricRegistry } from '../metrics/registry.ts';
import { buildThresholds, evaluateThresholds } from '../thresholds.ts';
import { absorbSnapshot, type RunSnapshot } from './merge.ts';

/** Evaluates `options.thresholds` on the merge of `snapshots`, as evaluateThresholds does on one run. */
export function mergedVerdict(
  raw: unknown,
  snapshots: readonly RunSnapshot[],
  elapsed_ms: number,
): ReturnType<typeof evaluateThresholds> {
  const target = { registry: new MetricRegistry(), rootGroup: newRootGroup() };
  for (const s of snapshots) absorbSnapshot(target, s);
  return evaluateThresholds(buildThresholds(raw, target.registry), elapsed_ms);
}
