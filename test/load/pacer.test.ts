/**
 * The pacer on a fake clock and a fake send: in which order sends go, when each is due (k6's i / rate, a paced
 * level's send times, a sequence's turns), how long it waits (one wait, read on the clock it is given, none
 * when a send is already late), and the scheduled-start latency from the due time to the end of the request.
 * Blocking (real k6) and promise (Node runtime) forms run the same steps.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPacer, type OpenLoop, type PacedSends, type PacerExecution } from '../../lib/load/pacer.ts';

let clock_ms = 0;

interface Rig {
  exec: PacerExecution;
  log: string[];
  latency: number[];
  lag: number[];
  late: number[];
}

/** A pacer whose send logs `send <slot> at <clock>` and takes `took_ms` of the fake clock. */
function rig(
  blocking: boolean,
  open: Partial<OpenLoop> | undefined,
  opts: { took_ms?: number; start?: number; name?: string } = {},
) {
  const r: Rig = {
    exec: { scenario: { name: opts.name ?? 'r10', startTime: opts.start ?? 0, iterationInTest: 0 } },
    log: [],
    latency: [],
    lag: [],
    late: [],
  };
  const took = opts.took_ms ?? 0;
  const pacer = createPacer<string>({
    exec: r.exec,
    blocking,
    send: (data) => {
      r.log.push(`send ${data} ${pacer.slot()} at ${clock_ms} named ${String(pacer.named())}`);
      clock_ms += took;
      return blocking ? undefined : Promise.resolve();
    },
    ...(open
      ? {
          open: {
            scheduledLatency: { add: (ms) => r.latency.push(ms) },
            sleep: (ms) => {
              r.log.push(`sleep ${ms}`);
              clock_ms += ms;
              return blocking ? undefined : Promise.resolve();
            },
            now: () => clock_ms,
            ...open,
          },
        }
      : {}),
  });
  return { r, pacer };
}

beforeEach(() => {
  clock_ms = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => clock_ms);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe.each([
  ['blocking', true],
  ['async', false],
])('pacer (%s)', (_, blocking) => {
  it('closed loop: sends each iteration at once and records no latency', async () => {
    const { r, pacer } = rig(blocking, undefined, { took_ms: 40 });
    for (let n = 0; n < 3; n++) {
      r.exec.scenario.iterationInTest = n;
      await pacer.iteration('x');
    }
    expect(r.log).toEqual([
      'send x 0 at 0 named undefined',
      'send x 1 at 40 named undefined',
      'send x 2 at 80 named undefined',
    ]);
    expect(pacer.due()).toBe(0);
    expect(r.latency).toEqual([]);
  });

  it("k6's arrival rate: iteration n is due at start + n / rate, never waited for; latency from the due time", async () => {
    // 10/s: due every 100 ms; each send takes 150 ms, so the generator falls behind by 50 ms a send.
    const { r, pacer } = rig(blocking, {}, { took_ms: 150, start: 1_000 });
    clock_ms = 1_000;
    const dues: number[] = [];
    for (let n = 0; n < 4; n++) {
      r.exec.scenario.iterationInTest = n;
      await pacer.iteration('x');
      dues.push(pacer.due());
    }
    expect(dues).toEqual([1_000, 1_100, 1_200, 1_300]);
    expect(r.log.some((l) => l.startsWith('sleep'))).toBe(false);
    expect(r.latency).toEqual([150, 200, 250, 300]);
  });

  it("paced: waits until each send's time, sends the sample a schedule names, nothing past the last send", async () => {
    const sends: PacedSends = { offsets_ms: [0, 250.5, 300, 1_000], payloads: [undefined, 7, undefined, 2] };
    const { r, pacer } = rig(
      blocking,
      { schedule: (name) => (name === 'r10' ? sends : undefined) },
      { took_ms: 100 },
    );
    for (let n = 0; n < 5; n++) {
      r.exec.scenario.iterationInTest = n;
      await pacer.iteration('x');
    }
    expect(r.log).toEqual([
      'send x 0 at 0 named undefined',
      // The wait is read to the fraction of a millisecond.
      'sleep 150.5',
      'send x 1 at 250.5 named 7',
      // Send 2 is due at 300 but send 1 ended at 350.5: it goes at once, late, without a wait.
      'send x 2 at 350.5 named undefined',
      'sleep 549.5',
      'send x 3 at 1000 named 2',
    ]);
    expect(r.latency).toEqual([100, 100, 150.5, 100]);
  });

  it('paced: reads the schedule of the scenario the VU is in now; a scenario it has none for sends nothing', async () => {
    const schedule = (name: string) =>
      name === 'r2' ? { offsets_ms: [0, 500] } : name === 'r4' ? { offsets_ms: [0, 250] } : undefined;
    const { r, pacer } = rig(blocking, { schedule }, { name: 'r2' });
    r.exec.scenario.iterationInTest = 1;
    await pacer.iteration('x');
    expect(pacer.due()).toBe(500);
    r.exec.scenario = { name: 'r4', startTime: 10_000, iterationInTest: 1 };
    clock_ms = 10_000;
    await pacer.iteration('x');
    expect(pacer.due()).toBe(10_250);
    r.exec.scenario = { name: 'other', startTime: 20_000, iterationInTest: 0 };
    await pacer.iteration('x');
    expect(r.log).toEqual([
      'sleep 500',
      'send x 1 at 500 named undefined',
      'sleep 250',
      'send x 1 at 10250 named undefined',
    ]);
  });

  it('turns: sends first, first + stride, ... each at its due time after the previous one ended', async () => {
    const sends: PacedSends = { offsets_ms: [0, 10, 100, 110, 200, 210, 300], measured: true };
    const { r, pacer } = rig(blocking, { schedule: () => sends }, { took_ms: 120 });
    await pacer.turns('seq', 1, 2);
    expect(r.log).toEqual([
      'sleep 10',
      'send seq 1 at 10 named undefined',
      // Send 3 was due at 110; send 1 ended at 130: at once.
      'send seq 3 at 130 named undefined',
      'send seq 5 at 250 named undefined',
    ]);
    expect(pacer.sends()).toBe(7);
    expect(r.latency).toEqual([120, 140, 160]);
  });

  it("turns: a warm-up's sends are paced but record no latency", async () => {
    const { r, pacer } = rig(blocking, { schedule: () => ({ offsets_ms: [0, 50], measured: false }) });
    await pacer.turns('seq', 0, 1);
    expect(r.log).toEqual([
      'send seq 0 at 0 named undefined',
      'sleep 50',
      'send seq 1 at 50 named undefined',
    ]);
    expect(r.latency).toEqual([]);
  });

  it('a stream: its send lag and late sends as it leaves, its latency when the kind says it ended', async () => {
    const { r, pacer } = rig(
      blocking,
      {
        endsLater: true,
        sendLag: {
          lag: { add: (ms) => r.lag.push(ms) },
          late: { add: (n) => r.late.push(n) },
          lateAfter_ms: 10,
        },
      },
      { took_ms: 5, start: 0 },
    );
    // 10/s; the VU reaches iteration 1 at 120 ms (20 ms late) and iteration 2 on time.
    for (const [n, at] of [
      [0, 0],
      [1, 120],
      [2, 200],
    ] as const) {
      r.exec.scenario.iterationInTest = n;
      clock_ms = at;
      await pacer.iteration('x');
    }
    expect(r.lag).toEqual([0, 20, 0]);
    expect(r.late).toEqual([0, 1, 0]);
    expect(r.latency).toEqual([]);
    clock_ms = 900;
    pacer.ended(100);
    expect(r.latency).toEqual([800]);
  });
});
