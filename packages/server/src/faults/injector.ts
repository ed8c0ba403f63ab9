/**
 * Draws the fault of each inference request from FaultOptions with a seeded generator: at most one injected
 * status, independently a reset, independently a latency spike. Counts what it injected, per kind.
 */
import { Errors, ServerError } from '../errors.ts';
import { createRandom } from '@k6-triton/lib/random/random.ts';
import { CODE_BY_HTTP_STATUS, type FaultOptions } from './spec.ts';

/** What happens to one request. */
export type Fault =
  | { kind: 'status'; status: number }
  | { kind: 'reset' }
  | { kind: 'spike'; duration_ms: number };

/** Thrown for an injected reset: HTTP destroys the socket, gRPC answers UNAVAILABLE. */
export class ResetFault extends ServerError {
  constructor() {
    super('UNAVAILABLE', 'connection reset (fault injection)');
  }
}

/** One model's fault draws. */
export class FaultInjector {
  readonly #opts: FaultOptions;
  readonly #random: () => number;
  readonly #statuses: [number, number][];
  /** Faults injected so far, by kind ("status 503", "reset", "spike"). */
  readonly counts = new Map<string, number>();

  constructor(opts: FaultOptions) {
    this.#opts = opts;
    const rng = createRandom(opts.seed ?? 1);
    this.#random = () => rng.float();
    this.#statuses = Object.entries(opts.status ?? {}).map(([s, p]) => [Number(s), p]);
  }

  /** True when no fault can ever be drawn (requests skip the injector). */
  get idle(): boolean {
    return this.#statuses.every(([, p]) => p === 0) && !this.#opts.reset && !this.#opts.spike?.p;
  }

  /** The faults of the next request, in the order they apply (spike first, then reset or status). */
  draw(): Fault[] {
    const faults: Fault[] = [];
    const spike = this.#opts.spike;
    if (spike && spike.p > 0 && this.#random() < spike.p)
      faults.push({ kind: 'spike', duration_ms: spike.duration_ms });
    if (this.#opts.reset && this.#random() < this.#opts.reset) faults.push({ kind: 'reset' });
    else if (this.#statuses.length > 0) {
      let u = this.#random();
      for (const [status, p] of this.#statuses) {
        if (u < p) {
          faults.push({ kind: 'status', status });
          break;
        }
        u -= p;
      }
    }
    for (const f of faults) {
      const key = f.kind === 'status' ? `status ${f.status}` : f.kind;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
    return faults;
  }
}

/** Applies a request's faults: waits out a spike, throws the injected error or reset. */
export async function applyFaults(faults: Fault[]): Promise<void> {
  for (const f of faults) {
    if (f.kind === 'spike') await new Promise((resolve) => setTimeout(resolve, f.duration_ms));
    else if (f.kind === 'reset') throw new ResetFault();
    else throw injectedError(f.status);
  }
}

function injectedError(status: number): ServerError {
  const code = CODE_BY_HTTP_STATUS.get(status);
  if (!code) return Errors.internal(`injected fault with unknown status ${status}`);
  return new ServerError(code, `injected fault: status ${status} (fault injection)`);
}
