/** Conformance: iteration counts, VU counts and arrival rates of k6's six executors, as k6's docs define them. */
import { describe, expect, it } from 'vitest';
import { checks, runScript, values } from './run-script.ts';

describe('executors', () => {
  it('shared-iterations runs exactly `iterations` in total, shared by the VUs', async () => {
    const r = await runScript('shared-iterations.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'iterations').count).toBe(10);
    const perVu = [1, 2, 3].map((v) => values(r, `per_vu{vu:${v}}`).count);
    expect(perVu.reduce((a, b) => a + b, 0)).toBe(10);
    expect(values(r, 'vus_max').value).toBe(3);
  });

  it('per-vu-iterations runs `iterations` on each VU, with right __VU/__ITER although VUs interleave', async () => {
    const r = await runScript('per-vu-iterations.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'iterations').count).toBe(12);
    for (const v of [1, 2, 3]) expect(values(r, `per_vu{vu:${v}}`).count).toBe(4);
    const c = checks(r);
    for (const name of Object.keys(c)) expect(c[name], name).toEqual({ passes: 12, fails: 0 });
    expect(Object.keys(c)).toHaveLength(5);
  });

  it('constant-vus loops its VUs for the duration; a bare sleep() paces the iteration', async () => {
    const r = await runScript('constant-vus.js');
    expect(r.exitCode).toBe(0);
    // 2 VUs × 1s / 0.1s per iteration = 20; generous bounds for a busy machine (late timers only lower it).
    expect(values(r, 'iterations').count).toBeGreaterThanOrEqual(6);
    expect(values(r, 'iterations').count).toBeLessThanOrEqual(22);
    expect(values(r, 'iteration_duration').min).toBeGreaterThanOrEqual(99);
    expect(values(r, 'vus').max).toBe(2);
  });

  it('ramping-vus follows its stages: up to the target, then down to zero', async () => {
    const r = await runScript('ramping-vus.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'active_vus').max).toBe(4);
    // The first VU starts alone (0 → 4 over 0.6s adds one VU every 0.15s) and the last ends alone.
    expect(values(r, 'active_vus').min).toBe(1);
    expect(values(r, 'vus_max').value).toBe(4);
    expect(values(r, 'iterations').count).toBeGreaterThan(10);
  });

  it('constant-arrival-rate starts `rate` iterations per timeUnit', async () => {
    const r = await runScript('constant-arrival-rate.js');
    expect(r.exitCode).toBe(0);
    const n = values(r, 'iterations').count;
    expect(n).toBeGreaterThanOrEqual(18);
    expect(n).toBeLessThanOrEqual(20);
    expect(r.summaryData?.metrics['dropped_iterations']).toBeUndefined();
  });

  it('arrival-rate iterations with no free VU are dropped and counted in dropped_iterations', async () => {
    const r = await runScript('dropped-iterations.js');
    expect(r.exitCode).toBe(0);
    const done = values(r, 'iterations').count;
    const dropped = values(r, 'dropped_iterations').count;
    // One VU, 0.4s per iteration, 20 starts in 1s: 3 run, the rest are dropped.
    expect(done).toBeGreaterThanOrEqual(2);
    expect(done).toBeLessThanOrEqual(3);
    expect(done + dropped).toBe(20);
  });

  it('ramping-arrival-rate integrates the rate: 0 → 20/s over 1s starts about 10 iterations', async () => {
    const r = await runScript('ramping-arrival-rate.js');
    expect(r.exitCode).toBe(0);
    const n = values(r, 'iterations').count;
    expect(n).toBeGreaterThanOrEqual(9);
    expect(n).toBeLessThanOrEqual(10);
  });

  it('runs several scenarios concurrently with their own startTime, exec, env and tags', async () => {
    const r = await runScript('scenarios.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'iterations{scenario:first}').count).toBe(3);
    expect(values(r, 'iterations{scenario:second}').count).toBe(2);
    expect(values(r, 'calls{kind:a}').count).toBe(3);
    expect(values(r, 'calls{kind:b}').count).toBe(2);
    expect(checks(r)).toEqual({
      'first sees its env': { passes: 3, fails: 0 },
      'second has no WHO': { passes: 2, fails: 0 },
      'second started after startTime': { passes: 2, fails: 0 },
    });
  });

  it('interrupts iterations still running when gracefulStop runs out, without counting them', async () => {
    const r = await runScript('graceful-stop.js');
    expect(r.exitCode).toBe(0);
    expect(r.summaryData?.metrics['iterations']).toBeUndefined();
    expect(r.summaryData!.state.testRunDurationMs).toBeLessThan(5000);
  });
});
