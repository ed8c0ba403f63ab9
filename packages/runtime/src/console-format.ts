/**
 * How k6's console prints its arguments (k6's internal/js/console.go): strings as they are, functions
 * as `[object Function]`, errors as `Error: message`, objects and arrays as `{ a: 1, b: "x" }` and
 * `[ 1, 2 ]` (nested strings quoted, undefined and null as `null`, cycles as `[Circular]`), dates as
 * their quoted ISO string, binary data as Node prints it.
 */

const FUNCTION = '[object Function]';

/** One console argument as k6 prints it. */
export function consoleValue(v: unknown): string {
  if (typeof v === 'function') return FUNCTION;
  if (v instanceof Error) return String(v);
  if (v === null || typeof v !== 'object') return primitive(v, false);
  return nested(v, new Set());
}

/** A primitive; `quote` puts strings in double quotes, as k6 does inside objects. */
function primitive(v: unknown, quote: boolean): string {
  if (typeof v === 'string') return quote ? `"${v}"` : v;
  if (typeof v === 'symbol') return v.description ?? '';
  return String(v);
}

function nested(v: unknown, seen: Set<object>): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'function') return FUNCTION;
  if (typeof v !== 'object') return primitive(v, true);
  if (seen.has(v)) return '[Circular]';
  seen.add(v);
  try {
    return objectText(v, seen);
  } finally {
    seen.delete(v);
  }
}

function objectText(v: object, seen: Set<object>): string {
  if (v instanceof Error) return String(v);
  if (v instanceof ArrayBuffer) {
    const bytes = [...new Uint8Array(v)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    return `ArrayBuffer { [Uint8Contents]: <${bytes}>, byteLength: ${v.byteLength} }`;
  }
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const items = Array.from(v as unknown as ArrayLike<unknown>, String);
    return `${v.constructor.name}(${items.length}) ${items.length === 0 ? '[]' : `[ ${items.join(', ')} ]`}`;
  }
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[ ${v.map((x) => nested(x, seen)).join(', ')} ]`;
  const keys = Object.keys(v);
  if (keys.length === 0) {
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? '{}' : `"${v.toISOString()}"`;
    return '{}';
  }
  const record = v as Record<string, unknown>;
  return `{ ${keys.map((k) => `${k}: ${nested(record[k], seen)}`).join(', ')} }`;
}
