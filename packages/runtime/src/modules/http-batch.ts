/**
 * http.batch's concurrency, as k6's MakeBatchRequests: min(count, batch) workers take the requests in
 * order, and each waits for a slot of its request's host (batchPerHost; 0 is no limit) before sending.
 */

/** One request of a batch: its host (host:port) and how to send it. */
export interface BatchJob<T> {
  host: string;
  run: () => Promise<T>;
}

/** A counting semaphore: acquire() resolves when one of `size` slots is free. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((r) => this.#waiting.push(r));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/** Runs the jobs with at most `batch` in flight, and at most `perHost` per host (0: no per-host limit); results in order. */
export async function runBatch<T>(
  jobs: readonly BatchJob<T>[],
  batch: number,
  perHost: number,
): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  const hosts = new Map<string, Slots>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const job = jobs[i]!;
      let slots: Slots | undefined;
      if (perHost > 0) {
        slots = hosts.get(job.host);
        if (!slots) {
          slots = new Slots(perHost);
          hosts.set(job.host, slots);
        }
        await slots.acquire();
      }
      try {
        results[i] = await job.run();
      } finally {
        slots?.release();
      }
    }
  };
  const workers = Math.min(jobs.length, Math.max(1, batch));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
