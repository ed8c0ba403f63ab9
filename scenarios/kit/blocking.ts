/**
 * Whether this script may make blocking calls (http.request, grpc Client.invoke). Real k6 runs each VU
 * on its own goroutine, where a blocking call costs less than a promise and an event-loop turn; the
 * Node runtime runs every VU on one event loop and refuses blocking calls, so there only the async
 * forms exist. The Node runtime is the one place a script sees Node's `process`.
 */
export function blockingCallsAllowed(): boolean {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return typeof node !== 'string';
}
