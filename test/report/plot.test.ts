import { describe, expect, it } from 'vitest';
import { chartMs, latencyScale, latencySpec, renderPlots, throughputSpec } from '../../report/plot.ts';
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
      { y_ms: far.top_ms, label: '↑ p95 budget 20 ms (above the chart)', above: true },
      { y_ms: far.top_ms, label: '↑ p99 budget 50 ms (above the chart)', above: true },
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

  it('names each level on the charts, joins the levels in level order and rings unstable levels in red', async () => {
    // c4 lost throughput to c2: the line must run c1, c2, c4 (folding back), not sorted by throughput.
    const knee = [
      level({ level: 1, throughput_infer_s: 500 }),
      level({ level: 4, throughput_infer_s: 700, stable: false }),
      level({ level: 2, throughput_infer_s: 900 }),
    ];
    const spec = latencySpec(knee) as unknown as {
      layer: { data: { values: { level: string; rank: number; series: string }[] }; encoding: object }[];
    };
    const line = spec.layer[0]!;
    expect(line.encoding).toMatchObject({ order: { field: 'rank' } });
    expect(line.data.values.filter((v) => v.series === 'p99').map((v) => [v.level, v.rank])).toEqual([
      ['c1', 0],
      ['c2', 1],
      ['c4', 2],
    ]);
    const svg = (await renderPlots(knee))['latency.svg']!;
    // The level names, once each (on the top percentile), and the legend's "unstable" entry.
    for (const name of ['c1', 'c2', 'c4']) expect(svg.match(new RegExp(`>${name}<`, 'g'))).toHaveLength(1);
    expect(svg).toContain('>unstable<');
    // The ring: an unfilled red symbol around each of c4's two points.
    expect(svg.match(/stroke="#d62728" stroke-width="2.5"/g)).toHaveLength(2);
    const throughput = (await renderPlots(knee))['throughput.svg']!;
    for (const name of ['c1', 'c2', 'c4']) expect(throughput).toContain(`>${name}<`);
    // Hollow (white) and red for the unstable level; its label red too.
    expect(throughput).toMatch(/fill="white" stroke="#d62728"/);
    expect(throughput).toMatch(/fill="#d62728"[^>]*>c4</);
  });

  it('ticks concurrency at whole numbers and writes budgets with units at three significant digits', () => {
    const spec = throughputSpec(results) as unknown as { encoding: { x: { axis: object } } };
    expect(spec.encoding.x.axis).toEqual({ tickMinStep: 1, format: 'd' });
    expect(chartMs(20.4184)).toBe('20.4 ms');
    expect(chartMs(1.23456)).toBe('1.23 ms');
    expect(chartMs(20)).toBe('20 ms');
    expect(chartMs(1000)).toBe('1000 ms');
    expect(JSON.stringify(latencySpec(results, { budget: { p95_ms: 2.04184 } }))).toContain(
      'p95 budget 2.04 ms',
    );
  });

  it('names request-rate levels by their rate and keeps decimals on the rate axis', async () => {
    const rates = [0.5, 1, 2].map((rate) =>
      level({ level: rate, name: `r${rate}`, mode: 'request-rate', throughput_infer_s: rate }),
    );
    const spec = throughputSpec(rates) as unknown as { encoding: { x: { title: string; axis: object } } };
    expect(spec.encoding.x.title).toBe('Request rate (req/s)');
    expect(spec.encoding.x.axis).toEqual({ format: '~g' });
    const svg = (await renderPlots(rates))['throughput.svg']!;
    for (const name of ['r0.5', 'r1', 'r2']) expect(svg).toContain(`>${name}<`);
    expect(svg).toContain('>0.5<');
  });
});
