/**
 * Reads k6's `--out json` files (NDJSON, `.gz` too; real k6 and the Node runtime write the same lines)
 * into one set of per-sub-metric aggregates: the samples of all runners go into the same HDR histograms
 * and sums, so a merged percentile is the percentile of the pooled samples (within the histogram's 3
 * significant digits), never an average of the runners' percentiles. Trends named in `exactTrends` (a generative
 * run's per-request figures) keep every value as well, for percentiles without the histogram's rounding.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import {
  RUNTIME_TAG,
  STATS_SUFFIX,
  subMetricKey,
  subWindowKey,
  WINDOW_LENGTH_METRIC,
  WINDOW_TAG,
} from '../../lib/load/names.ts';
import type { MetricType } from '../../lib/load/threshold-expr.ts';
import { GENAI_RECORD } from '../../lib/genai/names.ts';
import type { RecordPoint } from '../core/genai-records.ts';
import { TrendHistogram } from '@k6-triton/runtime';

/** One sub-metric's samples, pooled over every runner. */
export type Aggregate =
  | { type: 'trend'; hist: TrendHistogram; exact?: ExactValues }
  | { type: 'counter'; sum: number; samples: number }
  | { type: 'rate'; passes: number; total: number }
  | { type: 'gauge'; value: number };

/**
 * Every pooled value of a trend whose percentiles must be exact (a generative run's per-request TTFT, ITL, ...:
 * one value a request, few enough to keep), sorted once before its first percentile.
 */
export interface ExactValues {
  values: number[];
  sorted: boolean;
}

/** What to read beside the aggregates. */
export interface ReadOptions {
  /** Trend metrics whose every value is kept for exact percentiles (beside their histogram). */
  exactTrends?: ReadonlySet<string>;
  /** Called with each generative request record (the genai_record points' metadata) and its level. */
  onRecord?: (line: RecordPoint) => void;
}

/** Sub-metric key (`http_req_duration{scenario:c8}`) → pooled aggregate. */
export type Aggregates = Map<string, Aggregate>;

/** What merged inputs held, for the console and the tests. */
export interface ReadStats {
  files: number;
  points: number;
}

/** What the runners recorded of their run (the stats probes' window-length points): never a default. */
export interface Recorded {
  /** Level name (c4, r100) → its window length in seconds. */
  windows: Map<string, number>;
  /** The runtimes that measured (`k6`, `node`). */
  runtimes: Set<string>;
}

/** Built-in metric types, for files whose `Metric` lines were cut off (k6 writes one before a metric's first point). */
const KNOWN_TYPES: Record<string, MetricType> = {
  http_req_failed: 'rate',
  infer_errors: 'rate',
  checks: 'rate',
  vus: 'gauge',
  vus_max: 'gauge',
  k6_triton_window_start_ms: 'gauge',
  [WINDOW_LENGTH_METRIC]: 'gauge',
};

function typeOf(metric: string, declared: Map<string, MetricType>): MetricType {
  const type = declared.get(metric) ?? KNOWN_TYPES[metric];
  if (type) return type;
  if (metric.endsWith('_duration') || metric.startsWith('http_req_')) return 'trend';
  return 'counter';
}

function fresh(type: MetricType, exact: boolean): Aggregate {
  switch (type) {
    case 'trend':
      return exact
        ? { type, hist: new TrendHistogram(), exact: { values: [], sorted: true } }
        : { type, hist: new TrendHistogram() };
    case 'rate':
      return { type, passes: 0, total: 0 };
    case 'gauge':
      return { type, value: Number.NEGATIVE_INFINITY };
    default:
      return { type: 'counter', sum: 0, samples: 0 };
  }
}

