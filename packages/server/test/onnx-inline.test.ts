/**
 * The in-process lane of small ONNX models (backends/onnx-inline.ts): taken only while no run is in flight and
 * runs stay cheap, rechecked after costly runs, shared per model file and released by its last user.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  INLINE_MAX_MODEL_BYTES,
  INLINE_MAX_RUN_US,
  InlineLane,
  inlineLane,
  type LaneRunner,
} from '../src/backends/onnx-inline.ts';

/** A runner whose runs take `delay_us` (busy wait) and which counts its runs and releases. */
function fakeRunner(delay_us = 0) {
  const state = { runs: 0, released: 0, delay_us };
  const runner: LaneRunner<string, string> = {
    async run(feeds) {
      state.runs++;
      const until = process.hrtime.bigint() + BigInt(Math.round(state.delay_us * 1000));
      while (process.hrtime.bigint() < until) {}
      return `ran ${feeds}`;
    },
    async release() {
      state.released++;
    },
  };
  return { state, runner };
}

describe('the in-process lane', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-lane-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is free only once loaded and while nothing is in flight', async () => {
    const { runner } = fakeRunner();
    const lane = new InlineLane(async () => runner);
    expect(lane.claim()).toBe(false);
    await lane.ready();
    expect(lane.claim()).toBe(true);
    let release!: () => void;
    const onWorker = lane.track(() => new Promise<void>((r) => (release = r)));
    expect(lane.claim()).toBe(false);
    release();
    await onWorker;
    expect(lane.claim()).toBe(true);
    expect(await lane.run('x', [])).toBe('ran x');
  });

  it('stays closed when its session fails to load', async () => {
    const lane = new InlineLane<string, string>(async () => {
      throw new Error('no session');
    });
    await lane.ready();
    expect(lane.claim()).toBe(false);
  });

  it('leaves costly runs to the workers, but measures again one free run in 64', async () => {
    const { state, runner } = fakeRunner(INLINE_MAX_RUN_US * 3);
    const lane = new InlineLane(async () => runner);
    await lane.ready();
    await lane.run('x', []); // the cold first run, not timed
    expect(lane.claim()).toBe(true);
    await lane.run('x', []);
    const free = Array.from({ length: 128 }, () => lane.claim()).filter(Boolean).length;
    expect(free).toBe(2);
    // Cheap again: the next measurements bring the estimate down and the lane opens.
    state.delay_us = 0;
    for (let i = 0; i < 40; i++) await lane.run('x', []);
    expect(lane.claim()).toBe(true);
  });

  it('does not time its cold first run, and a cheap run after a spike opens it at once', async () => {
    const { state, runner } = fakeRunner(INLINE_MAX_RUN_US * 8);
    const lane = new InlineLane(async () => runner);
    await lane.ready();
    await lane.run('x', []);
    state.delay_us = 0;
    // Timing the cold run kept the lane closed for about 1,800 requests at MNIST's run cost.
    expect(Array.from({ length: 64 }, () => lane.claim()).every(Boolean)).toBe(true);
    // Costly for a while (a busy machine), then cheap again: the first cheap recheck reopens the lane, where
    // the moving average alone needed about 20 rechecks, 1,280 requests.
    state.delay_us = INLINE_MAX_RUN_US * 3;
    for (let i = 0; i < 3; i++) await lane.run('x', []);
    expect(lane.claim()).toBe(false);
    state.delay_us = 0;
    let refused = 0;
    while (!lane.claim()) refused++;
    expect(refused).toBeLessThan(64);
    await lane.run('x', []);
    expect(Array.from({ length: 64 }, () => lane.claim()).every(Boolean)).toBe(true);
  });

  it('is one per model file, released with its last user, and none for large files', async () => {
    const small = join(dir, 'small.onnx');
    writeFileSync(small, Buffer.alloc(100));
    const big = join(dir, 'big.onnx');
    writeFileSync(big, Buffer.alloc(INLINE_MAX_MODEL_BYTES + 1));
    const { state, runner } = fakeRunner();
    const a = inlineLane(small, async () => runner);
    const b = inlineLane(small, async () => runner);
    expect(a).not.toBeNull();
    expect(b).toBe(a);
    expect(inlineLane(big, async () => runner)).toBeNull();
    await a!.release();
    expect(state.released).toBe(0);
    await b!.release();
    expect(state.released).toBe(1);
    // A later load of the same file gets a new lane.
    const c = inlineLane(small, async () => runner);
    expect(c).not.toBe(a);
    await c!.release();
  });
});
