/**
 * The end-of-test summary in k6's text layout: compact (default), full (every metric) and
 * legacy (k6's pre-1.0 layout). A pure function of the summary data, as k6 renders it.
 */
import { BUILTIN_METRICS } from '../metrics/registry.ts';
import type { SectionCheck, SummaryData, SummaryGroup, SummaryMetric, SummarySection } from './data.ts';
import { formatBytes, formatNumber, formatPercent, formatValue, strip } from './format.ts';

export type SummaryMode = 'compact' | 'full' | 'legacy';

const CATEGORIES: [string, (n: string) => boolean][] = [
  ['GRPC', (n) => n.startsWith('grpc_')],
  ['HTTP', (n) => n.startsWith('http_')],
  [
    'EXECUTION',
    (n) =>
      ['iteration_duration', 'iterations', 'vus', 'vus_max', 'dropped_iterations', 'group_duration'].includes(
        n,
      ),
  ],
  ['NETWORK', (n) => n === 'data_received' || n === 'data_sent'],
  ['WEBSOCKET', (n) => n.startsWith('ws_')],
];

/** Built-in metrics compact mode shows (full shows all; k6 hides no ws_ metric in either). */
const COMPACT = new Set([
  'http_req_duration',
  'http_req_failed',
  'http_reqs',
  'grpc_req_duration',
  'grpc_streams',
  'grpc_streams_msgs_sent',
  'grpc_streams_msgs_received',
  'iteration_duration',
  'iterations',
  'vus',
  'vus_max',
  'dropped_iterations',
  'data_received',
  'data_sent',
  'ws_connecting',
  'ws_msgs_received',
  'ws_msgs_sent',
  'ws_ping',
  'ws_session_duration',
  'ws_sessions',
]);

interface Line {
  name: string;
  indent: number;
  metric: SummaryMetric;
}

function subName(key: string): string {
  const inner = key.slice(key.indexOf('{') + 1, -1);
  return `{ ${inner.split(',').join(', ')} }`;
}

function cols(m: SummaryMetric, durationS: number, unit: string | null): string[] {
  const v = m.values;
  switch (m.type) {
    case 'counter': {
      const perS = durationS > 0 ? (v['count'] ?? 0) / durationS : 0;
      return m.contains === 'data'
        ? [formatBytes(v['count'] ?? 0), `${formatBytes(perS)}/s`]
        : [formatValue(v['count'] ?? 0, m.contains, unit), `${strip(v['rate'] ?? 0, 6)}/s`];
    }
    case 'gauge':
      return [
        formatValue(v['value'] ?? 0, m.contains, unit),
        `min=${formatValue(v['min'] ?? 0, m.contains, unit)}`,
        `max=${formatValue(v['max'] ?? 0, m.contains, unit)}`,
      ];
    case 'rate':
      return [
        formatPercent(v['rate'] ?? 0),
        `${v['passes'] ?? 0} out of ${(v['passes'] ?? 0) + (v['fails'] ?? 0)}`,
      ];
    case 'trend':
      return Object.entries(v).map(
        ([k, x]) => `${k}=${k === 'count' ? formatNumber(x) : formatValue(x, m.contains, unit)}`,
      );
  }
}

function pad(s: string, w: number): string {
  return s.length >= w ? s : s + ' '.repeat(w - s.length);
}

/** How values print: the layout, the test duration (rates per second) and a fixed time unit, if any. */
interface Fmt {
  mode: SummaryMode;
  durationS: number;
  unit: string | null;
}

/** Renders metric lines with k6's dotted names and per-section aligned columns. */
function renderLines(lines: Line[], indent: string, nameWidth: number, fmt: Fmt): string[] {
  const rendered = lines.map((l) => cols(l.metric, fmt.durationS, fmt.unit));
  const trendW: number[] = [];
  const plainW: number[] = [];
  lines.forEach((l, i) => {
    const w = l.metric.type === 'trend' ? trendW : plainW;
    rendered[i]!.forEach((c, j) => {
      w[j] = Math.max(w[j] ?? 0, c.length);
    });
  });
  return lines.map((l, i) => {
    const name = ' '.repeat(l.indent) + l.name;
    const dots = name + '.'.repeat(Math.max(3, nameWidth - name.length));
    const w = l.metric.type === 'trend' ? trendW : plainW;
    const c = rendered[i]!;
    const body = c.map((x, j) => (j === c.length - 1 ? x : pad(x, (w[j] ?? 0) + 1))).join('');
    return `${indent}${dots}: ${body}`;
  });
}

