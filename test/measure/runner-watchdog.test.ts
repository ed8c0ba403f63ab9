/**
 * A runtime that outlives its deadline is hung (real k6 v2.2.0 held a VU for good when a stream's end() ran
 * after the stream closed): runScenario stops it, fails the run with one line, and never waits forever.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../measure/core/exit-codes.ts';
import { watchSignals } from '../../measure/core/interrupt.ts';
import { runtimeDeadline_s } from '../../measure/core/measure-pass.ts';
import { runScenario } from '../../measure/core/runner.ts';
import { tempDirs } from '../temp-dirs.ts';

describe('runScenario watchdog', () => {
  const tempDir = tempDirs('k6t-watchdog-');
  afterEach(() => vi.restoreAllMocks());

  it('stops a runtime still running at its deadline and fails the run with one line', async () => {
    const dir = tempDir();
    const script = join(dir, 'stuck.js');
    // setup() outlasts the deadline by far: only the watchdog ends this run in time.
    writeFileSync(
      script,
      "import { sleep } from 'k6';\nexport const options = { vus: 1, iterations: 1 };\nexport function setup() { sleep(300); }\nexport default function () {}\n",
    );
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const interruption = watchSignals();
    try {
      const run = await runScenario({
        runtime: 'node',
        script,
        env: {},
        interruption,
        log: join(dir, 'runtime.log'),
        deadline_s: 3,
      });
      expect(run.exitCode).toBe(EXIT.FAILED);
      expect(lines.filter((l) => l.includes('still running 3s after it started'))).toHaveLength(1);
    } finally {
      interruption.dispose();
    }
  }, 60_000);

  it("gives a plan k6's setup and teardown timeouts beyond its length", () => {
    expect(runtimeDeadline_s(30.5)).toBe(211);
  });
});
