/**
 * The measured loop's four shapes (blocking or async, closed or open loop) pinned together: the same
 * requests on fakes, with the same failures, record the same things (requests sent, window tags, checks,
 * failed-request Rate, validation counters, warnings); the open loop adds exactly one scheduled-start latency per
 * measured request. An invalid response (a 200 with an HTML page, a body that is not JSON) is a failed request,
 * never a thrown iteration.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const log: string[] = [];
vi.mock('k6', () => ({
  check: (value: unknown, checks: Record<string, (v: unknown) => boolean>) => {
    let ok = true;
    for (const [name, fn] of Object.entries(checks)) {
      const passed = fn(value);
      log.push(`check ${name}: ${passed}`);
      ok &&= passed;
    }
    return ok;
  },
}));

import { check } from 'k6';
import { WindowClock } from '../../lib/load/windows.ts';
import type { LevelSchedule } from '../../lib/load/pacing.ts';
import { type LoopExecution, measuredLoop, type SetupData } from '../../scenarios/kit/measured-loop.ts';
import type { InferOutcome, Transport } from '../../scenarios/kit/transport.ts';

const WINDOW_S = 3;
const START_MS = 1_000_000;
/** Failures by request number (counted over every request the VU sends). */
const FAILURES = new Map([
  [3, 'connection refused'],
  [7, 'status 500'],
]);
/** Requests answered 200 with a body that is no infer response: a send's check or the parse says so. */
const INVALID = new Map([
  [5, 'invalid response: body is text/html, not JSON'],
  [11, 'invalid response: body is not JSON (Unexpected token)'],
]);
const SETUP: SetupData = {
  expect: {
    outputs: [{ name: 'y', datatype: 'FP32', dims: [2] }],
    maxBatchSize: 0,
    batch: 1,
    checkLabels: false,
  },
};

let now_ms = START_MS;

/** A transport whose requests take 300 ms of the faked clock; every send is logged with the VU's window tag. */
function fakeTransport(exec: LoopExecution): Transport {
  let sent = 0;
  let invalid: string | undefined;
  const result = (how: string, sample: unknown): string | undefined => {
    const error = FAILURES.get(++sent);
    invalid = INVALID.get(sent);
    const wrong = error ?? invalid;
    log.push(
      `${how} ${String(sample)} window=${String(exec.vu.metrics.tags['window'])}${wrong ? ` -> ${wrong}` : ''}`,
    );
    now_ms += 300;
    return error;
  };
  const outcome = (error: string | undefined): InferOutcome => {
    const garbled = invalid;
    return {
      ok: error === undefined,
      error: () => error,
      outputs: () => {
        if (garbled) throw new Error(garbled);
        return {
          modelName: 'm',
          modelVersion: '1',
          outputs: [{ name: 'y', datatype: 'FP32', shape: [2], data: [0.1, 0.9] }],
        };
      },
    };
  };
  // A bound send checks the status and content type of every response; it says what an invalid one is.
  const sendResult = (sample: unknown) => result('send', sample) ?? invalid;
  const unused = () => Promise.reject(new Error('not used by the loop'));
  return {
    target: 'http://fake',
    prepare: (inputs) => inputs[0]!.name,
    infer: async (prepared) => outcome(result('infer', prepared)),
    inferSync: (prepared) => outcome(result('infer', prepared)),
    bind: (prepared) => ({
      sendSync: () => sendResult(prepared),
      send: async () => sendResult(prepared),
    }),
    noResponse: (error) => error.includes('refused'),
    serverLive: unused,
    modelReady: unused,
    modelMetadata: unused,
    modelConfig: unused,
    statistics: unused,
  };
}

