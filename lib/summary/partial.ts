/**
 * Levels a run cut short. A level whose measurement window had not ended when the run stopped (a signal,
 * test.abort(), a crash) measured only part of its window: its throughput would be requests over the whole
 * window, too low, and its server statistics were never read. Such a level is named as not measured and is
 * kept out of every table, plot and CSV row. When a window started is told by the `<level>_stats` probe's
 * Gauge (epoch ms); when the run stopped is told by the caller. Pure.
 */
import { statsName, subMetricKey, WINDOW_START_METRIC } from '../load/names.ts';
import { formatG } from './format.ts';
import type { LevelResult, PartialLevel } from './types.ts';

/** A level of the run's plan (the scenario builder's PlannedLevel fits). */
export interface PlannedRef {
  name: string;
  mode: PartialLevel['mode'];
  level: number;
  window_s: number;
}

/** Summary data as far as this module reads it: handleSummary's nested values or the export's flat ones. */
type Metrics = Readonly<Record<string, { values?: Record<string, number>; [field: string]: unknown }>>;

/** When the level's window started (epoch ms), from its stats probe's Gauge; undefined when it never did. */
export function windowStart_ms(metrics: Metrics, level: string): number | undefined {
  const gauge = metrics[subMetricKey(WINDOW_START_METRIC, statsName(level))];
  const value = gauge?.values?.['value'] ?? gauge?.['value'];
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** Seconds of the window that ran when the run stopped at `stopped_ms`; undefined when the window was whole. */
export function cutAfter_s(start_ms: number, window_s: number, stopped_ms: number): number | undefined {
  if (stopped_ms >= start_ms + window_s * 1000) return undefined;
  return Math.max(0, (stopped_ms - start_ms) / 1000);
}

/** The levels whose window started but had not ended at `stopped_ms`, in plan order. */
export function cutLevels(
  metrics: Metrics,
  levels: readonly PlannedRef[],
  stopped_ms: number,
): PartialLevel[] {
  const cut: PartialLevel[] = [];
  for (const ref of levels) {
    const start_ms = windowStart_ms(metrics, ref.name);
    const measured_s = start_ms === undefined ? undefined : cutAfter_s(start_ms, ref.window_s, stopped_ms);
    if (measured_s === undefined) continue;
    cut.push({ name: ref.name, mode: ref.mode, level: ref.level, window_s: ref.window_s, measured_s });
  }
  return cut;
}

/** The results without the cut levels. */
export function withoutCut(results: readonly LevelResult[], cut: readonly PartialLevel[]): LevelResult[] {
  const names = new Set(cut.map((level) => level.name));
  return results.filter((result) => !names.has(result.name));
}

/** How a cut level reads everywhere: `not measured (interrupted after 3.7 s of 5 s)`. */
export function partialNote(level: PartialLevel): string {
  return `not measured (interrupted after ${level.measured_s.toFixed(1)} s of ${formatG(level.window_s)} s)`;
}