function thresholdValue(m: SummaryMetric, agg: string, unit: string | null): string {
  const v = m.values;
  if (m.type === 'rate') return formatPercent(v['rate'] ?? 0);
  if (m.type === 'counter')
    return agg === 'rate' ? `${strip(v['rate'] ?? 0, 6)}/s` : formatValue(v['count'] ?? 0, m.contains, unit);
  if (m.type === 'gauge') return formatValue(v['value'] ?? 0, m.contains, unit);
  const x = v[agg];
  return x === undefined ? '' : formatValue(x, m.contains, unit);
}

function thresholdsSection(data: SummaryData, unit: string | null): string[] {
  const keys = Object.keys(data.metrics)
    .filter((k) => data.metrics[k]!.thresholds)
    .sort();
  if (keys.length === 0) return [];
  const out = ['  █ THRESHOLDS', ''];
  for (const k of keys) {
    const m = data.metrics[k]!;
    out.push(`    ${k}`);
    for (const [expr, { ok }] of Object.entries(m.thresholds!)) {
      const agg = expr.replace(/\s/g, '').match(/^(p\([\d.]+\)|[a-z]+)/)?.[1] ?? '';
      const shown = thresholdValue(m, agg, unit);
      out.push(`    ${ok ? '✓' : '✗'} '${expr}'${shown ? ` ${agg}=${shown}` : ''}`);
    }
    out.push('');
  }
  out.push('');
  return out;
}

function allChecks(g: SummaryGroup): SummaryGroup['checks'] {
  return [...g.checks, ...g.groups.flatMap(allChecks)];
}

/**
 * The checks block: totals from the `checks` metric (as k6 counts them: samples a script adds to it
 * without a `check` tag too), then each check listed.
 */
function checksBlock(
  checks: SectionCheck[],
  metric: SummaryMetric | undefined,
  indent: string,
  durationS: number,
  nameWidth: number,
): string[] {
  const passes = metric?.values['passes'] ?? checks.reduce((a, c) => a + c.passes, 0);
  const fails = metric?.values['fails'] ?? checks.reduce((a, c) => a + c.fails, 0);
  if (checks.length === 0 && passes + fails === 0) return [];
  const total = passes + fails;
  const rows: [string, string, string][] = [
    ['checks_total', String(total), `${strip(durationS > 0 ? total / durationS : 0, 6)}/s`],
    ['checks_succeeded', formatPercent(total ? passes / total : 0), `${passes} out of ${total}`],
    ['checks_failed', formatPercent(total ? fails / total : 0), `${fails} out of ${total}`],
  ];
  const w = Math.max(...rows.map((r) => r[1].length)) + 1;
  const out = rows.map(
    ([n, a, b]) => `${indent}${n}${'.'.repeat(Math.max(3, nameWidth - n.length))}: ${pad(a, w)}${b}`,
  );
  out.push('');
  for (const c of checks) {
    if (c.fails === 0) out.push(`${indent}✓ ${c.name}`);
    else {
      out.push(`${indent}✗ ${c.name}`);
      const pct = Math.floor((c.passes / (c.passes + c.fails)) * 100);
      out.push(`${indent}  ↳  ${pct}% — ✓ ${c.passes} / ✗ ${c.fails}`);
    }
  }
  out.push('');
  return out;
}