/** Runs 2 warm-up and 10 measured iterations of one shape; returns what it recorded. */
async function runShape(
  blocking: boolean,
  open: boolean,
  pacing?: LevelSchedule,
): Promise<{ log: string[]; scheduled: number[] }> {
  log.length = 0;
  now_ms = START_MS;
  const scheduled: number[] = [];
  const level = open ? 'r10' : 'c1';
  const exec: LoopExecution = {
    vu: { idInTest: 1, metrics: { tags: {} } },
    scenario: { name: `${level}_warmup`, startTime: START_MS, iterationInTest: 0 },
  };
  const samples = ['a', 'b', 'c'].map((name) => ({
    inputs: [{ name, datatype: 'FP32' as const, shape: [2], data: new Uint8Array(8) }],
  }));
  const loop = measuredLoop({
    transport: fakeTransport(exec),
    exec,
    clock: new WindowClock(WINDOW_S, () => exec.scenario.startTime),
    modelName: 'm',
    samples,
    samplesFrom: () => {
      throw new Error('catalog samples are prepared at init');
    },
    validateEvery: 4,
    warmupChecks: 1,
    inferErrors: { add: (failed) => log.push(`infer_errors ${String(failed)}`) },
    responses: {
      checked: { add: (n) => log.push(`infer_checked ${String(n)}`) },
      invalid: { add: (n) => log.push(`infer_invalid ${String(n)}`) },
    },
    ...(open ? { scheduledLatency: { add: (ms: number | boolean) => scheduled.push(Number(ms)) } } : {}),
    ...(pacing
      ? {
          pacing: {
            schedule: (name: string) => (name === level ? pacing : undefined),
            // The faked clock jumps to the send time.
            sleep: (ms: number) => {
              log.push(`sleep ${ms}`);
              now_ms += ms;
              return blocking ? undefined : Promise.resolve();
            },
            now: () => now_ms,
          },
        }
      : {}),
    blocking,
    check,
    warn: (line) => log.push(`warn ${line}`),
  });
  for (let i = 0; i < 2; i++) await loop.warmup(SETUP);
  exec.scenario = { name: level, startTime: now_ms, iterationInTest: 0 };
  for (let i = 0; i < 10; i++) {
    await loop.infer(SETUP);
    exec.scenario.iterationInTest++;
  }
  // The level's name is the only difference between the closed and the open loop's records.
  return { log: log.map((line) => line.replaceAll(level, '<level>')), scheduled };
}

