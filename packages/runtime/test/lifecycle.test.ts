/** Conformance: setup/teardown data, groups and checks, handleSummary's data shape, open() and .ts scripts. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks, runScript, values } from './run-script.ts';
import { logEntries } from './logfmt.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lifecycle', () => {
  it('hands setup data to every VU and to teardown as a JSON copy; async functions are awaited', async () => {
    const r = await runScript('lifecycle.js');
    expect(r.exitCode).toBe(0);
    expect(checks(r)).toEqual({
      'data is a JSON copy': { passes: 4, fails: 0 },
      'data is per VU': { passes: 4, fails: 0 },
      'teardown gets setup data': { passes: 1, fails: 0 },
    });
    const root = r.summaryData!.root_group;
    // k6 runs teardown() in a group of that name: its check sits under ::teardown.
    expect(root.groups.map((g) => g.path)).toEqual(['::outer', '::teardown']);
    expect(root.groups[0]!.groups[0]).toMatchObject({
      name: 'inner',
      path: '::outer::inner',
      id: createHash('md5').update('::outer::inner').digest('hex'),
    });
    expect(root.groups[0]!.groups[0]!.checks[0]!.path).toBe('::outer::inner::data is a JSON copy');
    // Each group is timed on the monotonic clock, so even the shortest takes some time.
    expect(values(r, 'group_duration').min).toBeGreaterThan(0);
  });

  it("passes k6's summary data to handleSummary and writes its map to stdout and files", async () => {
    const file = join(dir, 'summary.json');
    const r = await runScript('handle-summary.js', { env: { SUMMARY_FILE: file } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^custom summary: \d+ metrics\n$/);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(data).sort()).toEqual(['metrics', 'options', 'root_group', 'state']);
    expect(data.options).toEqual({
      summaryTrendStats: ['avg', 'p(99)', 'count'],
      summaryTimeUnit: '',
      noColor: false,
    });
    expect(Object.keys(data.state).sort()).toEqual(['isStdErrTTY', 'isStdOutTTY', 'testRunDurationMs']);
    expect(data.state.testRunDurationMs).toBeGreaterThan(0);
    expect(data.root_group).toMatchObject({
      name: '',
      path: '',
      id: 'd41d8cd98f00b204e9800998ecf8427e',
      groups: [],
    });
    expect(data.root_group.checks).toEqual([
      {
        name: 'is one',
        path: '::is one',
        id: createHash('md5').update('::is one').digest('hex'),
        passes: 3,
        fails: 0,
      },
    ]);
    expect(data.metrics.iteration_duration).toMatchObject({
      type: 'trend',
      contains: 'time',
      thresholds: { 'p(99)<10000': { ok: true } },
    });
    expect(Object.keys(data.metrics.iteration_duration.values)).toEqual(['avg', 'p(99)', 'count']);
    expect(data.metrics.iterations).toEqual({
      type: 'counter',
      contains: 'default',
      values: { count: 3, rate: expect.any(Number) },
    });
    expect(data.metrics.checks).toEqual({
      type: 'rate',
      contains: 'default',
      values: { rate: 1, passes: 3, fails: 0 },
      thresholds: { 'rate==1': { ok: true } },
    });
    expect(Object.keys(data.metrics.vus.values)).toEqual(['value', 'min', 'max']);
  });

  it('opens a binary file once for all VUs (paths relative to the script)', async () => {
    const r = await runScript('open-binary.js');
    expect(r.exitCode).toBe(0);
    const c = checks(r);
    for (const name of Object.keys(c)) expect(c[name], name).toEqual({ passes: 4, fails: 0 });
    expect(Object.keys(c)).toHaveLength(4);
  });

  it('runs a TypeScript scenario directly, bundling it on the fly', async () => {
    const r = await runScript('scenario.ts');
    expect(r.exitCode).toBe(0);
    expect(checks(r)).toEqual({ 'typed value': { passes: 2, fails: 0 } });
  });

  it('logs an exception thrown in an iteration and carries on, as k6 does', async () => {
    const r = await runScript('iteration-error.js');
    expect(r.exitCode).toBe(0);
    const [error] = logEntries(r.log).filter((e) => e.level === 'error');
    expect(error!.msg).toMatch(/^Error: iteration failed/);
    expect(error!.fields['source']).toBe('stacktrace');
    // Positions point into the script as written (source-mapped), not into the runtime.
    expect(r.log).toMatch(/scripts\/iteration-error\.js:4:\d+/);
    expect(r.log).not.toContain('runtime/executors');
    expect(values(r, 'iterations').count).toBe(3);
  });

  it("adds tags set through exec.vu.tags to the VU's later samples", async () => {
    const r = await runScript('vu-tags.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'tagged{phase:warm}').count).toBe(4);
    expect(values(r, 'tagged{phase:cold}').count).toBe(2);
  });

  it('lets exec.vu.tags replace the scenario system tag, as k6 does', async () => {
    const r = await runScript('vu-tag-scenario.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'tagged{scenario:s}').count).toBe(2);
    expect(values(r, 'tagged{scenario:later}').count).toBe(4);
  });

  it('builds a SharedArray once for all VUs, as a frozen JSON copy', async () => {
    const r = await runScript('shared-array.js');
    expect(r.exitCode).toBe(0);
    const c = checks(r);
    for (const name of Object.keys(c)) expect(c[name], name).toEqual({ passes: 3, fails: 0 });
    expect(Object.keys(c)).toHaveLength(4);
  });
});
