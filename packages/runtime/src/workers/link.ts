/**
 * A worker's side of a run on several workers: what the engine asks of the other workers (through
 * the supervisor) and what it hears from them. Plain messages (messages.ts), one port.
 */
import type { OutputChunk } from '../metrics/pipeline.ts';
import { ChunkWriter, type LineWriter } from '../outputs/writer.ts';
import type { RunSnapshot } from './merge.ts';
import type { PeerCommand, PeerMessage, SetupOutcome, WorkerRole } from './messages.ts';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The engine's view of the other workers. */
export class WorkerLink {
  count: number;
  readonly #post: (m: PeerMessage) => void;
  readonly #workers = deferred<number>();
  readonly #peersReady = deferred<void>();
  readonly #setup = deferred<SetupOutcome>();
  readonly #finals = new Map<number, RunSnapshot>();
  #finalsDone = deferred<RunSnapshot[]>();
  /** Each other worker's latest snapshot (the first worker's periodic threshold checks). */
  readonly latest = new Map<number, RunSnapshot>();
  #abort: { code: number; reason: string } | null = null;
  #onAbort: ((code: number, reason: string) => void) | null = null;
  /** Set by the first worker: another worker's lines for output `index`. */
  onPeerOutput: ((index: number, chunk: OutputChunk) => void) | null = null;

  constructor(
    readonly role: WorkerRole,
    post: (m: PeerMessage) => void,
  ) {
    this.count = role.count;
    this.#post = post;
  }

  /** Whether this is the first worker (setup, teardown, summary, output files). */
  get lead(): boolean {
    return this.role.index === 0;
  }

  /** Takes a message of the supervisor. */
  handle(m: PeerCommand): void {
    switch (m.type) {
      case 'workers':
        this.count = m.count;
        this.#workers.resolve(m.count);
        return;
      case 'peers-ready':
        this.#peersReady.resolve();
        return;
      case 'setup-done':
        this.#setup.resolve({ ok: m.ok, json: m.json });
        return;
      case 'abort':
        this.#abort ??= { code: m.code, reason: m.reason };
        this.#onAbort?.(m.code, m.reason);
        return;
      case 'peer-output':
        this.onPeerOutput?.(m.index, m.chunk);
        return;
      case 'peer-snapshot':
        this.latest.set(m.from, m.snapshot);
        if (m.final) {
          this.#finals.set(m.from, m.snapshot);
          if (this.#finals.size === this.count - 1) this.#finalsDone.resolve([...this.#finals.values()]);
        }
        return;
    }
  }

  /** First worker: reports the test's peak VUs; resolves with the run's worker count. */
  plan(maxVus: number): Promise<number> {
    this.#post({ type: 'plan', maxVus });
    return this.#workers.promise;
  }

  /** First worker: resolves once every other worker initialized its VUs. */
  peersReady(): Promise<void> {
    return this.count > 1 ? this.#peersReady.promise : Promise.resolve();
  }

  /** Other workers: VUs initialized. */
  ready(): void {
    this.#post({ type: 'ready' });
  }

  /** First worker: setup()'s outcome for the others. */
  shareSetup(outcome: SetupOutcome): void {
    this.#post({ type: 'setup-done', ...outcome });
  }

  /** Other workers: setup()'s outcome, from the first worker. */
  setup(): Promise<SetupOutcome> {
    return this.#setup.promise;
  }

  /** First worker: every other worker's final snapshot. */
  peersFinal(): Promise<RunSnapshot[]> {
    if (this.count <= 1) return Promise.resolve([]);
    return this.#finalsDone.promise;
  }

  /** Sends this worker's metrics. */
  sendSnapshot(snapshot: RunSnapshot, final: boolean): void {
    this.#post({ type: 'snapshot', snapshot, final });
  }

  /** Tells the other workers the run stops. */
  abort(code: number, reason: string): void {
    if (this.#abort) return;
    this.#abort = { code, reason };
    this.#post({ type: 'abort', code, reason });
  }

  /** Sets what an abort from another worker does (at once when one came already). */
  onAbort(fn: (code: number, reason: string) => void): void {
    this.#onAbort = fn;
    if (this.#abort) fn(this.#abort.code, this.#abort.reason);
  }

  /** Other workers: output `index`'s lines, relayed to the first worker's file. */
  relay(index: number): LineWriter {
    return new RelayWriter((chunk) => this.#post({ type: 'output', index, chunk }));
  }
}

/** A LineWriter that sends its buffered lines as chunks instead of writing a file. */
export class RelayWriter extends ChunkWriter {
  constructor(readonly send: (chunk: OutputChunk) => void) {
    super(true);
  }

  protected deliver(chunk: OutputChunk): void {
    this.send(chunk);
  }
}
