/**
 * A short bench against the embedded server scrapes its Prometheus endpoint and writes each level's
 * server metrics (issue 13, part 3) into summary.json and report.md, with the requests the level sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

describe('server metrics per level', () => {
  it("records the embedded server's nv_* counters for an mnist level", async () => {
    const results = resultsDir();
    const run = await runCli(
      [
        'bench',
        'mnist',
        ...QUICK,
        ...['--step-duration', '2s', '--concurrency', '1', '--results-dir', results],
      ],
      { P95_MS: '60000', P99_MS: '60000' },
    );
    expect(run.code, run.stderr).toBe(0);
    const folder = runFolder(results, 'mnist');
    const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    const level = summary.report.results[0];
    const metrics = level.server_metrics;
    expect(metrics, 'summary.json has server_metrics for c1').toBeDefined();
    expect(metrics.request_success).toBeGreaterThan(0);
    expect(metrics.request_failure).toBe(0);
    expect(metrics.interval_s).toBeGreaterThanOrEqual(level.window_s);
    // The scrape span covers the window, so it saw at least the requests k6 counted in it.
    expect(metrics.request_success).toBeGreaterThanOrEqual(level.requests);
    expect(metrics.avg_compute_infer_us).toBeGreaterThan(0);
    // The server computed through the window: some CPU, as a percentage.
    expect(metrics.cpu_utilization_avg_pct).toBeGreaterThan(0);
    expect(metrics.cpu_utilization_avg_pct).toBeLessThanOrEqual(100);
    expect(metrics.cpu_memory_used_max_bytes).toBeGreaterThan(0);
    // Over time: scrape intervals inside c1's window, for report.html's server-metrics chart.
    const timeline = summary.report.server_timeline;
    expect(timeline.windows.map((w: { level: string }) => w.level)).toEqual(['c1']);
    expect(
      timeline.points.some(
        (p: { level?: string; requests_s: number }) => p.level === 'c1' && p.requests_s > 0,
      ),
    ).toBe(true);
    const html = readFileSync(join(folder, 'report.html'), 'utf8');
    expect(html).toContain('data-chart="server-metrics"');
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(md).toContain('## Server metrics');
    expect(md).toMatch(new RegExp(`\\| c1 \\| ${metrics.request_success} \\|`));
  }, 120_000);
});
