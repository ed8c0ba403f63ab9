/**
 * The one module that owns HDR histograms. Time trends record nanoseconds (3 significant
 * digits, auto-resizing), so memory stays flat however long the run; min, max, sum and count are
 * kept exactly beside the histogram because k6 reports them exactly.
 */
import { createRequire } from 'node:module';
import type { JsHistogram } from 'hdr-histogram-js/dist/JsHistogram.js';
import type Int32HistogramClass from 'hdr-histogram-js/dist/Int32Histogram.js';

/**
 * The JavaScript histogram alone: the package's index also loads its WebAssembly build and that
 * build's decoders (pako, base64-js), about 14 MiB per thread that the runtime never uses.
 */
let Int32Histogram: typeof Int32HistogramClass | null = null;
/** Loaded at the first trend: a blocking VU's thread (blocking/) forwards its samples and never needs it. */
const int32Histogram = (): typeof Int32HistogramClass => {
  Int32Histogram ??= createRequire(import.meta.url)('hdr-histogram-js/dist/Int32Histogram.js')
    .default as typeof Int32HistogramClass;
  return Int32Histogram;
};

/** Largest value the histogram records (values above clamp here; min/max/avg stay exact). */
const MAX_RECORDED = 2 ** 52;

/** An HDR histogram plus the exact aggregates k6 reports. */
export class TrendHistogram {
  readonly #hist: JsHistogram;
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  /**
   * @param scale factor from the trend's unit to the histogram's integers: 1e6 for time trends
   *   (ms → ns, so sub-microsecond phases keep 3 significant digits), 1e3 for plain values.
   */
  constructor(readonly scale = 1e6) {
    // What the package's build() makes for 32-bit buckets: lowest 1, highest 2, growing as needed.
    this.#hist = new (int32Histogram())(1, 2, 3);
    this.#hist.autoResize = true;
  }

  /** Records one value (ms for time trends); negative values count in min/avg but clamp to 0 in percentiles. */
  add(value: number): void {
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    const scaled = Math.round(value * this.scale);
    this.#hist.recordValue(scaled > 0 ? (scaled < MAX_RECORDED ? scaled : MAX_RECORDED) : 0);
  }

  /** Percentile p in [0, 100], clamped to the exact min and max so p(100) == max as in k6. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const v = this.#hist.getValueAtPercentile(p) / this.scale;
    return Math.min(Math.max(v, this.min), this.max);
  }

  /** Average of all values, 0 when empty. */
  avg(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /**
   * The non-empty buckets as [lowest equivalent value, count] pairs, flattened: plain data another
   * thread turns back into the same histogram (addBuckets), so merged percentiles are exact.
   */
  buckets(): number[] {
    const h = this.#hist;
    const out: number[] = [];
    for (let i = 0; i < h.countsArrayLength; i++) {
      const n = h.getCountAtIndex(i);
      if (n > 0) out.push(h.valueFromIndex(i), n);
    }
    return out;
  }

  /** Adds the values another histogram's buckets() and exact aggregates describe. */
  addBuckets(
    buckets: readonly number[],
    exact: { count: number; sum: number; min: number; max: number },
  ): void {
    if (exact.count === 0) return;
    for (let i = 0; i < buckets.length; i += 2) this.#hist.recordValueWithCount(buckets[i]!, buckets[i + 1]!);
    this.count += exact.count;
    this.sum += exact.sum;
    if (exact.min < this.min) this.min = exact.min;
    if (exact.max > this.max) this.max = exact.max;
  }

  /** Adds every value of `other` into this one (merging histograms, never percentiles). */
  merge(other: TrendHistogram): void {
    if (other.count === 0) return;
    if (other.scale !== this.scale) throw new Error('cannot merge histograms of different scales');
    this.#hist.add(other.#hist);
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }
}
