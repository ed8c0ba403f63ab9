/**
 * `--out csv=FILE`: k6's CSV, one row per sample with k6's header; system tags get their own
 * column, other tags go to extra_tags as k=v&k2=v2; timestamps in Unix seconds.
 */
import type { OutputChunk, SampleOutput } from '../metrics/pipeline.ts';
import type { Metric } from '../metrics/registry.ts';
import type { Tags } from '../vu-context.ts';
import { BufferedWriter, type LineWriter } from './writer.ts';

/** Tag columns in k6's order, between metric_value and extra_tags. */
export const CSV_TAG_COLUMNS = [
  'check',
  'error',
  'error_code',
  'expected_response',
  'group',
  'method',
  'name',
  'proto',
  'scenario',
  'service',
  'status',
  'subproto',
  'tls_version',
  'url',
] as const;

/** k6's CSV header line. */
export const CSV_HEADER = `metric_name,timestamp,metric_value,${CSV_TAG_COLUMNS.join(',')},extra_tags,metadata`;

const COLUMN_SET = new Set<string>(CSV_TAG_COLUMNS);

function esc(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Writes k6's CSV output. */
export class CsvOutput implements SampleOutput {
  readonly #w: LineWriter;
  readonly #tagCols = new WeakMap<Tags, string>();

  readonly description: string;

  constructor(path: string, writer: LineWriter = new BufferedWriter(path)) {
    this.#w = writer;
    this.description = `csv (${path})`;
    // Once per file: every worker's relay starts with it.
    this.#w.writeOnce('header', `${CSV_HEADER}\n`);
  }

  /** Writes another worker's lines into this file (workers/relay.ts). */
  absorb(chunk: OutputChunk): void {
    if (this.#w instanceof BufferedWriter) this.#w.absorb(chunk);
  }

  #columns(tags: Tags): string {
    let c = this.#tagCols.get(tags);
    if (c !== undefined) return c;
    const extra: string[] = [];
    for (const k of Object.keys(tags)) if (!COLUMN_SET.has(k)) extra.push(`${k}=${tags[k]}`);
    c = `${CSV_TAG_COLUMNS.map((k) => esc(tags[k] ?? '')).join(',')},${esc(extra.join('&'))},`;
    this.#tagCols.set(tags, c);
    return c;
  }

  sample(
    metric: Metric,
    value: number,
    tags: Tags,
    time_ms: number,
    metadata?: Record<string, string>,
  ): void {
    // The metadata column as k6 writes it: k=v pairs joined by &.
    const md =
      metadata === undefined
        ? ''
        : esc(
            Object.keys(metadata)
              .map((k) => `${k}=${metadata[k]}`)
              .join('&'),
          );
    this.#w.write(
      `${metric.name},${Math.floor(time_ms / 1000)},${value.toFixed(6)},${this.#columns(tags)}${md}\n`,
    );
  }

  close(): Promise<void> {
    return this.#w.close();
  }
}
