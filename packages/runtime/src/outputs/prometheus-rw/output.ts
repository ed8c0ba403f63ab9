/**
 * `--out experimental-prometheus-rw`: samples aggregate per series as they come (series.ts); every push
 * interval the series with news go to the remote-write endpoint, one push at a time; at the end a last
 * push, then (K6_PROMETHEUS_RW_STALE_MARKERS) every series marked stale.
 */
import { logLine } from '../../log.ts';
import type { OutputChunk, SampleOutput } from '../../metrics/pipeline.ts';
import { nowEpochMs } from '../../metrics/pipeline.ts';
import type { Metric } from '../../metrics/registry.ts';
import type { Tags } from '../../vu-context.ts';
import type { RwConfig } from './config.ts';
import { createPusher } from './push.ts';
import { SampleIntake } from './relay.ts';
import { type PromSeries, SeriesStore } from './series.ts';
import { encodeWriteRequest } from './wire.ts';

const FIELDS = { output: 'Prometheus remote write' };

/** Writes samples to a Prometheus remote-write endpoint as k6's experimental-prometheus-rw output does. */
export class PrometheusRwOutput implements SampleOutput {
  readonly description: string;
  readonly #store: SeriesStore;
  readonly #push: (body: Uint8Array) => Promise<void>;
  readonly #timer: NodeJS.Timeout;
  /** The push in flight; the next waits for it, so series reach the endpoint in time order. */
  #chain: Promise<void> = Promise.resolve();
  /** Other workers' samples (relay.ts), made on the first chunk. */
  #intake: SampleIntake | null = null;

  constructor(
    readonly config: RwConfig,
    push: (body: Uint8Array) => Promise<void> = createPusher(config),
  ) {
    this.description = `Prometheus remote write (${config.url})`;
    this.#store = new SeriesStore(config.trendStats);
    this.#push = push;
    this.#timer = setInterval(() => this.#flush(), config.pushInterval_ms);
    this.#timer.unref();
  }

  sample(metric: Metric, value: number, tags: Tags, time_ms: number): void {
    this.#store.add(metric, value, tags, time_ms);
  }

  /** Aggregates another worker's samples into this store (a run on several workers, relay.ts). */
  absorb(chunk: OutputChunk): void {
    this.#intake ??= new SampleIntake();
    this.#intake.read(chunk, (m, v, tags, t) => this.#store.add(m, v, tags, t));
  }

  /** Queues a push of the series with news; failures are logged as k6 logs them, and the run goes on. */
  #flush(
    series: PromSeries[] = this.#store.take(),
    what = 'Failed to send the time series data to the endpoint',
  ): Promise<void> {
    if (series.length === 0) return this.#chain;
    const body = encodeWriteRequest(series);
    this.#chain = this.#chain.then(() =>
      this.#push(body).catch((err: Error) => logLine('ERRO', what, { error: err.message, ...FIELDS })),
    );
    return this.#chain;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#flush();
    if (this.config.staleMarkers) {
      await this.#flush(this.#store.staleMarkers(nowEpochMs()), 'marking time series as stale failed');
    }
  }
}