/** Checks, then metrics by category (CUSTOM, GRPC, HTTP, EXECUTION, NETWORK), at `indent`. */
function metricsBlock(
  metrics: Record<string, SummaryMetric>,
  checks: SectionCheck[],
  indent: string,
  fmt: Fmt,
): string[] {
  const { mode, durationS } = fmt;
  const parents = Object.keys(metrics)
    .filter((k) => !k.includes('{'))
    .sort();
  const subsOf = (p: string) =>
    Object.keys(metrics)
      .filter((k) => k.startsWith(`${p}{`))
      .sort();
  const visible = parents.filter(
    (n) => n !== 'checks' && (mode === 'full' || !(n in BUILTIN_METRICS) || COMPACT.has(n)),
  );
  const groups: [string, string[]][] = [['CUSTOM', visible.filter((n) => !(n in BUILTIN_METRICS))]];
  for (const [title, pred] of CATEGORIES)
    groups.push([title, visible.filter((n) => n in BUILTIN_METRICS && pred(n))]);
  const allLines: Line[] = [];
  for (const [, names] of groups) {
    for (const n of names) {
      allLines.push({ name: n, indent: 0, metric: metrics[n]! });
      for (const s of subsOf(n)) allLines.push({ name: subName(s), indent: 2, metric: metrics[s]! });
    }
  }
  // Names are dotted to one column for the whole summary; deeper sections give up their indent.
  const nameWidth = Math.max(35 - (indent.length - 4), ...allLines.map((l) => l.name.length + l.indent + 3));
  const rendered = renderLines(allLines, indent, nameWidth, fmt);
  const out = checksBlock(checks, metrics['checks'], indent, durationS, nameWidth);
  let i = 0;
  for (const [title, names] of groups) {
    if (names.length === 0) continue;
    out.push(`${indent}${title}`);
    for (const n of names) {
      out.push(rendered[i++]!);
      for (const _ of subsOf(n)) out.push(rendered[i++]!);
    }
    out.push('');
  }
  return out;
}

/**
 * Renders the summary; `mode` picks compact (k6's default), full or legacy. Full mode adds one
 * section per scenario (and its groups) when `sections` are given.
 */
export function renderTextSummary(
  data: SummaryData,
  mode: SummaryMode = 'compact',
  sections: SummarySection[] = [],
): string {
  const unit = data.options.summaryTimeUnit || null;
  const durationS = data.state.testRunDurationMs / 1000;
  if (mode === 'legacy') return renderLegacy(data, unit, durationS);
  const out: string[] = ['', ...thresholdsSection(data, unit), '  █ TOTAL RESULTS', ''];
  const fmt: Fmt = { mode, durationS, unit };
  out.push(...metricsBlock(data.metrics, allChecks(data.root_group), '    ', fmt));
  if (mode === 'full') {
    for (const sc of sections) {
      out.push('', `  █ SCENARIO: ${sc.name}`, '');
      out.push(...metricsBlock(sc.metrics, sc.checks, '    ', fmt));
      for (const g of sc.groups) {
        out.push(`    ↳ GROUP: ${g.name}`, '');
        out.push(...metricsBlock(g.metrics, g.checks, '      ', fmt));
      }
    }
  }
  return `${out.join('\n')}\n`;
}

function renderLegacy(data: SummaryData, unit: string | null, durationS: number): string {
  const keys = Object.keys(data.metrics).sort();
  const lines: Line[] = [];
  for (const k of keys) {
    const m = data.metrics[k]!;
    lines.push(
      k.includes('{') ? { name: subName(k), indent: 2, metric: m } : { name: k, indent: 0, metric: m },
    );
  }
  const nameWidth = Math.max(...lines.map((l) => l.name.length + l.indent)) + 3;
  const out: string[] = [''];
  for (const c of allChecks(data.root_group)) out.push(`     ${c.fails ? '✗' : '✓'} ${c.name}`);
  if (out.length > 1) out.push('');
  lines.forEach((l) => {
    const m = l.metric;
    const name = ' '.repeat(l.indent) + l.name;
    const marker = m.thresholds ? (Object.values(m.thresholds).every((t) => t.ok) ? '✓ ' : '✗ ') : '  ';
    const c =
      m.type === 'rate'
        ? [formatPercent(m.values['rate'] ?? 0), `✓ ${m.values['passes']}`, `✗ ${m.values['fails']}`]
        : cols(m, durationS, unit);
    out.push(`   ${marker}${name}${'.'.repeat(nameWidth - name.length)}: ${c.join(' ')}`);
  });
  return `${out.join('\n')}\n`;
}
