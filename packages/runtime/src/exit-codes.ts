/**
 * k6's exit codes (go.k6.io/k6/errext/exitcodes), which the runtime gives as k6 does. The tool's own
 * codes (a failed command, unwritten results, an inconclusive budget, ...) extend these in
 * measure/core/exit-codes.ts.
 */
export const EXIT = {
  OK: 0,
  /** A threshold (budget) was crossed. */
  THRESHOLDS_FAILED: 99,
  SETUP_TIMEOUT: 100,
  TEARDOWN_TIMEOUT: 101,
  /** PATCH /v1/status with `stopped: true` (the REST API). */
  STOPPED_FROM_REST_API: 103,
  INVALID_CONFIG: 104,
  /** Stopped from outside: SIGINT or SIGTERM, for every command alike. */
  EXTERNAL_ABORT: 105,
  /** --address given and its port cannot be bound. */
  CANNOT_START_REST_API: 106,
  SCRIPT_EXCEPTION: 107,
  SCRIPT_ABORTED: 108,
  /** exec.test.fail() marked the test failed; it ran to its end. */
  MARKED_AS_FAILED: 110,
  /** k6's generic error, for a run refused before it starts (a bad --secret-source). */
  GENERIC: 255,
} as const;
