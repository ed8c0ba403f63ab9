/**
 * The one parser of k6 durations: Go-style strings ('30s', '1m30s', '500ms', '1.5h', '2d') or numbers.
 * A bare number, and a string of one, is milliseconds, as k6 reads a duration option (checked against
 * k6 v2.2.0: `duration: '1500'` runs 1.5 s). Pure; the Node runtime, the scenarios (inside k6) and the
 * CLI's settings (lib/load/parse.ts, which asks for a unit) all parse with it; formatDuration_ms is its
 * one inverse.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
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

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/y;
const BARE_NUMBER = /^\d+(\.\d+)?$/;

/** Whether a duration string is a bare number (milliseconds to k6; without a unit to a reader). */
export function isBareNumber(text: string): boolean {
  return BARE_NUMBER.test(text.trim());
}

/** Parses a k6 duration into milliseconds; throws a one-line error naming `what` when it is not one. */
export function parseDuration_ms(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (BARE_NUMBER.test(text)) return Number(text);
    let total_ms = 0;
    let pos = 0;
    while (pos < text.length) {
      PART.lastIndex = pos;
      const match = PART.exec(text);
      if (!match) break;
      total_ms += Number(match[1]) * UNIT_MS[match[2]!]!;
      pos = PART.lastIndex;
    }
    if (text.length > 0 && pos === text.length) return total_ms;
  }
  throw new Error(
    `invalid duration for ${what}: ${JSON.stringify(value)} (expected e.g. "30s", "1m30s", "500ms", or a number of ms)`,
  );
}

/**
 * Formats milliseconds as k6 prints a duration (Go's time.Duration: "1m30s", "7.5s", "500ms", "0s");
 * parseDuration_ms reads every output back. The runtime's scenario lines and the scenarios k6 is given
 * both use it.
 */
export function formatDuration_ms(ms: number): string {
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
