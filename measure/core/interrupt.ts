/**
 * SIGINT and SIGTERM during a bench, handled as k6 handles them: the first signal stops the run
 * gracefully (the runtime gets it once, stops, writes its summary, and the finished levels are reported;
 * exit 105), a second stops everything at once. The bench owns its children's signals: they run in their
 * own process groups, so a terminal's Ctrl-C (sent to the bench's group) reaches them once, through here,
 * never twice (a second signal makes k6 exit without its summary).
 */
import { EXIT } from './exit-codes.ts';

/** The signals a bench honours. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** What a bench's parts register to hear about signals. */
export interface Interruption {
  /** The first signal and when it came (epoch ms); undefined while none has. */
  readonly first: { signal: StopSignal; at_ms: number } | undefined;
  /** Calls `stop` on the first signal (at once if one came already); returns the unregister function. */
  onStop(stop: (signal: StopSignal) => void): () => void;
  /** Calls `kill` on a second signal: the part must end its processes now. */
  onKill(kill: () => void): () => void;
  /** Removes the process signal handlers. */
  dispose(): void;
}

/** Installs the bench's SIGINT and SIGTERM handlers; the second signal kills the children and exits 105. */
export function watchSignals(exit: (code: number) => void = (code) => process.exit(code)): Interruption {
  let first: Interruption['first'];
  const stops = new Set<(signal: StopSignal) => void>();
  const kills = new Set<() => void>();
  const onSignal = (signal: StopSignal) => {
    if (first === undefined) {
      first = { signal, at_ms: Date.now() };
      console.error(`k6-triton: ${signal} received, stopping the run (again to stop at once)`);
      for (const stop of stops) stop(signal);
      return;
    }
    console.error(`k6-triton: ${signal} received again, stopping at once`);
    for (const kill of kills) kill();
    exit(EXIT.EXTERNAL_ABORT);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    get first() {
      return first;
    },
    onStop(stop) {
      if (first !== undefined) stop(first.signal);
      stops.add(stop);
      return () => stops.delete(stop);
    },
    onKill(kill) {
      kills.add(kill);
      return () => kills.delete(kill);
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