describe('measured loop', () => {
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockImplementation(() => now_ms);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('records the same requests, tags, checks and failures in all four shapes', async () => {
    const blockingClosed = await runShape(true, false);
    expect(blockingClosed.log).toEqual([
      // Warm-up: the first request validated, then sent as the measured loop does.
      'infer b window=undefined',
      'infer_checked 1',
      'check status is OK: true',
      'check outputs match the model: true',
      'infer_errors false',
      'send c window=undefined',
      'infer_errors false',
      // Measured: the first request validated, then one in 4; each request takes 300 ms, the sub-window tag moves every second.
      'infer a window=0 -> connection refused',
      'check status is OK: false',
      'check outputs match the model: false',
      'infer_errors true',
      'warn m on http://fake: connection refused',
      'check first error at <level> (no response): connection refused: false',
      'send b window=0',
      'infer_errors false',
      // A 200 whose content type is no infer response's: failed, invalid, and named as the level's first invalid one.
      'send c window=0 -> invalid response: body is text/html, not JSON',
      'infer_errors true',
      'infer_invalid 1',
      'check first error at <level>: invalid response: body is text/html, not JSON: false',
      'send a window=0',
      'infer_errors false',
      'infer b window=1 -> status 500',
      'check status is OK: false',
      'check outputs match the model: false',
      'infer_errors true',
      'send c window=1',
      'infer_errors false',
      'send a window=1',
      'infer_errors false',
      'send b window=2',
      'infer_errors false',
      // A checked 200 whose body does not parse: a failed check and a failed request, nothing thrown.
      'infer c window=2 -> invalid response: body is not JSON (Unexpected token)',
      'infer_checked 1',
      'check status is OK: true',
      'check outputs match the model: false',
      'infer_errors true',
      'infer_invalid 1',
      'send a window=2',
      'infer_errors false',
    ]);
    expect(blockingClosed.scheduled).toEqual([]);
    const asyncClosed = await runShape(false, false);
    const blockingOpen = await runShape(true, true);
    const asyncOpen = await runShape(false, true);
    expect(asyncClosed).toEqual(blockingClosed);
    expect(blockingOpen.log).toEqual(blockingClosed.log);
    expect(asyncOpen.log).toEqual(blockingClosed.log);
    // Open loop at 10/s: request n is due n * 100 ms after the level's start and ends (n + 1) * 300 ms after
    // it, so the generator's growing lag shows as latency.
    expect(blockingOpen.scheduled).toEqual(Array.from({ length: 10 }, (_, n) => 300 + 200 * n));
    expect(asyncOpen.scheduled).toEqual(blockingOpen.scheduled);
  });

  it('paces an open loop by its schedule: sleeps until each send time, sends the named sample, the same blocking or async', async () => {
    // Sends due every 500 ms take 300 ms: each waits 200 ms, so the latency from its send time is the 300 ms.
    const schedule: LevelSchedule = {
      offsets_ms: Array.from({ length: 10 }, (_, n) => n * 500),
      payloads: [2, undefined, 0, 0, undefined, undefined, undefined, undefined, undefined, 1],
    };
    const blockingPaced = await runShape(true, true, schedule);
    const asyncPaced = await runShape(false, true, schedule);
    expect(asyncPaced).toEqual(blockingPaced);
    expect(blockingPaced.scheduled).toEqual(Array.from({ length: 10 }, () => 300));
    const measured = blockingPaced.log.slice(blockingPaced.log.findIndex((l) => l.includes('refused')));
    expect(measured.filter((l) => l.startsWith('sleep'))).toEqual(
      Array.from({ length: 9 }, () => 'sleep 200'),
    );
    // Payload indexes pick the samples a, b, c; the other sends go on in turn (the turn counts every send).
    expect(measured.filter((l) => /^(send|infer) /.test(l)).map((l) => l.split(' ')[1])).toEqual([
      'c',
      'b',
      'a',
      'a',
      'b',
      'c',
      'a',
      'b',
      'c',
      'b',
    ]);
  });

  it('in a mix, builds the request bodies on the first request instead of in the init context', async () => {
    const exec: LoopExecution = {
      vu: { idInTest: 1, metrics: { tags: {} } },
      scenario: { name: 'r10_warmup', startTime: START_MS, iterationInTest: 0 },
    };
    const transport = fakeTransport(exec);
    const built: string[] = [];
    const samples = ['a', 'b'].map((name) => ({
      inputs: [{ name, datatype: 'FP32' as const, shape: [2], data: new Uint8Array(8) }],
    }));
    const loop = (prepareOnFirstUse: boolean) =>
      measuredLoop({
        transport: {
          ...transport,
          prepare: (inputs) => {
            built.push(inputs[0]!.name);
            return inputs[0]!.name;
          },
        },
        exec,
        clock: new WindowClock(WINDOW_S, () => exec.scenario.startTime),
        modelName: 'm',
        samples,
        prepareOnFirstUse,
        samplesFrom: () => {
          throw new Error('catalog samples come from the payload set');
        },
        validateEvery: 0,
        warmupChecks: 0,
        inferErrors: { add: () => {} },
        responses: { checked: { add: () => {} }, invalid: { add: () => {} } },
        blocking: true,
        check,
        warn: (line) => log.push(`warn ${line}`),
      });
    loop(false);
    expect(built).toEqual(['a', 'b']);
    built.length = 0;
    log.length = 0;
    const lazy = loop(true);
    expect(built).toEqual([]);
    lazy.warmup(SETUP);
    lazy.warmup(SETUP);
    expect(built).toEqual(['a', 'b']);
    expect(log).toEqual(['send b window=undefined', 'send a window=undefined']);
  });
});
