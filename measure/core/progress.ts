/**
 * The bench's own progress on long runs, beside whatever the runtime prints (real k6 keeps its progress bar):
 * a plain line to stderr when a level's window opens and every PROGRESS_EVERY_S seconds, saying which level of
 * how many, elapsed and remaining time, and the live rate the server reports. It reads only what the bench
 * already has: the planned timetable and the Prometheus scrapes (measure/core/metrics-scrape.ts), never the
 * runtime, so the measured loop pays nothing. Formatting and the timetable lookup are pure.
 */
import type { PlannedLevel } from '../../lib/load/scenarios.ts';
import { type MetricsScrape, serverTimeline } from '../../lib/summary/server-metrics.ts';
import { us_to_ms } from '../../lib/units.ts';

/** Seconds between two progress lines within one level. */
export const PROGRESS_EVERY_S = 10;

/** Where a run is on its timetable. */
export interface ProgressPoint {
  /** 1-based index of the level running (or next to run). */
  index: number;
  levels: number;
  name: string;
  phase: 'warm-up' | 'measuring' | 'finishing';
  elapsed_s: number;
  remaining_s: number;
}

/** What the server reported over the last scrape interval. */
export interface LiveRate {
  infer_s: number;
  queue_ms?: number;
  compute_ms?: number;
}

/** The point on the timetable `elapsed_s` after the run's first request (warm-ups precede each window). */
export function progressAt(
  levels: readonly PlannedLevel[],
  total_s: number,
  elapsed_s: number,
): ProgressPoint {
  const remaining_s = Math.max(0, total_s - elapsed_s);
  const at = (i: number, phase: ProgressPoint['phase']): ProgressPoint => ({
    index: i + 1,
    levels: levels.length,
    name: levels[i]!.name,
    phase,
    elapsed_s,
    remaining_s,
  });
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    // Before a window (its warm-up, or the previous level's graceful stop) counts as that level's warm-up.
    if (elapsed_s < level.start_s) return at(i, 'warm-up');
    if (elapsed_s < level.start_s + level.window_s) return at(i, 'measuring');
  }
  return at(levels.length - 1, 'finishing');
}

/** m:ss, or h:mm:ss past an hour. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/**
 * One progress line, e.g. `level 2 of 4 (c2, measuring): 0:12 elapsed, 0:21 remaining; server over the window
 * so far: 1,234 infer/s, queue 0.20 ms, compute 1.10 ms` (`span` says what the rate covers).
 */
export function formatProgress(point: ProgressPoint, rate?: LiveRate, span?: string): string {
  const head =
    point.phase === 'finishing'
      ? `levels done (${point.levels} of ${point.levels}), finishing`
      : `level ${point.index} of ${point.levels} (${point.name}, ${point.phase})`;
  const times = `${clock(point.elapsed_s)} elapsed, ${clock(point.remaining_s)} remaining`;
  if (!rate) return `${head}: ${times}`;
  const parts = [`${Math.round(rate.infer_s).toLocaleString('en-US')} infer/s`];
  if (rate.queue_ms !== undefined) parts.push(`queue ${rate.queue_ms.toFixed(2)} ms`);
  if (rate.compute_ms !== undefined) parts.push(`compute ${rate.compute_ms.toFixed(2)} ms`);
  return `${head}: ${times}; server${span ? ` ${span}` : ''}: ${parts.join(', ')}`;
}

/** The server's rate over the last scrape interval, inferences counting the batch. */
export function liveRate(
  scrapes: readonly MetricsScrape[],
  model: string,
  batch: number,
): LiveRate | undefined {
  const point = serverTimeline(scrapes.slice(-2), [], model).points[0];
  if (!point) return undefined;
  return {
    infer_s: point.requests_s * batch,
    ...(point.avg_queue_us !== undefined ? { queue_ms: us_to_ms(point.avg_queue_us) } : {}),
    ...(point.avg_compute_infer_us !== undefined ? { compute_ms: us_to_ms(point.avg_compute_infer_us) } : {}),
  };
}

/**
 * The server's rate over the level's window so far, by the rule of the level's final figure (requests in
 * the window over its length): from the first scrape at or after the window opened (`from_ms`) to the
 * latest; undefined until two scrapes fall inside the window.
 */
export function windowRate(
  scrapes: readonly MetricsScrape[],
  from_ms: number,
  model: string,
  batch: number,
): LiveRate | undefined {
  const inside = scrapes.filter((s) => s.t_ms >= from_ms);
  if (inside.length < 2) return undefined;
  return liveRate([inside[0]!, inside[inside.length - 1]!], model, batch);
}

/** The first scrape time (epoch ms) at which the model had served more requests than at the first scrape. */
function firstTraffic_ms(scrapes: readonly MetricsScrape[], model: string): number | undefined {
  const count = (s: MetricsScrape) =>
    s.samples
      .filter((x) => x.name === 'nv_inference_request_success' && (x.labels.model ?? model) === model)
      .reduce((a, x) => a + x.value, 0);
  const base = scrapes[0] ? count(scrapes[0]) : 0;
  return scrapes.find((s) => count(s) > base)?.t_ms;
}

/** What watchProgress needs. */
export interface ProgressOptions {
  levels: readonly PlannedLevel[];
  total_s: number;
  model: string;
  batch: number;
  /** The scrapes so far (none when the bench scrapes no metrics). */
  scrapes: () => readonly MetricsScrape[];
  /** When the runtime was started (epoch ms): the clock's origin until the server shows traffic. */
  started_ms: number;
  print: (line: string) => void;
  /** @default PROGRESS_EVERY_S */
  every_s?: number;
}

/**
 * Prints a progress line when a level's window opens and every `every_s` seconds; returns the stop function.
 * The clock starts at the first request the server counts (the first warm-up), else at the runtime's start.
 */
export function watchProgress(options: ProgressOptions): () => void {
  const every_ms = (options.every_s ?? PROGRESS_EVERY_S) * 1000;
  let lastKey = '';
  let lastPrinted_ms = 0;
  const tick = () => {
    const scrapes = options.scrapes();
    const origin_ms = firstTraffic_ms(scrapes, options.model);
    if (origin_ms === undefined && scrapes.length > 0) return; // setup() and VU init: nothing to say yet
    const now = Date.now();
    const origin = origin_ms ?? options.started_ms;
    const point = progressAt(options.levels, options.total_s, (now - origin) / 1000);
    const key = `${point.index}:${point.phase}`;
    const opened = key !== lastKey && point.phase !== 'warm-up';
    if (!opened && now - lastPrinted_ms < every_ms) return;
    lastKey = key;
    lastPrinted_ms = now;
    // While measuring, the rate over the window so far (the final figure's rule); between windows the last
    // scrape interval's, which is not a level's figure.
    const level = options.levels[point.index - 1];
    const rate =
      point.phase === 'measuring' && level
        ? windowRate(scrapes, origin + level.start_s * 1000, options.model, options.batch)
        : liveRate(scrapes, options.model, options.batch);
    options.print(
      formatProgress(point, rate, point.phase === 'measuring' ? 'over the window so far' : undefined),
    );
  };
  const timer = setInterval(tick, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
