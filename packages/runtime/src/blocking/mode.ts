/**
 * How VUs run: on one event loop with k6's synchronous calls awaited (the loader's transform), or one
 * worker thread per VU whose synchronous calls block it (vu-thread-main.ts). The loader picks blocking
 * only where it cannot prove the transform; K6_TRITON_VU_MODE forces either (tests, benchmarks).
 */
import { ScriptLoadError } from '../loader/load-error.ts';

export type VuMode = 'auto' | 'blocking' | 'event-loop';

/** The environment variable that forces a mode. */
export const VU_MODE_ENV = 'K6_TRITON_VU_MODE';

/** K6_TRITON_VU_MODE's value (unset: auto); anything else is refused by name. */
export function vuModeFromEnv(env: Record<string, string | undefined>): VuMode {
  const v = env[VU_MODE_ENV];
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  if (v === 'blocking' || v === 'event-loop') return v;
  throw new ScriptLoadError(`${VU_MODE_ENV}="${v}" is not a VU mode; use blocking, event-loop or auto`);
}

/** The k6 modules a blocking VU has; a script importing another is refused at load, naming it. */
export const BLOCKING_MODULES: ReadonlySet<string> = new Set([
  'k6',
  'k6/http',
  'k6/metrics',
  'k6/execution',
  'k6/encoding',
  'k6/crypto',
  'k6/data',
  'k6/experimental/fs',
  'k6/experimental/csv',
]);

/** Why a run is in blocking mode, for the header: the loader's refusal, or the variable. */
export interface BlockingReason {
  /** "script.js:6:35 a callback makes a synchronous call", or "K6_TRITON_VU_MODE=blocking". */
  why: string;
}

/** The header line naming the mode (none in event-loop mode, the default). */
export function vuModeLine(reason: BlockingReason): string {
  return `blocking (one thread per VU: ${reason.why})`;
}

/** The load error for a module a blocking VU does not have. */
export function blockingRefusal(spec: string, reason: BlockingReason): ScriptLoadError {
  return new ScriptLoadError(
    `${spec} is not supported in the Node runtime's blocking VU mode (${reason.why}); make k6's ` +
      'synchronous calls through plain function calls from the exported functions, or run the script with k6',
  );
}
