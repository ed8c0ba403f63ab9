/**
 * merge's exact trends (a generative run's per-request figures): a trend read with `exactTrends` keeps every
 * value, so the merged summary's percentiles are k6's (linear between closest ranks) on the pooled values at any
 * count, and the extra percentiles a generative summary carries are there.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergedSummary } from '../../measure/merge/merged-summary.ts';
import { readSamples } from '../../measure/merge/samples.ts';

const point = (metric: string, value: number) =>
  JSON.stringify({ type: 'Point', metric, data: { value, tags: { scenario: 'c1' } } });

/** Two runners' files of genai_ttft points: 1, 4, 9, ..., 100 split between them. */
function files(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'exact-trends-'));
  const squares = Array.from({ length: 10 }, (_, i) => (i + 1) ** 2);
  const declare = JSON.stringify({ type: 'Metric', data: { name: 'genai_ttft', type: 'trend' } });
  const paths = [join(dir, 'a.json'), join(dir, 'b.json')];
  writeFileSync(
    paths[0]!,
    [declare, ...squares.filter((_, i) => i % 2 === 0).map((v) => point('genai_ttft', v))].join('\n'),
  );
  writeFileSync(
    paths[1]!,
    [declare, ...squares.filter((_, i) => i % 2 === 1).map((v) => point('genai_ttft', v))].join('\n'),
  );
  return paths;
}

describe('exact trends in merge', () => {
  it("pools every value and takes k6's percentiles of the pool", async () => {
    const { aggregates } = await readSamples(files(), { exactTrends: new Set(['genai_ttft']) });
    const values = mergedSummary(aggregates, {}, [25]).metrics['genai_ttft{scenario:c1}']!.values!;
    // k6 on 1, 4, ..., 100: p50 (25 + 36) / 2, p99 98.29, p90 82.9 (real k6 v2.2.0 gives these for the same trend).
    expect(values['p(50)']).toBeCloseTo(30.5, 9);
    expect(values['med']).toBeCloseTo(30.5, 9);
    expect(values['p(90)']).toBeCloseTo(82.9, 9);
    expect(values['p(99)']).toBeCloseTo(98.29, 9);
    expect(values['p(25)']).toBeCloseTo(10.75, 9);
    expect([values['count'], values['min'], values['max'], values['avg']]).toEqual([10, 1, 100, 38.5]);
  });

  it("gives other trends k6's rule too while they are few (the runtime's trends keep 100,000 values), without the extra percentiles", async () => {
    const { aggregates } = await readSamples(files());
    const values = mergedSummary(aggregates, {}).metrics['genai_ttft{scenario:c1}']!.values!;
    expect(values['p(50)']).toBeCloseTo(30.5, 9);
    expect(values['p(25)']).toBeUndefined();
  });
});
