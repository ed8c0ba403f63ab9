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

/**
 * The sub-window of the current measurement scenario, for the measured loop: reads the scenario's
 * start (e.g. exec.scenario.startTime, which builds an object per call in k6) once per window, not
 * once per request. A VU's next scenario always starts after its last window ended, so a moment
 * past the cached window's end is when to read the start again. With `segments` (a ramp, ramp.ts) the
 * scenario is that many consecutive windows, and `segment` names the one a moment fell in.
 */
export class WindowClock {
  readonly #window_ms: number;
  readonly #count: number;
  readonly #scenarioStart: () => number;
  readonly #segments: readonly string[] | undefined;
  #start_ms = 0;
  #end_ms = 0;
  #segment: string | undefined;

  constructor(
    window_s: number,
    scenarioStart: () => number,
    count = DEFAULT_SUB_WINDOWS,
    segments?: readonly string[],
  ) {
    this.#window_ms = window_s * 1000;
    this.#count = count;
    this.#scenarioStart = scenarioStart;
    this.#segments = segments && segments.length > 0 ? segments : undefined;
  }

  /** The window (of a ramp's segments) the last index() fell in; undefined without segments. */
  get segment(): string | undefined {
    return this.#segment;
  }

  /** The sub-window index (0..count-1) of the moment `now_ms` (epoch milliseconds). */
  index(now_ms = Date.now()): number {
    if (now_ms >= this.#end_ms) this.#locate(now_ms);
    return subWindowIndex(now_ms - this.#start_ms, this.#window_ms / 1000, this.#count);
  }

  #locate(now_ms: number): void {
    const start_ms = this.#scenarioStart();
    const segments = this.#segments;
    if (!segments) {
      this.#start_ms = start_ms;
      this.#end_ms = start_ms + this.#window_ms;
      return;
    }
    const last = segments.length - 1;
    const i = Math.min(last, Math.max(0, Math.floor((now_ms - start_ms) / this.#window_ms)));
    this.#segment = segments[i];
    this.#start_ms = start_ms + i * this.#window_ms;
    // Requests after the last window (its graceful stop) belong to the last window, as a level's late ones do.
    this.#end_ms = i === last ? Number.POSITIVE_INFINITY : this.#start_ms + this.#window_ms;
  }

  /**
   * When the index after `index(now_ms)` next changes (epoch ms): the caller compares one number per
   * request instead of asking again (real k6 interprets every call of the measured loop).
   */
  nextChange_ms(now_ms: number): number {
    const part_ms = this.#window_ms / this.#count;
    const index = subWindowIndex(now_ms - this.#start_ms, this.#window_ms / 1000, this.#count);
    return index < this.#count - 1 ? this.#start_ms + (index + 1) * part_ms : this.#end_ms;
  }
}
