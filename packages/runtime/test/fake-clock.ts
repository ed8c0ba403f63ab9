/**
 * Runs a conformance script on virtual time, as k6 tests its executors (`testing/synctest`): the
 * runtime's timers, `performance.now()` and `Date` are vitest's fake ones, and the clock jumps from
 * one timer to the next once everything else (promises, I/O, setImmediate yields) has settled. Counts
 * of time-bound executors are then exact, whatever the load on the machine.
 */
import { vi } from 'vitest';
import { type CapturedRun, runScript } from './run-script.ts';

/** The timers the runtime schedules with; setImmediate stays real, so the loop below can yield. */
const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] as const;

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** runScript on virtual time; the script must not wait on real I/O once its scenarios run. */
export async function runScriptOnFakeClock(name: string): Promise<CapturedRun> {
  vi.useFakeTimers({ toFake: [...FAKED] });
  try {
    let done = false;
    const run = runScript(name).finally(() => {
      done = true;
    });
    while (!done) {
      // Loading the script is real I/O: let it (and every pending callback) finish before time moves.
      for (let i = 0; i < 3; i++) await settle();
      if (!done) await vi.advanceTimersToNextTimerAsync();
    }
    return await run;
  } finally {
    vi.useRealTimers();
  }
}
