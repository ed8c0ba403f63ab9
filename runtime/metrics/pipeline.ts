/**
 * The hot path of every sample: metric (and sub-metric) sinks, then outputs when any are
 * configured. Outputs buffer and write asynchronously; without outputs a sample costs a map
 * lookup and the sink updates, nothing else.
 */
import type { Tags } from '../vu-context.ts';
import type { Metric, MetricRegistry } from './registry.ts';
import type { SectionTracker } from './sections.ts';

/** A consumer of raw samples (--out json=, --out csv=). */
export interface SampleOutput {
  /** Called once per sample; must not block (buffer and write later). */
  sample(metric: Metric, value: number, tags: Tags, time_ms: number): void;
  /** Flushes and closes; called once at the end of the test. */
  close(): Promise<void>;
}

const timeOrigin = performance.timeOrigin;

/** Wall-clock now in ms since the epoch with sub-ms precision, from the monotonic clock. */
export function nowEpochMs(): number {
  return timeOrigin + performance.now();
}

/** Routes samples to sinks and outputs. */
export class SamplePipeline {
  #closed = false;
  readonly #unknown = new Set<string>();
  /** Per-scenario/group aggregates, set only for the full summary mode. */
  sections: SectionTracker | null = null;

  constructor(
    readonly registry: MetricRegistry,
    readonly outputs: SampleOutput[] = [],
  ) {}

  /** Records a sample of a known metric. */
  add(metric: Metric, value: number, tags: Tags, time_ms?: number): void {
    if (this.#closed) return;
    metric.add(value, tags);
    if (this.sections !== null) this.sections.add(metric, value, tags);
    const outs = this.outputs;
    if (outs.length === 0) return;
    const t = time_ms ?? nowEpochMs();
    for (let i = 0; i < outs.length; i++) outs[i]!.sample(metric, value, tags, t);
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

  /** Stops recording (the summary is being computed) and closes outputs. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(this.outputs.map((o) => o.close()));
  }
}
