/** k6 durations in request params: a number of milliseconds or a Go-style string ('60s', '1m30s', '500ms'). */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/** Parses a k6 duration param into milliseconds; `what` names the param in the error. */
export function parseDuration_ms(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
    let total_ms = 0;
    PART.lastIndex = 0;
    let matched = 0;
    while (PART.lastIndex < text.length) {
      const m = PART.exec(text);
      if (!m) break;
      total_ms += Number(m[1]) * UNIT_MS[m[2]!]!;
      matched = PART.lastIndex;
    }
    if (text.length > 0 && matched === text.length) return total_ms;
  }
  throw new Error(
    `invalid ${what} ${JSON.stringify(value)}; expected a duration such as '10s' or a number of ms`,
  );
}
