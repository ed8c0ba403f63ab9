/**
 * Whether a failed request got no answer from the server (refused, reset, timed out), read from the
 * failure as the KServe clients word it. Pure: the scenario's first-error check carries the answer, and the
 * report calls a level whose every request got none "server unreachable".
 */

/** HTTP: a failure with a status reads `HTTP <status>`; one without is k6's transport error. */
export function httpNoResponse(error: string): boolean {
  return !error.startsWith('HTTP ');
}

/**
 * gRPC: UNAVAILABLE is what a client reports when it cannot reach the server, or lost it; real k6 spells
 * the status by name (`status Unavailable`), the Node runtime by number (`status 14`).
 */
export function grpcNoResponse(error: string): boolean {
  return /^status (14|Unavailable)\b/.test(error);
}
