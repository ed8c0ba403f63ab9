/**
 * Sequences at a request rate: a level's sends shared by N live sequences (send k to sequence k mod N), each
 * sequence's steps in order with START and END, a fresh id when one ends, the open one ended at its last send,
 * waits until each send is due and the scheduled-start latency of measured sends only. Run on fakes in the
 * blocking (real k6) and promise (Node runtime) forms.
 */
import { describe, expect, it } from 'vitest';
import { WINDOW_TAG } from '../../lib/load/names.ts';
import { sequenceLoop } from '../../scenarios/kit/sequence-loop.ts';
import { type ScenarioSends, sendsOf } from '../../lib/sequence/rate.ts';
import type { LoopExecution, SetupData } from '../../scenarios/kit/measured-loop.ts';
import { counters, echoModel, fakeTransport, type Sent } from './fakes.ts';

interface RateRun {
  /** Live sequences. */
  sequences: number;
  /** The scenario's sends (ms from its start) and whether they are measured. */
  sends: ScenarioSends;
  /** The slots (iterationInTest) to run, one after another. */
  slots: number[];
  failAt?: number;
  scenario?: string;
}

async function runRate(blocking: boolean, opts: RateRun) {
  const sent: Sent[] = [];
  const c = counters();
  const waits: number[] = [];
  const lags: number[] = [];
  const exec: LoopExecution = {
    vu: { idInTest: 1, metrics: { tags: {} } },
    scenario: { name: opts.scenario ?? 'r10', startTime: Date.now(), iterationInTest: 0 },
  };
  const loop = sequenceLoop({
    transport: fakeTransport(sent, opts.failAt !== undefined ? { failAt: opts.failAt } : {}),
    ...echoModel(exec, 3),
    stride: 10,
    counters: c,
    rate: {
      sequences: opts.sequences,
      sends: (name) => (name === exec.scenario.name ? opts.sends : undefined),
      // A fake wait: the clock moves on by the wait instead of sleeping.
      sleep: (ms) => {
        waits.push(ms);
        exec.scenario.startTime -= ms;
      },
      scheduledLatency: { add: (v) => lags.push(Number(v)) },
    },
    blocking,
    check: () => false,
    warn: () => {},
  });
  for (const slot of opts.slots) {
    exec.scenario.iterationInTest = slot;
    await loop.infer({} as SetupData);
  }
  return { sent, totals: c.totals, waits, lags, tags: exec.vu.metrics.tags };
}

const NOW = { offsets_ms: [0, 0, 0, 0, 0, 0, 0], measured: true };

describe.each([
  ['blocking', true],
  ['async', false],
])('sequences at a request rate (%s)', (_, blocking) => {
  it('sends every Nth send on one sequence, in order, a fresh id after END, the last one ended', async () => {
    const { sent, totals } = await runRate(blocking, { sequences: 2, sends: NOW, slots: [0] });
    // Slot 0 of 2 takes sends 0, 2, 4, 6: a whole sequence of 3, then a new one ended at the level's last send.
    expect(sent.map((s) => s.parameters)).toEqual([
      { sequence_id: 1, sequence_start: true },
      { sequence_id: 1 },
      { sequence_id: 1, sequence_end: true },
      { sequence_id: 11, sequence_start: true, sequence_end: true },
    ]);
    expect(sent.map((s) => s.echo)).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
      [11, 0],
    ]);
    expect(totals).toEqual({ started: 2, completed: 2, outOfOrder: 0, orphaned: 0 });
  });

  it('ends the open sequence at its slot’s last send and shares all sends between the slots', async () => {
    const { sent, totals } = await runRate(blocking, { sequences: 3, sends: NOW, slots: [0, 1, 2] });
    expect(sent).toHaveLength(NOW.offsets_ms.length);
    // Slot 1 takes sends 1 and 4 only: its sequence of 3 ends at its second step (the fake runs the slots on
    // one VU, so the ids go on from slot 0's).
    expect(sent.slice(3, 5).map((s) => s.parameters)).toEqual([
      { sequence_id: 11, sequence_start: true },
      { sequence_id: 11, sequence_end: true },
    ]);
    expect(totals).toEqual({ started: 3, completed: 3, outOfOrder: 0, orphaned: 0 });
  });

  it('waits for each send and records its lag only in a measured level', async () => {
    const sends = { offsets_ms: [0, 50, 100, 150], measured: true };
    const measured = await runRate(blocking, { sequences: 2, sends, slots: [1] });
    expect(measured.sent).toHaveLength(2);
    expect(measured.waits.length).toBe(2);
    expect(measured.waits.every((ms) => ms > 0 && ms <= 150)).toBe(true);
    expect(measured.lags).toHaveLength(2);
    const warmup = await runRate(blocking, {
      sequences: 2,
      sends: { ...sends, measured: false },
      slots: [0],
      scenario: 'r10_warmup',
    });
    expect(warmup.sent).toHaveLength(2);
    expect(warmup.lags).toEqual([]);
    // Only a window's requests carry the sub-window tag: a warm-up would set the clock on its own start.
    expect(measured.tags).toHaveProperty(WINDOW_TAG);
    expect(warmup.tags).not.toHaveProperty(WINDOW_TAG);
  });

  it('counts a sequence orphaned at a failed request and starts the next with START', async () => {
    const { sent, totals } = await runRate(blocking, { sequences: 1, sends: NOW, slots: [0], failAt: 2 });
    expect(sent.map((s) => s.parameters)).toEqual([
      { sequence_id: 1, sequence_start: true },
      { sequence_id: 1 },
      { sequence_id: 11, sequence_start: true },
      { sequence_id: 11 },
      { sequence_id: 11, sequence_end: true },
      { sequence_id: 21, sequence_start: true },
      { sequence_id: 21, sequence_end: true },
    ]);
    expect(totals).toEqual({ started: 3, completed: 2, outOfOrder: 0, orphaned: 1 });
  });
});

describe('sendsOf', () => {
  const times = { warmup_s: 1, window_s: 2, levelSchedule: () => undefined };

  it("spaces a level's sends evenly over its window and its warm-up's over the warm-up", () => {
    expect(sendsOf('r4', times)).toEqual({
      offsets_ms: [0, 250, 500, 750, 1000, 1250, 1500, 1750],
      measured: true,
    });
    expect(sendsOf('r4_warmup', times)).toEqual({ offsets_ms: [0, 250, 500, 750], measured: false });
  });

  it("takes a paced level's schedule for its window, not for its warm-up", () => {
    const paced = {
      ...times,
      levelSchedule: (name: string) => (name === 'r4' ? { offsets_ms: [0, 7] } : undefined),
    };
    expect(sendsOf('r4', paced)).toEqual({ offsets_ms: [0, 7], measured: true });
    expect(sendsOf('r4_warmup', paced)?.offsets_ms).toHaveLength(4);
  });

  it('has no sends for a stats probe or a closed-loop level', () => {
    expect(sendsOf('r4_stats', times)).toBeUndefined();
    expect(sendsOf('c4', times)).toBeUndefined();
  });
});
