/**
 * The in-process lane of a small ONNX model: one main-thread session per model file, shared by its instances and
 * used only while none of them has a run in flight and its runs stay cheap. At concurrency 1 a run handed to a
 * worker thread pays two thread wake-ups, more than a small model's run itself (MNIST: perf_analyzer at c1 made
 * 2,029 infer/s through the worker against 2,984 with runs on the main thread, bench/server/RESULTS.md); under
 * concurrent load runs still go to the instances' threads, in parallel across cores.
 */
import { statSync } from 'node:fs';

/** Model files up to this size get a lane (a second session's memory is then small). */
export const INLINE_MAX_MODEL_BYTES = 4 * 1024 * 1024;

/** A run costing more than this (moving average) leaves the lane: blocking the event loop would cost more. */
export const INLINE_MAX_RUN_US = 250;

/** While runs look costly, one free run in this many still goes in-process to measure again. */
const RECHECK_EVERY = 64;

/** What the lane runs: the same contract as a worker's session. */
export interface LaneRunner<Feeds, Result> {
  run(feeds: Feeds, fetches: string[]): Promise<Result>;
  release(): Promise<void>;
}

/** One model file's lane and the count of runs in flight on any of its instances. */
export class InlineLane<Feeds, Result> {
  #inFlight = 0;
  #users = 0;
  #cost_us = 0;
  #skipped = 0;
  #warm = false;
  #runner: LaneRunner<Feeds, Result> | null = null;
  readonly #ready: Promise<void>;

  constructor(start: () => Promise<LaneRunner<Feeds, Result>>) {
    // A lane that cannot start is no lane: runs go to the worker threads as before.
    this.#ready = start().then(
      (runner) => {
        this.#runner = runner;
      },
      () => undefined,
    );
  }

  /** Resolves once the lane's session is loaded (or failed to). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * True when the next run is to go in-process: nothing in flight, a loaded session, cheap runs. A lane whose
   * runs looked costly still takes one run in RECHECK_EVERY, so a spike (the machine busy) does not close it.
   */
  claim(): boolean {
    if (this.#inFlight !== 0 || this.#runner === null) return false;
    if (this.#cost_us <= INLINE_MAX_RUN_US) return true;
    return ++this.#skipped % RECHECK_EVERY === 0;
  }

  /** Counts a run (in-process or on a worker) while `run` is in flight. */
  async track<T>(run: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await run();
    } finally {
      this.#inFlight--;
    }
  }

  /**
   * Runs in-process, timing the run into the lane's moving average. The first run is not timed: it is cold
   * (onnxruntime sets up its memory arena, V8 compiles), milliseconds for MNIST, and as the first sample it
   * kept the lane closed for about 1,800 requests while rechecks brought the average down.
   */
  async run(feeds: Feeds, fetches: string[]): Promise<Result> {
    const runner = this.#runner!;
    return this.track(async () => {
      const t0 = process.hrtime.bigint();
      const result = await runner.run(feeds, fetches);
      if (this.#warm) this.#time(Number(process.hrtime.bigint() - t0) / 1000);
      this.#warm = true;
      return result;
    });
  }

  #time(us: number): void {
    // A cheap run seen while the estimate says costly ends the closed spell at once: the estimate was a spike.
    if (this.#cost_us === 0 || (this.#cost_us > INLINE_MAX_RUN_US && us <= INLINE_MAX_RUN_US)) {
      this.#cost_us = us;
      return;
    }
    // A run preempted by the machine's other work counts at most 4x the estimate.
    this.#cost_us = this.#cost_us * 0.9 + Math.min(us, 4 * this.#cost_us) * 0.1;
  }

  /** One more instance uses the lane. */
  acquire(): void {
    this.#users++;
  }

  /** Called once the last user has released the lane. */
  onClosed: () => void = () => undefined;

  /** An instance is done with the lane; the last one frees its session. */
  async release(): Promise<void> {
    if (--this.#users > 0) return;
    this.onClosed();
    await this.#ready;
    const runner = this.#runner;
    this.#runner = null;
    await runner?.release();
  }
}

const lanes = new Map<string, InlineLane<unknown, unknown>>();

/** The lane of a model file (made at its first instance), or null when the file is too large for one. */
export function inlineLane<Feeds, Result>(
  modelPath: string,
  start: () => Promise<LaneRunner<Feeds, Result>>,
): InlineLane<Feeds, Result> | null {
  const file = statSync(modelPath);
  if (file.size > INLINE_MAX_MODEL_BYTES) return null;
  // A file replaced in place (a reload) gets a lane of its own, never the old file's session.
  const key = `${modelPath}\0${file.size}\0${file.mtimeMs}`;
  let lane = lanes.get(key) as InlineLane<Feeds, Result> | undefined;
  if (!lane) {
    const made = new InlineLane(start);
    lanes.set(key, made as InlineLane<unknown, unknown>);
    made.onClosed = () => {
      if (lanes.get(key) === (made as InlineLane<unknown, unknown>)) lanes.delete(key);
    };
    lane = made;
  }
  lane.acquire();
  return lane;
}
