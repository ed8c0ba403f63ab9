/**
 * A port's open connections in arrival order, capped: a newcomer past the cap takes the slot of the oldest
 * connection that holds no work (a client that connected and sent nothing, trickles its headers, or sits
 * idle between requests), so a crowd of such connections cannot lock out a health probe or a new call; only
 * when every connection is busy is the newcomer closed.
 */
import type { Socket } from 'node:net';

/** Open connections of one port, up to `limit`. */
export class ConnectionSlots {
  readonly #open = new Set<Socket>();
  readonly #limit: number;
  readonly #holdsNoWork: (socket: Socket) => boolean;

  /** `holdsNoWork(socket)`: whether closing the socket loses no request (it is then evicted first come). */
  constructor(limit: number, holdsNoWork: (socket: Socket) => boolean) {
    this.#limit = limit;
    this.#holdsNoWork = holdsNoWork;
  }

  /** Open connections now. */
  get size(): number {
    return this.#open.size;
  }

  /** Takes a new connection in, closing an idle one to make room; false (and closed) when none could go. */
  admit(socket: Socket): boolean {
    if (this.#open.size >= this.#limit && !this.#evictOne()) {
      socket.destroy();
      return false;
    }
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
    return true;
  }

  #evictOne(): boolean {
    for (const socket of this.#open) {
      if (this.#holdsNoWork(socket)) {
        this.#open.delete(socket);
        socket.destroy();
        return true;
      }
    }
    return false;
  }
}
