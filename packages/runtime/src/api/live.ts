/**
 * The worker's side of k6's REST API: the execution status k6 reports, the start gate of `--paused`
 * (k6 waits after initializing the VUs, before setup()), and snapshots of the live status and metrics.
 */
import { thresholdPasses } from '@k6-triton/lib/load/threshold-expr.ts';
import type { Group } from '../groups.ts';
import type { MetricRegistry, Sink } from '../metrics/registry.ts';
import { CounterSink, GaugeSink, RateSink } from '../metrics/registry.ts';
import { trendStat } from '../metrics/values.ts';
import type { ScenarioConfig } from '../options/scenarios.ts';
import { EXIT, type TestRun } from '../run-state.ts';
import { aggregate, type ThresholdSet } from '../thresholds.ts';
import { EXEC_STATUS, type LiveGroup, type LiveMetric, type LiveSnapshot } from './types.ts';

/** How often k6's metrics engine evaluates thresholds during a run: what `tainted` shows is the last verdict. */
const THRESHOLDS_RATE_MS = 2000;

/** The trend statistics k6's REST API gives, whatever summaryTrendStats says (k6's TrendSink.Format). */
const API_TREND_STATS = ['avg', 'max', 'med', 'min', 'p(90)', 'p(95)'];

/** One run's state as the REST API sees it; the engine moves `status` through k6's execution statuses. */
export class LiveRun {
  status: number = EXEC_STATUS.INIT_VUS;
  /** setup()'s result as JSON, once it returned. */
  setupJson: string | null = null;
  #paused: boolean;
  #started = false;
  #end_ms: number | null = null;
  /** A stop asked for after the end: shown, but the run's outcome stays (k6's run context is done). */
  #stoppedAfterEnd = false;
  #resume: (() => void) | null = null;
  /** Several workers: the first one's metrics hold every worker's final ones (run-phases' teardown). */
  peersMerged = false;
  /** The last verdict of each threshold key (true: crossed); a key is absent until its sink has samples. */
  readonly #tainted = new Map<string, boolean>();
  readonly #tick: NodeJS.Timeout | null;

