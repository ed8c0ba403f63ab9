/**
 * The one module that owns HDR histograms. Time trends record nanoseconds (3 significant
 * digits, auto-resizing), so memory stays flat however long the run; min, max, sum and count are
 * kept exactly beside the histogram because k6 reports them exactly. The first EXACT_VALUES values
 * are kept too, and while a trend holds no more, its percentiles are k6's own (every value, linear
 * between the closest ranks): on a few hundred samples a histogram's nearest rank is far from k6's
 * p99 (for 1, 4, ..., 100 k6 says p50 30.5, nearest rank 25).
 */
import { createRequire } from 'node:module';
import type { JsHistogram } from 'hdr-histogram-js/dist/JsHistogram.js';
import { percentileOfSorted } from '@k6-triton/lib/genai/stats.ts';
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

/**
 * Values per trend kept exactly (800 KB): past them the histogram alone answers, within its 3 digits of k6's
 * figure, and memory stays flat (k6 keeps every value). Sorting them for a threshold check stays ~10 ms.
 */
export const EXACT_VALUES = 100_000;

/** An HDR histogram plus the exact aggregates k6 reports. */
export class TrendHistogram {
  readonly #hist: JsHistogram;
  /** The values while there are at most EXACT_VALUES (null past them), the first `count` in use. */
  #exact: Float64Array | null = new Float64Array(16);
  #sorted = true;
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
    this.#keep(value, this.count);
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    const scaled = Math.round(value * this.scale);
    this.#hist.recordValue(scaled > 0 ? (scaled < MAX_RECORDED ? scaled : MAX_RECORDED) : 0);
  }

  /** Stores `value` as exact value number `at` while they last (past EXACT_VALUES none are kept). */
  #keep(value: number, at: number): void {
    let exact = this.#exact;
    if (exact === null) return;
    if (at >= exact.length) {
      if (at >= EXACT_VALUES) {
        this.#exact = null;
        return;
      }
      const grown = new Float64Array(Math.min(Math.max(exact.length * 2, at + 1), EXACT_VALUES));
      grown.set(exact);
      exact = this.#exact = grown;
    }
    exact[at] = value;
    this.#sorted = false;
  }

  /** The exact values, while the trend holds no more than EXACT_VALUES (plain data for another thread). */
  exactValues(): number[] | null {
    return this.#exact === null ? null : Array.from(this.#exact.subarray(0, this.count));
  }

  /**
   * Percentile p in [0, 100]: k6's rule over the exact values while they are all kept, else the histogram's,
   * clamped to the exact min and max so p(100) == max as in k6.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const exact = this.#exact;
    if (exact !== null) {
      const values = exact.subarray(0, this.count);
      if (!this.#sorted) {
        values.sort();
        this.#sorted = true;
      }
      // k6's TrendSink.P: linear between the closest ranks.
      return percentileOfSorted(values, p);
    }
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

  /**
   * Adds the values another histogram's buckets() and exact aggregates describe, and its exact values
   * (exactValues()) when it kept them all: without them this trend's percentiles are the histogram's.
   */
  addBuckets(
    buckets: readonly number[],
    exact: { count: number; sum: number; min: number; max: number },
    values: readonly number[] | null = null,
  ): void {
    if (exact.count === 0) return;
    this.#keepAll(values);
    for (let i = 0; i < buckets.length; i += 2) this.#hist.recordValueWithCount(buckets[i]!, buckets[i + 1]!);
    this.count += exact.count;
    this.sum += exact.sum;
    if (exact.min < this.min) this.min = exact.min;
    if (exact.max > this.max) this.max = exact.max;
  }

  /** Keeps another trend's exact values (before count grows), or stops keeping any when it has none. */
  #keepAll(values: readonly number[] | null): void {
    if (values === null || this.count + values.length > EXACT_VALUES) {
      this.#exact = null;
      return;
    }
    for (let i = 0; i < values.length; i++) this.#keep(values[i]!, this.count + i);
  }

  /** Adds every value of `other` into this one (merging histograms, never percentiles). */
  merge(other: TrendHistogram): void {
    if (other.count === 0) return;
    if (other.scale !== this.scale) throw new Error('cannot merge histograms of different scales');
    this.#keepAll(other.exactValues());
    this.#hist.add(other.#hist);
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }
}
