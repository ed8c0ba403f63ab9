/**
 * A run on several workers has one remote-write series store, on the first worker: the others send it
 * their samples as lines through the output relay (workers/link.ts), one sample a line, and the store
 * aggregates them with its own, so each series is pushed by one writer with the whole run's aggregate.
 */
import type { OutputChunk, SampleOutput } from '../../metrics/pipeline.ts';
import { type Metric, MetricRegistry } from '../../metrics/registry.ts';
import type { Tags } from '../../vu-context.ts';
import type { LineWriter } from '../writer.ts';

/** Another worker's remote-write output: its samples go to the first worker's store. */
export class SampleRelayOutput implements SampleOutput {
  /** Each tag object's JSON, made once (samples share tag objects). */
  readonly #tagText = new WeakMap<Tags, string>();

  constructor(readonly writer: LineWriter) {}

  sample(metric: Metric, value: number, tags: Tags, time_ms: number): void {
    let text = this.#tagText.get(tags);
    if (text === undefined) {
      text = JSON.stringify(tags);
      this.#tagText.set(tags, text);
    }
    this.writer.write(`${metric.name}\t${metric.type}\t${metric.contains}\t${value}\t${time_ms}\t${text}`);
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}

/** The first worker's reading of relayed samples: each line back to (metric, value, tags, time). */
export class SampleIntake {
  /** Metrics by name, for the store's per-metric aggregates (its series keys are names and tags). */
  readonly #metrics = new MetricRegistry();
  /** One tag object per distinct tag set, as the store finds series by tag object first. */
  readonly #tags = new Map<string, Tags>();

  /** Calls `add` for every sample line of `chunk`. */
  read(chunk: OutputChunk, add: (metric: Metric, value: number, tags: Tags, time_ms: number) => void): void {
    for (const part of chunk) {
      if (typeof part !== 'string') continue;
      const [name, type, contains, value, time, text] = part.split('\t', 6) as [
        string,
        Metric['type'],
        Metric['contains'],
        string,
        string,
        string,
      ];
      let tags = this.#tags.get(text);
      if (tags === undefined) {
        tags = JSON.parse(text) as Tags;
        this.#tags.set(text, tags);
      }
      const metric = this.#metrics.define(name, type, contains);
      add(metric, Number(value), tags, Number(time));
    }
  }
}
