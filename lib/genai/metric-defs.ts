/**
 * Every generative metric defined once: its k6 name and type, unit, formula, which way is better, what it
 * needs, the threshold probe that makes it show per level in k6's summary, and its name in genai-perf's exports
 * and the report's label. The scenario (stream-test.ts) makes its k6 metrics and probes from this table, the
 * summary (level-summary.ts) reads the names back, the exporters (genai-perf-csv.ts, -json.ts) and the chart
 * (report/genai-charts.ts) take their names, units and labels from it; docs/generative-metrics.md explains
 * the formulas for users. Pure; runs inside k6 and on Node.
 */
import { LATE_SEND_MS } from './open-loop.ts';

/** How k6 records a metric: a Trend (distribution; `time`: in ms), a Counter (its count is the sum) or a Rate. */
export type GenaiMetricType = 'trend' | 'counter' | 'rate';

/** One generative metric. */
export interface GenaiMetricDef {
  /** k6 metric name; absent for a level figure computed from others (a throughput). */
  name?: string;
  type?: GenaiMetricType;
  /** A Trend of times (k6 shows it in ms). */
  time?: boolean;
  unit: 'ms' | 'tokens' | 'requests' | 'sessions' | 'requests/sec' | 'tokens/sec';
  /** How it is computed (docs/generative-metrics.md says it for users). */
  formula: string;
  /** Which way is better; undefined for a plain count. */
  better?: 'lower' | 'higher';
  /** What it needs: the request's record, the budget's SLOs, an open loop, multi-turn sessions. */
  needs: 'record' | 'slo' | 'open loop' | 'level' | 'conversation';
  /** Threshold that makes the per-level sub-metric show in k6's summary. */
  probe?: string;
  /** Short label of the report and the summary lines. */
  label: string;
  /** genai-perf's name for it: its JSON key and CSV row label. */
  genaiPerf?: { key: string; csv: string };
}

/** The generative metrics, by the key the code uses. */
export const GENAI_METRIC_DEFS = {
  ttft: {
    name: 'genai_ttft',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: "first counted chunk's arrival - send",
    better: 'lower',
    needs: 'record',
    probe: 'max>=0',
    label: 'TTFT',
    genaiPerf: { key: 'time_to_first_token', csv: 'Time To First Token' },
  },
  itl: {
    name: 'genai_itl',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: '(latency - TTFT) / (OSL - 1), only requests with OSL > 1',
    better: 'lower',
    needs: 'record',
    probe: 'max>=0',
    label: 'ITL',
    genaiPerf: { key: 'inter_token_latency', csv: 'Inter Token Latency' },
  },
  latency: {
    name: 'genai_latency',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: "last counted chunk's arrival - send",
    better: 'lower',
    needs: 'record',
    probe: 'max>=0',
    label: 'latency',
    genaiPerf: { key: 'request_latency', csv: 'Request Latency' },
  },
  chunkGap: {
    name: 'genai_chunk_gap',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: "arrival gaps between consecutive counted chunks, pooled over requests (vLLM's ITL)",
    better: 'lower',
    needs: 'record',
    probe: 'max>=0',
    label: 'chunk gap',
  },
  osl: {
    name: 'genai_osl',
    type: 'trend',
    unit: 'tokens',
    formula:
      "the server's output token count where it gives one, else the chunks' tokens; successful requests",
    needs: 'record',
    probe: 'max>=0',
    label: 'OSL',
    genaiPerf: { key: 'output_sequence_length', csv: 'Output Sequence Length' },
  },
  isl: {
    name: 'genai_isl',
    type: 'trend',
    unit: 'tokens',
    formula: "the request's input tokens; successful requests",
    needs: 'record',
    probe: 'max>=0',
    label: 'ISL',
    genaiPerf: { key: 'input_sequence_length', csv: 'Input Sequence Length' },
  },
  outputTokens: {
    name: 'genai_output_tokens',
    type: 'counter',
    unit: 'tokens',
    formula: 'sum of OSL over successful requests',
    needs: 'record',
    probe: 'count>=0',
    label: 'output tokens',
  },
  requestedOsl: {
    name: 'genai_requested_osl',
    type: 'trend',
    unit: 'tokens',
    formula: 'output tokens each successful request asked for, to set against OSL',
    needs: 'record',
    probe: 'max>=0',
    label: 'requested OSL',
  },
  oslMismatch: {
    name: 'genai_osl_mismatch',
    type: 'counter',
    unit: 'requests',
    formula: 'successful requests whose OSL differs from the one asked for',
    better: 'lower',
    needs: 'record',
    probe: 'count>=0',
    label: 'OSL mismatches',
  },
  failed: {
    name: 'genai_failed',
    type: 'rate',
    unit: 'requests',
    formula: 'requests with an error, or no token received (true = failed)',
    better: 'lower',
    needs: 'record',
    probe: 'rate>=0',
    label: 'errors',
  },
  cancelled: {
    name: 'genai_cancelled',
    type: 'counter',
    unit: 'requests',
    formula:
      'requests cancelled on the wire by REQUEST_CANCELLATION_RATE before they ended; in no other figure (not failed, not good)',
    needs: 'record',
    probe: 'count>=0',
    label: 'cancelled',
  },
  good: {
    name: 'genai_good',
    type: 'rate',
    unit: 'requests',
    formula:
      'requests meeting every SLO of the budget: TTFT, ITL, latency (true = good; failed ones are not)',
    better: 'higher',
    needs: 'slo',
    probe: 'rate>=0',
    label: 'goodput',
  },
  sendLag: {
    name: 'genai_send_lag',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: 'send time - scheduled send time per request (how far the generator lagged its schedule)',
    better: 'lower',
    needs: 'open loop',
    probe: 'max>=0',
    label: 'send lag',
  },
  lateSends: {
    name: 'genai_late_sends',
    type: 'counter',
    unit: 'requests',
    formula: `sends that left more than ${LATE_SEND_MS} ms after their scheduled time (no VU was free)`,
    better: 'lower',
    needs: 'open loop',
    probe: 'count>=0',
    label: 'late sends',
  },
  sessionDuration: {
    name: 'genai_session_duration',
    type: 'trend',
    time: true,
    unit: 'ms',
    formula: "first turn's send to the last turn's stream end, think times included; completed sessions",
    better: 'lower',
    needs: 'conversation',
    probe: 'max>=0',
    label: 'session duration',
  },
  sessions: {
    name: 'genai_sessions',
    type: 'counter',
    unit: 'sessions',
    formula: 'sessions whose every turn succeeded',
    needs: 'conversation',
    probe: 'count>=0',
    label: 'sessions',
  },
  sessionsFailed: {
    name: 'genai_sessions_failed',
    type: 'counter',
    unit: 'sessions',
    formula:
      'sessions stopped at a failed turn (the later turns are not sent: their history would lack the answer)',
    better: 'lower',
    needs: 'conversation',
    probe: 'count>=0',
    label: 'failed sessions',
  },
  requestThroughput: {
    unit: 'requests/sec',
    formula: 'successful requests / the level window',
    better: 'higher',
    needs: 'level',
    label: 'req/s',
    genaiPerf: { key: 'request_throughput', csv: 'Request Throughput' },
  },
  outputTokenThroughput: {
    unit: 'tokens/sec',
    formula: 'sum of OSL over successful requests / the level window',
    better: 'higher',
    needs: 'level',
    label: 'Output tokens/s',
    genaiPerf: { key: 'output_token_throughput', csv: 'Output Token Throughput' },
  },
  goodput: {
    unit: 'requests/sec',
    formula: 'requests meeting every SLO / the level window',
    better: 'higher',
    needs: 'slo',
    label: 'goodput',
    genaiPerf: { key: 'request_goodput', csv: 'Request Goodput' },
  },
} as const satisfies Record<string, GenaiMetricDef>;

