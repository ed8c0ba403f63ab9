/**
 * gRPC calls in progress per client connection, counted by the call interceptor and read by the port's
 * connection slots: a connection with no call in progress loses nothing when it makes room for a newcomer.
 */

/** A connection's key: its remote address and port, as both the socket and grpc-js's call report them. */
export function connectionKey(address: string | undefined, port: number | undefined): string {
  return `${address ?? '?'}:${port ?? 0}`;
}

/** Calls in progress, by connection key. */
export class ActiveCalls {
  readonly #byConnection = new Map<string, number>();

  /** A call started on the connection. */
  begin(key: string): void {
    this.#byConnection.set(key, (this.#byConnection.get(key) ?? 0) + 1);
  }

  /** A call on the connection ended (answered or cancelled). */
  end(key: string): void {
    const n = (this.#byConnection.get(key) ?? 0) - 1;
    if (n > 0) this.#byConnection.set(key, n);
    else this.#byConnection.delete(key);
  }

  /** Whether the connection has a call in progress. */
  busy(key: string): boolean {
    return this.#byConnection.has(key);
  }
}
