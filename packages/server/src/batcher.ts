/**
 * Scheduling as Triton does it, per model: a FIFO queue served by `instanceCount` model instances.
 * Without dynamic batching each request executes alone. With it, when an instance is free a batch forms from
 * the queue head, following Triton's dynamic batcher: send at once when the batch reaches a preferred size (or
 * the largest size allowed), otherwise wait up to max_queue_delay for the oldest request, then send what there is.
 * A full queue (max_queue_size) rejects; requests queued longer than their timeout are rejected when examined.
 */
import { Errors, type ServerError } from './errors.ts';
import { nowNs } from './stats.ts';

/** What the scheduler needs from a queued request. */
export interface Schedulable {
  /** The request's id ('' when none), for the words of a refusal. */
  readonly id: string;
  /** Inferences in the request (1 for models without a batch dimension). */
  readonly batchSize: number;
  /** Set by the scheduler on enqueue. */
  queue_start_ns: number;
  /** Queue timeout in microseconds from the request (0: the model's default). */
  readonly timeout_us: number;
  reject(err: ServerError): void;
}

/** The scheduling part of a model config. */
export interface BatcherOptions {
  maxBatchSize: number;
  instanceCount: number;
  /** Absent: no dynamic batching (each request executes alone). */
  dynamic?: {
    preferredBatchSizes: number[];
    maxQueueDelay_us: number;
    maxQueueSize: number;
    defaultTimeout_us: number;
    allowTimeoutOverride: boolean;
  };
}

/** Runs a batch on one instance and settles every request in it; the instance is busy until it resolves. */
export type ExecuteBatch<T extends Schedulable> = (batch: T[], instance: number) => Promise<void>;

/** One model's queue and batch former. */
export class Batcher<T extends Schedulable> {
  readonly #opts: BatcherOptions;
  readonly #execute: ExecuteBatch<T>;
  readonly #idle: number[];
  readonly #preferred: Set<number>;
  readonly #maxPreferred: number;
  #queue: T[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #timerAt_ns = 0;
  #executing = 0;
  #drainWaiters: (() => void)[] = [];

  constructor(opts: BatcherOptions, execute: ExecuteBatch<T>) {
    this.#opts = opts;
    this.#execute = execute;
    this.#idle = Array.from({ length: Math.max(1, opts.instanceCount) }, (_, i) => i);
    const preferred = opts.dynamic?.preferredBatchSizes ?? [];
    this.#preferred = new Set(preferred);
    // Triton: the largest preferred size, or max_batch_size when none is given.
    this.#maxPreferred = preferred.length > 0 ? Math.max(...preferred) : Math.max(1, opts.maxBatchSize);
  }

  /** Requests waiting in the queue (not yet executing). */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Queues a request and starts batches if an instance is free; throws queueFull when the queue is full. */
  enqueue(request: T): void {
    const maxQueue = this.#opts.dynamic?.maxQueueSize ?? 0;
    if (maxQueue > 0 && this.pending >= maxQueue) throw Errors.queueFull(request.id);
    request.queue_start_ns = nowNs();
    this.#queue.push(request);
    this.#schedule();
  }

  /** Resolves when the queue is empty and no batch is executing. */
  drain(): Promise<void> {
    if (this.pending === 0 && this.#executing === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Removes a request still waiting in the queue (its client went away); false when it already executes. */
  cancel(request: T): boolean {
    const index = this.#queue.indexOf(request, this.#head);
    if (index < 0) return false;
    this.#queue.splice(index, 1);
    // The head may have changed: a batch waiting on the cancelled request's delay can form differently.
    this.#schedule();
    return true;
  }

  /** Rejects every queued request (used when a model unloads with requests still queued). */
  rejectAll(err: ServerError): void {
    const queued = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const r of queued) r.reject(err);
    this.#notifyDrain();
  }

  #schedule(): void {
    while (this.#idle.length > 0 && this.pending > 0) {
      const now = nowNs();
      this.#rejectExpired(now);
      if (this.pending === 0) break;
      const decision = this.#opts.dynamic ? this.#formBatch(now) : { count: 1, wait_ns: 0 };
      if (decision.count === 0) {
        this.#armTimer(now + decision.wait_ns);
        break;
      }
      const batch = this.#queue.slice(this.#head, this.#head + decision.count);
      this.#head += decision.count;
      this.#compact();
      this.#run(batch, this.#idle.pop()!);
    }
    this.#notifyDrain();
  }

