/**
 * Conformance: iteration counts, VU counts and arrival rates of k6's six executors, as k6's docs
 * define them. Executors bound by time run on virtual time (fake-clock.ts), so their counts are exact.
 */
import { describe, expect, it } from 'vitest';
import { runScriptOnFakeClock } from './fake-clock.ts';
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
    const r = await runScriptOnFakeClock('constant-vus.js');
    expect(r.exitCode).toBe(0);
    // 2 VUs × 1s / 0.1s per iteration; the iteration ending at 1s completes and counts.
    expect(values(r, 'iterations').count).toBe(20);
    expect(values(r, 'iteration_duration').min).toBe(100);
    expect(values(r, 'vus').max).toBe(2);
  });

  it('ramping-vus follows its stages: up to the target, then down to zero', async () => {
    const r = await runScriptOnFakeClock('ramping-vus.js');
    expect(r.exitCode).toBe(0);
    expect(values(r, 'active_vus').max).toBe(4);
    // The first VU starts alone (0 → 4 over 0.6s adds one VU every 0.15s) and the last ends alone.
    expect(values(r, 'active_vus').min).toBe(1);
    expect(values(r, 'vus_max').value).toBe(4);
    // 50 ms iterations: VU 1 runs 0.15s → 1.8s, VU 2 0.3s → 1.65s, VU 3 0.45s → 1.5s, VU 4 0.6s → 1.35s.
    expect(values(r, 'iterations').count).toBe(33 + 27 + 21 + 15);
  });

  it('constant-arrival-rate starts `rate` iterations per timeUnit', async () => {
    const r = await runScriptOnFakeClock('constant-arrival-rate.js');
    expect(r.exitCode).toBe(0);
    // One start every 50 ms from 0 to 950 ms.
    expect(values(r, 'iterations').count).toBe(20);
    expect(r.summaryData?.metrics['dropped_iterations']).toBeUndefined();
  });

  it('arrival-rate iterations with no free VU are dropped and counted in dropped_iterations', async () => {
    const r = await runScriptOnFakeClock('dropped-iterations.js');
    expect(r.exitCode).toBe(0);
    // One VU, 0.4s per iteration, 20 starts in 1s: those at 0, 0.4 and 0.8s run, the rest are dropped.
    expect(values(r, 'iterations').count).toBe(3);
    expect(values(r, 'dropped_iterations').count).toBe(17);
  });

  it('ramping-arrival-rate integrates the rate: 0 → 20/s over 1s starts about 10 iterations', async () => {
    const r = await runScriptOnFakeClock('ramping-arrival-rate.js');
    expect(r.exitCode).toBe(0);
    // Iteration k starts when k + 1 are due, at sqrt((k + 1) / 10) s, as in k6: k = 0..9, the last at 1s.
    expect(values(r, 'iterations').count).toBe(10);
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
    const r = await runScriptOnFakeClock('graceful-stop.js');
    expect(r.exitCode).toBe(0);
    expect(r.summaryData?.metrics['iterations']).toBeUndefined();
    // duration 200ms + gracefulStop 100ms, not the iterations' 30s sleep.
    expect(r.summaryData!.state.testRunDurationMs).toBe(300);
  });
});