function add(aggregates: Aggregates, key: string, type: MetricType, value: number, exact: boolean): void {
  let agg = aggregates.get(key);
  if (!agg) {
    agg = fresh(type, exact);
    aggregates.set(key, agg);
  }
  if (agg.type === 'trend') {
    agg.hist.add(value);
    if (agg.exact) {
      agg.exact.values.push(value);
      agg.exact.sorted = false;
    }
  } else if (agg.type === 'rate') {
    agg.total++;
    if (value !== 0) agg.passes++;
  } else if (agg.type === 'gauge') {
    // One runner sets the window-start gauge (k6 gives a 1-VU probe to one segment); the largest wins.
    agg.value = Math.max(agg.value, value);
  } else {
    agg.sum += value;
    agg.samples++;
  }
}

interface Line {
  type?: string;
  metric?: string;
  data?: {
    type?: string;
    name?: string;
    value?: number;
    tags?: Record<string, string> | null;
    metadata?: Record<string, string>;
  };
}

/** Adds one file's Point lines to `aggregates`; returns the points read. */
async function readFile(
  path: string,
  aggregates: Aggregates,
  declared: Map<string, MetricType>,
  recorded: Recorded,
  options: ReadOptions,
): Promise<number> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  let points = 0;
  let lineNo = 0;
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNo++;
    if (text.trim() === '') continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      throw new Error(`${path}:${lineNo}: not a JSON line; expected k6's --out json output (NDJSON)`);
    }
    if (line.type === 'Metric' && line.data?.name && line.data.type) {
      declared.set(line.data.name, line.data.type as MetricType);
      continue;
    }
    if (line.type !== 'Point' || !line.metric || typeof line.data?.value !== 'number') continue;
    const scenario = line.data.tags?.scenario;
    // Only per-scenario sub-metrics feed levels and budgets; untagged samples (setup, teardown) do not.
    if (!scenario) continue;
    if (line.metric === WINDOW_LENGTH_METRIC && scenario.endsWith(STATS_SUFFIX)) {
      const level = scenario.slice(0, -STATS_SUFFIX.length);
      const before = recorded.windows.get(level);
      if (before !== undefined && before !== line.data.value) {
        throw new Error(
          `merge: ${path}:${lineNo}: level ${level} has a ${line.data.value} s window, another file ${before} s; merge runners of one run`,
        );
      }
      recorded.windows.set(level, line.data.value);
      const runtime = line.data.tags?.[RUNTIME_TAG];
      if (runtime) recorded.runtimes.add(runtime);
    }
    if (line.metric === GENAI_RECORD.metric && line.data.metadata) options.onRecord?.(line as RecordPoint);
    const type = typeOf(line.metric, declared);
    const exact = options.exactTrends?.has(line.metric) ?? false;
    add(aggregates, subMetricKey(line.metric, scenario), type, line.data.value, exact);
    const window = line.data.tags?.[WINDOW_TAG];
    if (window !== undefined && /^\d+$/.test(window)) {
      add(aggregates, subWindowKey(line.metric, scenario, Number(window)), type, line.data.value, exact);
    }
    points++;
  }
  return points;
}

/** Pools the samples of every file; a missing or malformed file is a one-line error naming it. */
export async function readSamples(
  paths: readonly string[],
  options: ReadOptions = {},
): Promise<{ aggregates: Aggregates; stats: ReadStats; recorded: Recorded }> {
  if (paths.length === 0) throw new Error("merge: no files; give each runner's --out json file");
  const aggregates: Aggregates = new Map();
  const declared = new Map<string, MetricType>();
  const recorded: Recorded = { windows: new Map(), runtimes: new Set() };
  let points = 0;
  for (const path of paths) {
    if (!existsSync(path))
      throw new Error(`merge: ${path} does not exist; give each runner's --out json file`);
    points += await readFile(path, aggregates, declared, recorded, options);
  }
  if (points === 0) {
    throw new Error(
      `merge: no samples tagged with a scenario in ${paths.join(', ')}; were they written with --out json?`,
    );
  }
  return { aggregates, stats: { files: paths.length, points }, recorded };
}