  /** Triton's GetDynamicBatch: how many queued requests to send now, or how long to wait. */
  #formBatch(now: number): { count: number; wait_ns: number } {
    const dyn = this.#opts.dynamic!;
    let total = 0;
    let count = 0;
    let bestPreferredCount = 0;
    let sendNow = false;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const size = Math.max(1, this.#queue[i]!.batchSize);
      if (
        total + size > this.#maxPreferred ||
        (this.#opts.maxBatchSize > 0 && total + size > this.#opts.maxBatchSize)
      ) {
        // A request larger than the largest preferred size still executes, alone.
        if (count === 0) count = 1;
        sendNow = true;
        break;
      }
      total += size;
      count += 1;
      if (this.#preferred.has(total)) bestPreferredCount = count;
      if (this.#opts.maxBatchSize === 0) break;
    }
    const delay_ns = dyn.maxQueueDelay_us * 1000;
    const waited_ns = now - this.#queue[this.#head]!.queue_start_ns;
    const delayExceeded = delay_ns > 0 && waited_ns >= delay_ns;
    if (bestPreferredCount > 0 && !delayExceeded) return { count: bestPreferredCount, wait_ns: 0 };
    if (sendNow || total >= this.#maxPreferred || this.#opts.maxBatchSize === 0) return { count, wait_ns: 0 };
    if (delayExceeded || delay_ns === 0) return { count, wait_ns: 0 };
    return { count: 0, wait_ns: delay_ns - waited_ns };
  }

  #rejectExpired(now: number): void {
    const dyn = this.#opts.dynamic;
    // Scan the queue only when some request can time out (keeps deep queues O(1) per schedule otherwise).
    if (!dyn || (dyn.defaultTimeout_us <= 0 && !dyn.allowTimeoutOverride)) return;
    let kept = this.#head;
    let rejected = false;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const r = this.#queue[i]!;
      const timeout_us = dyn.allowTimeoutOverride && r.timeout_us > 0 ? r.timeout_us : dyn.defaultTimeout_us;
      if (timeout_us > 0 && now - r.queue_start_ns >= timeout_us * 1000) {
        r.reject(Errors.timeout());
        rejected = true;
      } else {
        this.#queue[kept++] = r;
      }
    }
    if (rejected) this.#queue.length = kept;
  }

  #run(batch: T[], instance: number): void {
    this.#executing += 1;
    const done = () => {
      this.#executing -= 1;
      this.#idle.push(instance);
      this.#schedule();
    };
    this.#execute(batch, instance).then(done, (err: unknown) => {
      // execute settles every request itself; an escape here is a bug, so reject what it left.
      for (const r of batch) r.reject(Errors.internal(String(err)));
      done();
    });
  }

  #armTimer(at_ns: number): void {
    if ((this.#timer || this.#immediate) && this.#timerAt_ns <= at_ns) return;
    this.#clearTimer();
    this.#timerAt_ns = at_ns;
    const fire = () => {
      this.#timer = undefined;
      this.#immediate = undefined;
      this.#schedule();
    };
    const wait_ms = (at_ns - nowNs()) / 1e6;
    if (wait_ms >= 2) {
      // libuv's clock counts whole milliseconds, so a timer can fire up to 1 ms late: aim 1 ms
      // early; #schedule then re-arms for what is left, which the polling below waits exactly.
      this.#timer = setTimeout(fire, wait_ms - 1);
      return;
    }
    // Node timers cannot wait precisely below a couple of milliseconds, but Triton's queue delays are
    // often 100-1000 us: check the clock between event-loop turns (requests arriving meanwhile are read).
    const tick = () => {
      if (nowNs() >= at_ns) fire();
      else this.#immediate = setImmediate(tick);
    };
    this.#immediate = setImmediate(tick);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    } else if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    }
  }

  #notifyDrain(): void {
    if (this.#drainWaiters.length === 0 || this.pending > 0 || this.#executing > 0) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }
}
