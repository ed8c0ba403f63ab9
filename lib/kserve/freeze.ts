/**
 * Deep freezing for what is built once and sent many times. A frozen request or params object tells
 * the Node runtime it cannot change, so it parses or encodes it once (real k6 ignores the freeze).
 */

/** Freezes a value and everything it holds (typed arrays and ArrayBuffers stay as they are). */
export function deepFreeze<T>(value: T): T {
  if (
    value === null ||
    typeof value !== 'object' ||
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer
  )
    return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
