/**
 * The hot path of every sample: metric (and sub-metric) sinks, then outputs when any are
 * configured. Outputs buffer and write asynchronously; without outputs a sample costs a map
 * lookup and the sink updates, nothing else.
 */
import type { Sample, Tags } from '../vu-context.ts';
import type { Metric, MetricRegistry } from './registry.ts';
import type { SectionTracker } from './sections.ts';

/** A consumer of raw samples (--out json=, --out csv=). */
export interface SampleOutput {
  /** How k6's banner names it: `json (out.json)`, `Prometheus remote write (URL)`. */
  readonly description?: string;
  /** Called once per sample; must not block (buffer and write later). `metadata` only when the sample has some. */
  sample(metric: Metric, value: number, tags: Tags, time_ms: number, metadata?: Record<string, string>): void;
  /** Flushes and closes; called once at the end of the test. */
  close(): Promise<void>;
  /** Takes another worker's lines for the same file (file outputs of the first worker). */
  absorb?(chunk: OutputChunk): void;
}

/**
 * An output's buffered text in order; a `[key, line]` part is a line written once per file (a JSON
 * output's metric declaration, the CSV header), however many workers' chunks carry it.
 */
export type OutputChunk = (string | [key: string, line: string])[];

const timeOrigin = performance.timeOrigin;

/** Wall-clock now in ms since the epoch with sub-ms precision, from the monotonic clock. */
export function nowEpochMs(): number {
  return timeOrigin + performance.now();
}

/** Routes samples to sinks and outputs. */
export class SamplePipeline {
  #closed = false;
  readonly #unknown = new Set<string>();
  /** Sample makers and their inputs waiting for the event loop's check phase (see defer). */
  #builds: ((input: never) => Sample[])[] = [];
  #inputs: unknown[] = [];
  /** When each was deferred, kept only when outputs need sample times. */
  #times: number[] = [];
  #scheduled = false;
  /** Per-scenario/group aggregates, set only for the full summary mode. */
  sections: SectionTracker | null = null;
  /** Leaves off the system tags options.systemTags does not keep (system-tags.ts); null keeps all. */
  tagFilter: ((tags: Tags) => Tags) | null = null;

  constructor(
    readonly registry: MetricRegistry,
    readonly outputs: SampleOutput[] = [],
  ) {}

  /** Records a sample of a known metric; `metadata` (exec.vu.metrics.metadata) goes to the outputs only. */
  add(metric: Metric, value: number, tags: Tags, time_ms?: number, metadata?: Record<string, string>): void {
    if (this.#closed) return;
    if (this.tagFilter !== null) tags = this.tagFilter(tags);
    metric.add(value, tags);
    if (this.sections !== null) this.sections.add(metric, value, tags);
    const outs = this.outputs;
    if (outs.length === 0) return;
    const t = time_ms ?? nowEpochMs();
    for (let i = 0; i < outs.length; i++) outs[i]!.sample(metric, value, tags, t, metadata);
  }

  /** Records a sample by metric name (protocol modules); unknown names warn once and are dropped. */
  addByName(name: string, value: number, tags: Tags, time_ms?: number): void {
    const m = this.registry.get(name);
    if (m) {
      this.add(m, value, tags, time_ms);
      return;
    }
    if (!this.#unknown.has(name)) {
      this.#unknown.add(name);
      process.stderr.write(`WARN: sample for unknown metric "${name}" dropped\n`);
    }
  }

  /**
   * Records `build(input)`'s samples once the current turn of the event loop is done. The VU that
   * deferred them goes on at once, so at low concurrency its next request is on the wire before its
   * last one's samples are even made, as k6 hands samples to its metrics engine over a channel.
   */
  defer<T>(build: (input: T) => Sample[], input: T): void {
    if (this.#closed) return;
    this.#builds.push(build as (input: never) => Sample[]);
    this.#inputs.push(input);
    if (this.outputs.length > 0) this.#times.push(nowEpochMs());
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Records every deferred sample now (the summary, thresholds and tests read after this). */
  readonly flush = (): void => {
    this.#scheduled = false;
    const builds = this.#builds;
    if (builds.length === 0) return;
    const inputs = this.#inputs;
    const times = this.#times;
    this.#builds = [];
    this.#inputs = [];
    this.#times = [];
    for (let i = 0; i < builds.length; i++) {
      const samples = (builds[i] as (input: unknown) => Sample[])(inputs[i]);
      for (let j = 0; j < samples.length; j++) {
        const s = samples[j]!;
        this.addByName(s.metric, s.value, s.tags, s.time ?? times[i]);
      }
    }
  };

  /** Stops recording (the summary is being computed) and closes outputs. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    await Promise.all(this.outputs.map((o) => o.close()));
  }
}