  constructor(
    readonly run: TestRun,
    readonly thresholds: readonly ThresholdSet[],
    readonly scenarios: readonly ScenarioConfig[],
    paused: boolean,
  ) {
    this.#paused = paused;
    this.#tick =
      thresholds.length > 0 ? setInterval(() => this.#evaluate(), THRESHOLDS_RATE_MS).unref() : null;
  }

  /** The run is over: no more threshold ticks. */
  close(): void {
    if (this.#tick) clearInterval(this.#tick);
  }

  /** k6's periodic evaluation: thresholds of metrics with samples, at the current test run duration. */
  #evaluate(): void {
    const elapsed_ms = this.elapsed_ms;
    for (const set of this.thresholds) {
      const v = crossed(set, elapsed_ms);
      if (v !== null) this.#tainted.set(set.key, v);
    }
  }

  /** Resolves when the run may start: at once, or (paused) on resume or an abort. */
  startGate(): Promise<void> {
    if (!this.#paused) return Promise.resolve();
    this.status = EXEC_STATUS.PAUSED_BEFORE_RUN;
    return new Promise<void>((resolve) => {
      this.#resume = resolve;
      this.run.onAbort(resolve);
    });
  }

  /** The test starts (setup, then the scenarios). */
  markStarted(): void {
    this.#started = true;
  }

  /** The test is over (teardown done): k6's ended, interrupted or marked-as-failed. */
  markEnded(): void {
    this.#end_ms ??= performance.now();
    this.status = this.run.abortRequest
      ? EXEC_STATUS.INTERRUPTED
      : this.run.markedFailed
        ? EXEC_STATUS.MARKED_AS_FAILED
        : EXEC_STATUS.ENDED;
  }

  /** PATCH /v1/status `stopped: true`: the test stops as k6 stops it (exit code 103). */
  stop(): void {
    if (this.#end_ms !== null) this.#stoppedAfterEnd = true;
    else this.run.requestAbort(EXIT.STOPPED_FROM_REST_API, 'test run stopped from REST API');
  }

  /**
   * Pauses or resumes as k6's scheduler does: a run started with --paused can be resumed (not paused
   * again); once started, only k6's externally-controlled executor (absent in k6 v2) could pause, so the
   * first scenario by (startTime, name) refuses. Returns k6's error, or null.
   */
  setPaused(pause: boolean): string | null {
    if (!this.#started && this.#paused) {
      if (pause) return 'execution is already paused';
      this.#paused = false;
      this.#resume?.();
      return null;
    }
    const first = [...this.scenarios].sort(
      (a, b) => a.startTime_ms - b.startTime_ms || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    )[0];
    if (!first) return null;
    return `${first.executor} executor '${first.name}' doesn't support pause and resume operations after its start`;
  }

  /** The live status and metrics, as k6's /v1/status and /v1/metrics give them. */
  snapshot(): LiveSnapshot {
    const run = this.run;
    const metrics = liveMetrics(
      run.registry,
      new Set(this.thresholds.map((t) => t.key)),
      (id) => this.#tainted.get(id) ?? null,
      this.elapsed_ms,
    );
    return {
      status: {
        status: this.status,
        paused: this.#paused,
        vus: run.vusActive,
        'vus-max': run.vusInitialized,
        stopped: run.abortRequest !== null || this.#stoppedAfterEnd,
        running: this.#started && this.#end_ms === null,
        tainted: [...this.#tainted.values()].some(Boolean),
      },
      metrics,
      groups: flattenGroups(run.rootGroup),
      setupJson: this.setupJson,
    };
  }

  /** k6's current test run duration: from the start, frozen at the end. */
  get elapsed_ms(): number {
    if (!this.#started || this.run.start_ms === 0) return 0;
    return (this.#end_ms ?? performance.now()) - this.run.start_ms;
  }
}

/**
 * /v1/metrics' entries of a registry: observed metrics, those with thresholds (`thresholdKeys`) and their
 * threshold sub-metrics, `taintedOf` giving each one's last verdict.
 */
export function liveMetrics(
  registry: MetricRegistry,
  thresholdKeys: ReadonlySet<string>,
  taintedOf: (id: string) => boolean | null,
  elapsed_ms: number,
): LiveMetric[] {
  const metrics: LiveMetric[] = [];
  const entry = (id: string, type: LiveMetric['type'], contains: LiveMetric['contains'], sink: Sink) =>
    metrics.push({ id, type, contains, tainted: taintedOf(id), sample: sample(sink, elapsed_ms) });
  for (const m of registry.all()) {
    const subs = m.submetrics.filter((s) => thresholdKeys.has(s.name));
    // k6 marks a metric observed when it or one of its sub-metrics has thresholds.
    if (m.observed || thresholdKeys.has(m.name) || subs.length > 0) entry(m.name, m.type, m.contains, m.sink);
    for (const s of subs) entry(s.name, m.type, m.contains, s.sink);
  }
  return metrics;
}

/** Whether a threshold of `set` is crossed now; null while its sink has no sample (k6 skips it then). */
export function crossed(set: ThresholdSet, elapsed_ms: number): boolean | null {
  if (isEmpty(set.sink)) return null;
  return set.thresholds.some((t) => !thresholdPasses(t, aggregate(set.sink, t.aggregation, elapsed_ms)));
}

/** Whether a sink has no sample yet (k6 skips those thresholds; a counter's zero sum stands for none). */
function isEmpty(sink: Sink): boolean {
  if (sink instanceof CounterSink) return sink.sum === 0;
  if (sink instanceof GaugeSink) return !Number.isFinite(sink.min);
  if (sink instanceof RateSink) return sink.total === 0;
  return sink.count === 0;
}

/** A sink as k6's REST API shows it: counter {count, rate}, gauge {value}, rate {rate}, trend stats. */
function sample(sink: Sink, elapsed_ms: number): Record<string, number> {
  if (sink instanceof CounterSink)
    return { count: sink.sum, rate: elapsed_ms > 0 ? sink.sum / (elapsed_ms / 1000) : 0 };
  if (sink instanceof GaugeSink) return { value: sink.value };
  if (sink instanceof RateSink) return { rate: sink.total ? sink.passes / sink.total : 0 };
  return Object.fromEntries(API_TREND_STATS.map((s) => [s, trendStat(sink, s)]));
}

/** The group tree, root first, then each sub-group's subtree (k6's FlattenGroup order). */
export function flattenGroups(g: Group): LiveGroup[] {
  const checks = [...g.checks.values()].map((c) => ({
    id: c.id,
    path: c.path,
    name: c.name,
    passes: c.passes,
    fails: c.fails,
  }));
  const subs = [...g.groups.values()];
  return [
    {
      id: g.id,
      path: g.path,
      name: g.name,
      checks: checks.length > 0 ? checks : null,
      groupIds: subs.map((s) => s.id),
      parentId: g.parent?.id ?? null,
    },
    ...subs.flatMap(flattenGroups),
  ];
}
