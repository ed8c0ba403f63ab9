/**
 * Sub-windows for perf_analyzer's stability rule inside one k6 measurement scenario: each request is tagged
 * with the third of the window it started in, so the summary holds per-sub-window latency and counts
 * (see budgetThresholds({ subWindows }) and report/from-summary.ts). Pure; runs inside k6 and on Node.
 */
import { DEFAULT_SUB_WINDOWS, WINDOW_TAG } from './names.ts';

/** Which sub-window (0..count-1) a moment `elapsed_ms` after the window start falls in; late requests go last. */
export function subWindowIndex(elapsed_ms: number, window_s: number, count = DEFAULT_SUB_WINDOWS): number {
  if (!(window_s > 0) || count < 1) return 0;
  const index = Math.floor(elapsed_ms / ((window_s * 1000) / count));
  return Math.min(count - 1, Math.max(0, index));
}

/**
 * Tags to add to a request in a measurement scenario, e.g. `{ window: '1' }`.
 * In k6: `windowTags(Date.now() - exec.scenario.startTime, WINDOW_S)` with exec from 'k6/execution'.
 */
export function windowTags(
  elapsed_ms: number,
  window_s: number,
  count = DEFAULT_SUB_WINDOWS,
): Record<string, string> {
  return { [WINDOW_TAG]: String(subWindowIndex(elapsed_ms, window_s, count)) };
}
