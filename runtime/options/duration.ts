/** k6 durations: Go-style strings ("1m30s", "500ms", "1.5h") or numbers of milliseconds. */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const PART_RE = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/gy;

/** Parses a k6 duration to milliseconds; throws a one-line error naming `what` when invalid. */
export function parseDuration(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const s = value.trim();
    if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000; // k6 reads a bare string number as seconds
    let total = 0;
    let pos = 0;
    PART_RE.lastIndex = 0;
    while (pos < s.length) {
      PART_RE.lastIndex = pos;
      const m = PART_RE.exec(s);
      if (!m) break;
      total += Number(m[1]) * UNIT_MS[m[2]!]!;
      pos = PART_RE.lastIndex;
    }
    if (pos === s.length && s.length > 0) return total;
  }
  throw new Error(
    `invalid duration for ${what}: ${JSON.stringify(value)} (expected e.g. "30s", "1m30s", "500ms")`,
  );
}

/** Formats milliseconds the way k6 prints durations in its scenario lines ("1m30s", "500ms"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${+ms.toFixed(3)}ms`;
  let rest = ms / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const s = +rest.toFixed(3);
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
