/**
 * The clock a paced open loop reads its send times on. Runs inside k6: no Node imports.
 */

/**
 * Epoch ms on a sub-millisecond clock where the runtime has one (the Node runtime), else Date.now (k6): a paced
 * wait read in whole milliseconds would be up to one off.
 */
export const epochNow: () => number =
  typeof performance !== 'undefined' && typeof performance.timeOrigin === 'number'
    ? () => performance.timeOrigin + performance.now()
    : () => Date.now();
