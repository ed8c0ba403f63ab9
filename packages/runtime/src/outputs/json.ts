/**
 * `--out json=FILE`: k6's NDJSON. A `Metric` line the first time a metric gets a sample, then one
 * `Point` line per sample: {"type":"Point","data":{"time","value","tags"[,"metadata"]},"metric":name}.
 */
import type { OutputChunk, SampleOutput } from '../metrics/pipeline.ts';
import type { Metric } from '../metrics/registry.ts';
import type { Tags } from '../vu-context.ts';
import { BufferedWriter, type LineWriter } from './writer.ts';

let cachedSec = Number.NaN;
let cachedPrefix = '';

/** RFC 3339 time with microseconds, UTC ("2026-11-22T07:40:01.123456Z"); the date part is cached per second. */
export function rfc3339(time_ms: number): string {
  const sec = Math.floor(time_ms / 1000);
  if (sec !== cachedSec) {
    cachedSec = sec;
    cachedPrefix = new Date(sec * 1000).toISOString().slice(0, 19);
  }
  const micros = Math.floor((time_ms - sec * 1000) * 1000);
  return `${cachedPrefix}.${String(micros).padStart(6, '0')}Z`;
}

/** Writes k6's JSON output lines. */
export class JsonOutput implements SampleOutput {
  readonly #w: LineWriter;
  readonly #declared = new Set<Metric>();
  readonly #tagJson = new WeakMap<Tags, string>();

  readonly description: string;

  constructor(
    path: string,
    readonly thresholdsOf: (metric: string) => string[] = () => [],
    writer: LineWriter = new BufferedWriter(path),
  ) {
    this.#w = writer;
    this.description = `json (${path})`;
  }

  /** Writes another worker's lines into this file (workers/relay.ts). */
  absorb(chunk: OutputChunk): void {
    if (this.#w instanceof BufferedWriter) this.#w.absorb(chunk);
  }

  sample(
    metric: Metric,
    value: number,
    tags: Tags,
    time_ms: number,
    metadata?: Record<string, string>,
  ): void {
    if (!this.#declared.has(metric)) {
      this.#declared.add(metric);
      const subs = metric.submetrics.length ? metric.submetrics.map((s) => s.name) : null;
      // Once per file: several workers declare the same metric.
      this.#w.writeOnce(
        metric.name,
        `${JSON.stringify({
          type: 'Metric',
          data: {
            name: metric.name,
            type: metric.type,
            contains: metric.contains,
            thresholds: this.thresholdsOf(metric.name),
            submetrics: subs,
          },
          metric: metric.name,
        })}\n`,
      );
    }
    // VUs reuse one tags object per scenario/group, so its JSON is computed once.
    let tj = this.#tagJson.get(tags);
    if (tj === undefined) {
      // k6 writes untagged samples (vus, vus_max) with "tags":null.
      tj = Object.keys(tags).length === 0 ? 'null' : JSON.stringify(tags);
      this.#tagJson.set(tags, tj);
    }
    this.#w.write(
      `{"type":"Point","data":{"time":"${rfc3339(time_ms)}","value":${Number.isFinite(value) ? value : 0},"tags":${tj}${metadata === undefined ? '' : `,"metadata":${JSON.stringify(metadata)}`}},"metric":${JSON.stringify(metric.name)}}\n`,
    );
  }

  close(): Promise<void> {
    return this.#w.close();
  }
}
