/**
 * The sequence loop on a fake transport that echoes like Triton's identity backend: every step of every
 * sequence is sent in order with the right flags, and a wrong echo or a failed request is counted (out of order,
 * orphaned) the same way by the blocking (real k6) and promise (Node runtime) forms.
 */
import { describe, expect, it } from 'vitest';
import { sequenceLoop } from '../../scenarios/kit/sequence-loop.ts';
import type { LoopExecution, SetupData } from '../../scenarios/kit/measured-loop.ts';
import { counters, echoModel, fakeTransport, type Sent } from './fakes.ts';

async function run(blocking: boolean, opts: Parameters<typeof fakeTransport>[1], iterations: number) {
  const sent: Sent[] = [];
  const warnings: string[] = [];
  const thrown: string[] = [];
  const c = counters();
  const exec: LoopExecution = {
    vu: { idInTest: 2, metrics: { tags: {} } },
    scenario: { name: 'c1', startTime: Date.now(), iterationInTest: 0 },
  };
  const model = echoModel(exec, 4);
  const loop = sequenceLoop({
    transport: fakeTransport(sent, opts),
    ...model,
    stride: 3,
    counters: c,
    blocking,
    check: () => false,
    warn: (line) => warnings.push(line),
  });
  // With a held request, the first iteration is left running while the VU goes on (its graceful stop passed).
  const behind = opts.holdAt ? loop.infer({} as SetupData) : undefined;
  while (opts.holdAt && sent.length < opts.holdAt) await new Promise((resolve) => setImmediate(resolve));
  for (let i = behind ? 1 : 0; i < iterations; i++) {
    try {
      await loop.infer({} as SetupData);
    } catch (error) {
      thrown.push(String(error));
    }
  }
  return { sent, totals: c.totals, warnings, behind, requests: model.requests, thrown };
}

describe.each([
  ['blocking', true],
  ['async', false],
])('sequence loop (%s)', (_, blocking) => {
  it('sends each sequence whole and in order: START first, END last, the VU’s own ids', async () => {
    const { sent, totals, warnings } = await run(blocking, {}, 2);
    expect(sent.map((s) => s.echo)).toEqual([
      [2, 0],
      [2, 1],
      [2, 2],
      [2, 3],
      [5, 0],
      [5, 1],
      [5, 2],
      [5, 3],
    ]);
    expect(sent.slice(0, 4).map((s) => s.parameters)).toEqual([
      { sequence_id: 2, sequence_start: true },
      { sequence_id: 2 },
      { sequence_id: 2 },
      { sequence_id: 2, sequence_end: true },
    ]);
    expect(totals).toEqual({ started: 2, completed: 2, outOfOrder: 0, orphaned: 0 });
    expect(warnings).toEqual([]);
  });

  it("counts a sequence whose response is another step's as out of order, once", async () => {
    const swap = (n: number, echo: number[]) => (n === 2 || n === 3 ? [echo[0]!, 5 - echo[1]!] : echo);
    const { totals, warnings } = await run(blocking, { mangle: swap }, 2);
    expect(totals).toEqual({ started: 2, completed: 2, outOfOrder: 1, orphaned: 0 });
    expect(warnings).toEqual(["m on http://fake: sequence 2: the response to step 1 is not that step's"]);
  });

  it('abandons a sequence at a failed request and counts it orphaned', async () => {
    const { sent, totals } = await run(blocking, { failAt: 2 }, 2);
    expect(sent.map((s) => s.echo[1])).toEqual([0, 1, 0, 1, 2, 3]);
    expect(totals).toEqual({ started: 2, completed: 1, outOfOrder: 0, orphaned: 1 });
  });

  it('counts a 200 that is no infer response as a failed, invalid request and abandons its sequence, throwing nothing', async () => {
    const { sent, totals, requests, thrown, warnings } = await run(blocking, { garbleAt: 2 }, 2);
    expect(thrown).toEqual([]);
    expect(sent.map((s) => s.echo[1])).toEqual([0, 1, 0, 1, 2, 3]);
    expect(totals).toEqual({ started: 2, completed: 1, outOfOrder: 0, orphaned: 1 });
    expect(requests).toEqual({ failed: 1, succeeded: 5, checked: 6, invalid: 1 });
    expect(warnings).toEqual(['m on http://fake: invalid response: body is text/html, not JSON']);
  });

  it('counts a sequence whose iteration was cut short as orphaned when the VU opens its next one', async () => {
    const { sent, totals } = await run(blocking, { cutAt: 3 }, 2);
    expect(sent.map((s) => s.echo)).toEqual([
      [2, 0],
      [2, 1],
      [2, 2],
      [5, 0],
      [5, 1],
      [5, 2],
      [5, 3],
    ]);
    expect(totals).toEqual({ started: 2, completed: 1, outOfOrder: 0, orphaned: 1 });
  });
});

describe('sequence loop (async), an iteration left running', () => {
  it('sends nothing more for a sequence already counted orphaned', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { sent, totals, behind } = await run(false, { holdAt: 2, gate }, 2);
    release();
    await behind;
    expect(sent.map((s) => s.echo)).toEqual([
      [2, 0],
      [2, 1],
      [5, 0],
      [5, 1],
      [5, 2],
      [5, 3],
    ]);
    expect(totals).toEqual({ started: 2, completed: 1, outOfOrder: 0, orphaned: 1 });
  });
});
