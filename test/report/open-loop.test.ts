/**
 * The open loop's scheduled-start latency from k6 summary data to the console lines and report.md's table:
 * read from `k6_triton_scheduled_latency{scenario:rN}`, in microseconds, and judged against the send latency.
 */
import { describe, expect, it } from 'vitest';
import { levelsFromSummary } from '../../lib/summary/from-summary.ts';
import { openLoopLines } from '../../lib/summary/open-loop.ts';
import { openLoopTable } from '../../report/markdown.ts';

const trend = (p50: number, p95: number, p99: number, count: number) => ({
  type: 'trend',
  contains: 'time',
  values: {
    avg: p50,
    min: 1,
    med: p50,
    max: p99,
    'p(50)': p50,
    'p(90)': p95,
    'p(95)': p95,
    'p(99)': p99,
    count,
  },
});

const summary = {
  metrics: {
    'http_req_duration{scenario:r10}': trend(25, 30, 33, 20),
    'k6_triton_scheduled_latency{scenario:r10}': trend(27, 34, 36, 20),
    'dropped_iterations{scenario:r10}': { type: 'counter', values: { count: 0 } },
    'http_req_duration{scenario:r200}': trend(99, 102, 104, 80),
    'k6_triton_scheduled_latency{scenario:r200}': trend(850, 1600, 1680, 80),
    'dropped_iterations{scenario:r200}': { type: 'counter', values: { count: 319 } },
  },
};

const levels = [
  { name: 'r10', mode: 'request-rate' as const, level: 10, window_s: 2 },
  { name: 'r200', mode: 'request-rate' as const, level: 200, window_s: 2 },
];

describe('open loop: scheduled-start latency', () => {
  const results = levelsFromSummary({ summary, batch: 1, levels });

  it('reads the scheduled-start Trend and dropped iterations per level, in microseconds', () => {
    expect(results.map((r) => r.scheduled_latency_us?.p95)).toEqual([34_000, 1_600_000]);
    expect(results.map((r) => r.dropped_iterations)).toEqual([0, 319]);
  });

  it('has no scheduled-start figures in closed loop', () => {
    const closed = levelsFromSummary({
      summary: { metrics: { 'http_req_duration{scenario:c1}': trend(1, 2, 3, 10) } },
      batch: 1,
      levels: [{ name: 'c1', mode: 'concurrency', level: 1, window_s: 1 }],
    });
    expect(closed[0]!.scheduled_latency_us).toBeUndefined();
    expect(openLoopLines(closed)).toEqual([]);
    expect(openLoopTable(closed)).toBe('');
  });

  it('says which level did not hold its rate, on the console and in report.md', () => {
    const lines = openLoopLines(results);
    expect(lines[0]).toBe(
      'r10: latency from scheduled start p95 34.00 ms, p99 36.00 ms; from send p95 30.00 ms, p99 33.00 ms; 0 dropped iterations',
    );
    expect(lines[1]).toContain('319 dropped iterations: the server did not hold 200 req/s');
    const md = openLoopTable(results);
    expect(md).toContain('| r10 | 0 | 25.00 | 30.00 | 33.00 | 27.00 | 34.00 | 36.00 | held |');
    expect(md).toMatch(/\| r200 \| 319 \|.*\| 1600\.00 \|.*not held/);
  });
});
