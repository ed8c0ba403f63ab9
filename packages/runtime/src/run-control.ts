/**
 * The seam between the engine and a supervisor on another thread (supervisor.ts): the engine
 * announces its phases and their deadlines; the supervisor forwards signals and, when a phase
 * outlives its deadline (or a signal) because script code never yields, cuts the running
 * JavaScript short and says so. One event loop cannot interrupt itself; another thread can.
 */

import type { WorkerLink } from './workers/link.ts';

/** Phases of a run, in order. */
export type Phase = 'init' | 'setup' | 'scenarios' | 'teardown' | 'summary' | 'done';

/** The engine's side of a supervised run. */
export interface RunControl {
  /** The engine enters `phase`, which k6 would cut short at `deadline_epoch_ms` (null: never). */
  phase(phase: Phase, deadline_epoch_ms: number | null): void;
  /** Set by the engine: the supervisor received SIGINT or SIGTERM. */
  onSignal: ((signal: string) => void) | null;
  /** Set by the engine: the supervisor terminated the JavaScript the phase was running. */
  onInterrupted: (() => void) | null;
  /** A run on several workers: this worker's link to the others (workers/link.ts). */
  workers?: WorkerLink;
}
