/** Conformance: k6's exit codes (99, 104, 105, 107, 108) and load-time errors for unsupported APIs. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScript, scriptPath, values } from '../../../packages/runtime/test/run-script.ts';
import { logText } from '../../../packages/runtime/test/logfmt.ts';

describe('exit codes', () => {
  it('exits 99 when a threshold is crossed and reports ok:false per expression', async () => {
    const r = await runScript('thresholds-fail.js');
    expect(r.exitCode).toBe(99);
    expect(r.summaryData!.metrics['waiting_time']!.thresholds).toEqual({
      'p(95)<100': { ok: false },
      'max>=0': { ok: true },
    });
    expect(r.log).toContain("thresholds on metrics 'waiting_time' have been crossed");
    expect(r.stdout).toContain("✗ 'p(95)<100' p(95)=500ms");
  });

  it('exits 99 early when an abortOnFail threshold is crossed', async () => {
    const r = await runScript('thresholds-abort.js');
    expect(r.exitCode).toBe(99);
    expect(r.summaryData!.state.testRunDurationMs).toBeLessThan(15_000);
    expect(values(r, 'errors').count).toBeGreaterThan(0);
  });

  it('exits 104 with a one-line error naming an invalid threshold expression', async () => {
    const r = await runScript('thresholds-invalid.js');
    expect(r.exitCode).toBe(104);
    expect(r.log.trim().split('\n')).toHaveLength(1);
    expect(logText(r.log)).toContain('"p95 < 200"');
  });

  it('exits 104 for an invalid option given as an override (bad duration)', async () => {
    const r = await runScript('constant-arrival-rate.js', { overrides: { duration: 'ten seconds' } });
    expect(r.exitCode).toBe(104);
    expect(r.log).toContain('ten seconds');
  });

  it('exits 107 for an exception in the init context or in setup()', async () => {
    const init = await runScript('init-exception.js');
    expect(init.exitCode).toBe(107);
    expect(init.log).toContain('boom in init');
    const setup = await runScript('setup-exception.js');
    expect(setup.exitCode).toBe(107);
    expect(setup.log).toContain('setup went wrong');
  });

  it('exits 108 on test.abort() and still runs teardown', async () => {
    const r = await runScript('test-abort.js');
    expect(r.exitCode).toBe(108);
    expect(r.log).toContain('teardown ran');
    expect(r.log).toContain('enough');
    // k6 counts the iteration that called abort(): __ITER 0, 1 and 2.
    expect(values(r, 'iterations').count).toBe(3);
  });

  it('fails at load time for a k6 module or name the runtime does not implement', async () => {
    const mod = await runScript('unsupported-module.js');
    expect(mod.exitCode).toBe(107);
    expect(mod.log).toContain('k6 API k6/browser is not supported by the Node runtime; run with k6');
    const name = await runScript('unsupported-name.js');
    expect(name.exitCode).toBe(107);
    expect(name.log).toContain(
      'k6 API k6/metrics.nonexistentThing is not supported by the Node runtime; run with k6',
    );
  });

  it('on SIGINT stops, runs teardown and the summary, and exits 105', async () => {
    const bin = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'run', '-q', scriptPath('sigint.js')], { stdio: 'pipe' });
    let out = '';
    let err = '';
    let signalled = false;
    child.stdout.on('data', (d) => {
      out += d;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        // Exactly one signal, once an iteration has completed (the script logs it): a second one
        // is k6's "stop at once", which skips teardown and the summary; stderr comes in many chunks.
        if (!signalled && err.includes('iterated')) {
          signalled = true;
          child.kill('SIGINT');
        }
      });
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    clearTimeout(guard);
    expect(exit).toEqual({ code: 105, signal: null });
    expect(err).toContain('setup done');
    expect(err).toContain('teardown ran');
    expect(out).toContain('█ TOTAL RESULTS');
    expect(out).toMatch(/iterations\.+: \d+/);
  });
});
