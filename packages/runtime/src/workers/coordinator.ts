/**
 * The supervisor's routing of a run over several workers: the first worker's plan decides how many
 * others start; setup's outcome goes to them, their output lines and metrics to the first worker,
 * an abort anywhere to everyone. Keeps each worker's final metrics (the REST API counts an ended worker by them).
 */
import type { RunSnapshot } from './merge.ts';
import type { PeerCommand, PeerMessage } from './messages.ts';
import { effectiveWorkers } from './plan.ts';

/** What the coordinator needs of the supervisor. */
export interface CoordinatorHost {
  /** Starts worker `index` of `count` (index >= 1). */
  start(index: number, count: number): void;
  /** Sends to worker `index`. */
  send(index: number, m: PeerCommand): void;
  /** Indexes of the running workers. */
  indexes(): number[];
}

/** Routes the workers' messages; `requested` is the worker count asked for. */
export class Coordinator {
  count = 1;
  #ready = 0;
  readonly #latest = new Map<number, RunSnapshot>();
  readonly #finalFrom = new Set<number>();

  constructor(
    readonly requested: number,
    readonly host: CoordinatorHost,
  ) {}

  /** Whether worker `index` sent its final metrics (a worker that ends without them failed). */
  finished(index: number): boolean {
    return this.#finalFrom.has(index);
  }

  /** Worker `index`'s final metrics, once it sent them. */
  final(index: number): RunSnapshot | undefined {
    return this.#finalFrom.has(index) ? this.#latest.get(index) : undefined;
  }

  /** Whether every other worker initialized its VUs. */
  get allReady(): boolean {
    return this.#ready >= this.count - 1;
  }

  /** Takes a message of worker `from`. */
  route(from: number, m: PeerMessage): void {
    const others = (fn: (i: number) => void) => {
      for (const i of this.host.indexes()) if (i !== from) fn(i);
    };
    switch (m.type) {
      case 'plan': {
        this.count = effectiveWorkers(this.requested, m.maxVus);
        this.host.send(0, { type: 'workers', count: this.count });
        for (let i = 1; i < this.count; i++) this.host.start(i, this.count);
        return;
      }
      case 'ready':
        this.#ready++;
        if (this.allReady) this.host.send(0, { type: 'peers-ready' });
        return;
      case 'setup-done':
        others((i) => this.host.send(i, m));
        return;
      case 'abort':
        others((i) => this.host.send(i, m));
        return;
      case 'output':
        this.host.send(0, { type: 'peer-output', index: m.index, chunk: m.chunk });
        return;
      case 'snapshot':
        this.#latest.set(from, m.snapshot);
        if (m.final) this.#finalFrom.add(from);
        if (from !== 0)
          this.host.send(0, { type: 'peer-snapshot', from, snapshot: m.snapshot, final: m.final });
        return;
    }
  }
}
