/**
 * The wait a paced VU makes before a send (lib/load/pacer.ts calls it). Runs inside k6.
 */
import { sleep } from 'k6';

/** A wait of ms: k6's sleep where blocking calls are allowed (real k6), else a timer's promise (the Node runtime). */
export function sleepFor(blocking: boolean): (ms: number) => void | Promise<void> {
  return blocking
    ? (ms) => sleep(ms / 1000)
    : (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms));
}