/** A key of the table. */
export type GenaiMetricKey = keyof typeof GENAI_METRIC_DEFS;

/** The keys of the metrics k6 records (those with a name), in the table's order. */
export type RecordedGenaiMetricKey = {
  [K in GenaiMetricKey]: (typeof GENAI_METRIC_DEFS)[K] extends { name: string } ? K : never;
}[GenaiMetricKey];

/** The recorded metrics' keys, in the table's order. */
export const RECORDED_GENAI_METRICS = (Object.keys(GENAI_METRIC_DEFS) as GenaiMetricKey[]).filter(
  (key): key is RecordedGenaiMetricKey => 'name' in GENAI_METRIC_DEFS[key],
);

/** A label with its unit where it is a time, as a chart axis shows it: "TTFT (ms)". */
export function labelWithUnit(def: GenaiMetricDef): string {
  return def.unit === 'ms' ? `${def.label} (ms)` : def.label;
}

/** k6's word for a metric's type, with its unit: "Trend, ms". */
function typeAndUnit(def: GenaiMetricDef): string {
  const type = def.type === 'counter' ? 'Counter' : def.type === 'rate' ? 'Rate' : 'Trend';
  return def.type === 'rate' ? type : `${type}, ${def.unit}`;
}

/** The docs table of the k6 metrics (docs/generative-metrics.md holds it; a test compares). */
export function k6MetricsTable(): string {
  const rows = RECORDED_GENAI_METRICS.map((key) => {
    const def: GenaiMetricDef = GENAI_METRIC_DEFS[key];
    const when =
      def.needs === 'open loop' ? 'open loop: ' : def.needs === 'conversation' ? 'multi-turn: ' : '';
    return `| \`${def.name}\` | ${typeAndUnit(def)} | ${def.better ?? ''} | ${when}${def.formula} |`;
  });
  return ['| k6 metric | type, unit | better | what |', '|---|---|---|---|', ...rows].join('\n');
}
