import { describe, expect, it } from 'vitest';
import { latencySpec, renderPlots, throughputSpec } from '../../report/plot.ts';
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
    expect(latency).toContain('"budget_ms":20');
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
});
