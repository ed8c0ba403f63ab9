/**
 * The seam between the engine and a supervisor on another thread (supervisor.ts): the engine
 * announces its phases and their deadlines; the supervisor forwards signals and, when a phase
 * outlives its deadline (or a signal) because script code never yields, cuts the running
 * JavaScript short and says so. One event loop cannot interrupt itself; another thread can.
 */
import type { LiveShare, LiveSnapshot } from './api/types.ts';

import type { WorkerLink } from './workers/link.ts';

/** Phases of a run, in order (`paused`: --paused, waiting to start; `linger`: --linger, waiting for a signal). */
export type Phase = 'init' | 'paused' | 'setup' | 'scenarios' | 'teardown' | 'linger' | 'summary' | 'done';

/** What the REST API reaches of a loaded run (api/live.ts's LiveRun). */
export interface LiveControl {
  snapshot(): LiveSnapshot;
  /** k6's refusal, or null. */
  setPaused(pause: boolean): string | null;
  stop(): void;
  /** A run on several workers: this worker's raw metrics, which the supervisor merges. */
  share?(): LiveShare;
}

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
  /**
   * Called by the engine once the script is loaded and its options valid, with the REST API's side of the
   * run: k6 starts its API server at this point, so a client never finds it before the run can answer.
   */
  liveReady?: (live: LiveControl) => void;
}
