import { describe, expect, it } from 'vitest';
import { levelTable, reportMarkdown, verdictTable } from '../../report/markdown.ts';
import { level, report } from './fixture.ts';

describe('report markdown', () => {
  const results = [
    level({
      level: 1,
      throughput_infer_s: 709.111,
      stable: true,
      stability_spread_pct: 3.2,
      budgets: [{ metric: 'http_req_duration{scenario:c1}', expr: 'p(95)<20', ok: true, measured: 2.0005 }],
    }),
    level({
      level: 8,
      throughput_infer_s: 2108.97,
      stable: false,
      stability_spread_pct: 14.25,
      budgets: [
        { metric: 'http_req_duration{scenario:c8}', expr: 'p(95)<1', ok: false, measured: 2.0005 },
        { metric: 'http_req_failed{scenario:c8}', expr: 'rate<0.01', ok: true, measured: 0.002 },
      ],
    }),
  ];

  it('draws the seeds table with ms latencies and a stability column', () => {
    const lines = levelTable(results).split('\n');
    expect(lines[0]).toBe(
      '| Concurrency | Throughput (infer/s) | Avg latency (ms) | p90 latency (ms) | p95 latency (ms) | p99 latency (ms) | Errors | Stable |',
    );
    expect(lines[2]).toBe('| 1 | 709.1 | 1.40 | 1.80 | 2.00 | 3.00 | 0 | yes (±3.2%) |');
    expect(lines[3]).toContain('| 8 | 2109.0 |');
    expect(lines[3]).toContain('**unstable** (±14.3%)');
  });

  it('lists budget verdicts failures first, naming metric, level, budget and measured value', () => {
    const lines = verdictTable(results).split('\n');
    expect(lines[0]).toBe('| Metric | Level | Budget | Measured | Samples | 95% interval (ms) | Result |');
    expect(lines[2]).toBe('| http_req_duration | c8 | `p(95)<1` | 2.00 ms |  |  | **FAIL** |');
    expect(lines).toContain('| http_req_failed | c8 | `rate<0.01` | 0.20% |  |  | pass |');
  });

  it('assembles the whole report with the verdict and the breakdown', () => {
    const md = reportMarkdown(report(results));
    expect(md).toContain('# mnist: throughput and latency');
    expect(md).toContain('Verdict: **missed** (1 budget(s) missed)');
    expect(md).toContain('## Latency breakdown');
    expect(md).toContain('| c1 | 0.031 | 0.170 | 0.065 | 0.206 | 0.900 | 0.019 | 0.012 | 100 |');
    expect(reportMarkdown(report([]))).toContain('_No level completed a request._');
  });
});
