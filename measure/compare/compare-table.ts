/**
 * A comparison in words: Markdown for the console and CI logs, JUnit XML for CI test reports (one testcase
 * per gate and level; a regression is a <failure>). Pure.
 */
import junit from 'junit-report-builder';
import type { Comparison, Delta, RunLabel } from './compare.ts';
import { genaiGates } from './compare-genai.ts';
import { genaiGatesWords, genaiMarkdown, genaiTolerances } from './compare-genai-table.ts';

function pct(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+inf%' : '-inf%';
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)}%`;
}

function cell(delta: Delta, decimals: number): string {
  return `${delta.a.toFixed(decimals)} → ${delta.b.toFixed(decimals)} (${pct(delta.delta_pct)})`;
}

function describeRun(name: string, run: RunLabel): string {
  return `- ${name}: \`${run.path}\` (${run.model}, ${run.protocol}, runtime ${run.runtime}, batch ${run.batch}, started ${run.started_at})`;
}

/**
 * The comparison's last line, as the bench's `verdict:` line: each finding's level and figure, so a CI log's
 * last line says what regressed (e.g. `verdict: regression (c1 TTFT p99 +212.0%)`).
 */
export function verdictLine(comparison: Comparison): string {
  if (!comparison.regressed) return 'verdict: no regression';
  const named = comparison.findings.map((finding) => {
    // "c1: TTFT p99 17.27 → 60.10 ms (+248.0%), more than ..." → "c1 TTFT p99 +248.0%"
    const match = /^([^:]+): (.+?) [-\d.]+ → [-\d.]+ [^(]*\(([^)]+)\)/.exec(finding);
    return match ? `${match[1]} ${match[2]} ${match[3]}` : finding;
  });
  return `verdict: regression (${named.join('; ')})`;
}

/** The comparison as Markdown: runs, verdict, one row per common level, findings. */
export function comparisonMarkdown(comparison: Comparison): string {
  const { tolerances } = comparison;
  const gates = `throughput drop ≤ ${tolerances.max_throughput_drop_pct}%, p99 rise ≤ ${tolerances.max_p99_rise_pct}%${genaiGatesWords(comparison)}`;
  const verdict = comparison.regressed
    ? `**Regression**: ${comparison.findings.length} finding(s) beyond the tolerances (${gates}).`
    : `No regression: B is within the tolerances (${gates}).`;
  const rows = comparison.levels.map((level) =>
    [
      level.name,
      cell(level.throughput_infer_s, 1),
      cell(level.p50_ms, 2),
      cell(level.p95_ms, 2),
      cell(level.p99_ms, 2),
      level.regressions.length > 0 ? '**regression**' : 'ok',
    ].join(' | '),
  );
  return [
    '# Run comparison: B against baseline A',
    '',
    describeRun('A (baseline)', comparison.a),
    describeRun('B', comparison.b),
    '',
    verdict,
    '',
    ...(comparison.mismatches.length > 0
      ? [`> Not like for like: ${comparison.mismatches.join('; ')}.`, '']
      : []),
    '| Level | Throughput (infer/s) | p50 (ms) | p95 (ms) | p99 (ms) | Result |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    ...genaiMarkdown(comparison),
    '',
    ...comparison.findings.map((finding) => `- ${finding}`),
    ...(comparison.only_in_b.length > 0
      ? [`- only in B, not judged: ${comparison.only_in_b.join(', ')}`]
      : []),
    ...comparison.notes.map((note) => `- note: ${note}`),
    '',
    verdictLine(comparison),
    '',
  ].join('\n');
}

/** The comparison as JUnit XML: per common level a throughput and a p99 testcase, per missing level one. */
export function comparisonJunit(comparison: Comparison): string {
  const builder = junit.newBuilder();
  const suite = builder
    .testSuite()
    .name(`k6-triton compare ${comparison.b.model}`)
    .property('baseline', comparison.a.path)
    .property('candidate', comparison.b.path);
  const { tolerances } = comparison;
  for (const level of comparison.levels) {
    const gates = [
      { name: `throughput drop <= ${tolerances.max_throughput_drop_pct}%`, word: 'throughput' },
      { name: `p99 rise <= ${tolerances.max_p99_rise_pct}%`, word: 'p99' },
      // Goodput is a gate only where both runs judged it on the same SLOs.
      ...(level.genai ? genaiGates(genaiTolerances(comparison)) : []).filter(
        (gate) => gate.word !== 'goodput' || level.genai?.goodput_requests_per_s,
      ),
    ];
    for (const gate of gates) {
      const testCase = suite.testCase().className(`${comparison.b.model}.${level.name}`).name(gate.name);
      const failure = level.regressions.find((line) => line.startsWith(`${level.name}: ${gate.word} `));
      if (failure) testCase.failure(failure, 'Regression');
    }
  }
  for (const name of comparison.missing_in_b)
    suite
      .testCase()
      .className(`${comparison.b.model}.${name}`)
      .name('measured in both runs')
      .failure(`${name}: measured in A, not in B`, 'Regression');
  if (comparison.levels.length === 0 && comparison.missing_in_b.length === 0)
    suite
      .testCase()
      .className(comparison.b.model)
      .name('levels in common')
      .failure('no level was measured in both runs', 'Regression');
  return builder.build();
}
