import { describe, expect, it } from 'vitest';
import { latencyScale, latencySpec, renderPlots, throughputSpec } from '../../report/plot.ts';
import { level } from './fixture.ts';

const results = [
  level({ level: 1, throughput_infer_s: 321.5 }),
  level({ level: 2, throughput_infer_s: 654.25, stable: false }),
  level({ level: 4, throughput_infer_s: 987.75 }),
];

describe('plots', () => {
  it('carries every level into the specs', () => {
    const spec = throughputSpec(results, { title: 'dlrm' }) as { data: { values: { level: number }[] } };
    expect(spec.data.values.map((v) => v.level)).toEqual([1, 2, 4]);
    const latency = JSON.stringify(latencySpec(results, { budget: { p95_ms: 20 } }));
    expect(latency).toContain('p95 budget 20 ms');
    expect(latency).not.toContain('p99 budget');
  });

  it('renders SVG with the series, the axes and the budget line', async () => {
    const plots = await renderPlots(results, { title: 'dlrm', budget: { p95_ms: 20, p99_ms: 30 } });
    const throughput = plots['throughput.svg']!;
    const latency = plots['latency.svg']!;
    expect(throughput.startsWith('<svg')).toBe(true);
    expect(throughput).toContain('dlrm: throughput vs concurrency');
    expect(throughput).toContain('Throughput (infer/s)');
    expect(throughput).toContain('unstable');
    // one line path plus a point per level
    expect(throughput).toMatch(/<path[^>]+d="M[^"]+L[^"]+"/);
    expect(latency).toContain('p95');
    expect(latency).toContain('p99');
    expect(latency).toContain('p95 budget 20 ms');
    expect(latency).toContain('p99 budget 30 ms');
    expect(latency).toContain('Latency (ms)');
  });

  it('fits the latency axis to the percentiles: a budget far above is drawn at the top edge with its value', () => {
    // p99 of about 3 ms against budgets of 20 and 50 ms: on a 0-50 ms axis every line would lie on the floor.
    const far = latencyScale([0.8, 1.5, 2.5, 3], { p95_ms: 20, p99_ms: 50 });
    expect(far.top_ms).toBeCloseTo(3.3, 5);
    expect(far.rules).toEqual([
      { y_ms: far.top_ms, label: 'p95 budget 20 ms (above the chart)', above: true },
      { y_ms: far.top_ms, label: 'p99 budget 50 ms (above the chart)', above: true },
    ]);
    // A budget within twice the highest latency is taken into the axis and drawn in place.
    const near = latencyScale([0.8, 1.5, 2.5, 3], { p95_ms: 2, p99_ms: 5 });
    expect(near.top_ms).toBeCloseTo(5.5, 5);
    expect(near.rules.map((r) => [r.y_ms, r.above])).toEqual([
      [2, false],
      [5, false],
    ]);
    // Nothing measured above zero: the budgets set the axis.
    expect(latencyScale([0, 0], { p95_ms: 20 }).top_ms).toBeCloseTo(22, 5);
    // The fixture's p99 is 3 ms: the spec's axis ends near it, not at the 50 ms budget.
    const spec = JSON.stringify(latencySpec(results, { budget: { p95_ms: 20, p99_ms: 50 } }));
    const domain = JSON.parse(/"domain":(\[0,[\d.]+\])/.exec(spec)![1]!) as number[];
    expect(domain[1]).toBeCloseTo(3.3, 3);
  });
});
