/** Value formatting of k6's summaries: durations (µs/ms/s), bytes (SI, as go-humanize) and plain numbers. */

/** Fixed decimals with trailing zeros dropped ("140.36", "7", "6.56109"). */
export function strip(v: number, decimals: number): string {
  if (!Number.isFinite(v)) return String(v);
  const s = v.toFixed(decimals);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** A time value in ms as k6 prints it: 0s, 88.01µs, 140.36ms, 6.45s, 1m2.5s; or in a fixed unit. */
export function formatTime(ms: number, unit: string | null = null): string {
  if (unit === 's') return `${strip(ms / 1000, 2)}s`;
  if (unit === 'ms') return `${strip(ms, 2)}ms`;
  if (unit === 'us') return `${strip(ms * 1000, 2)}µs`;
  if (ms === 0) return '0s';
  const a = Math.abs(ms);
  if (a < 0.001) return `${strip(ms * 1e6, 2)}ns`;
  if (a < 1) return `${strip(ms * 1000, 2)}µs`;
  if (a < 1000) return `${strip(ms, 2)}ms`;
  if (a < 60_000) return `${strip(ms / 1000, 2)}s`;
  const h = Math.floor(a / 3_600_000);
  const m = Math.floor((a % 3_600_000) / 60_000);
  const s = (a % 60_000) / 1000;
  return `${ms < 0 ? '-' : ''}${h ? `${h}h` : ''}${m}m${strip(s, 1)}s`;
}

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

/** Bytes in SI units as go-humanize prints them: "830 B", "4.9 kB", "519 kB", "7.1 MB". */
export function formatBytes(n: number): string {
  if (n < 10) return `${Math.round(n)} B`;
  const e = Math.min(Math.floor(Math.log(n) / Math.log(1000)), BYTE_UNITS.length - 1);
  const val = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10;
  return `${val < 10 ? val.toFixed(1) : val.toFixed(0)} ${BYTE_UNITS[e]}`;
}

/** A plain number: integers as-is, others with up to 6 decimals. */
export function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : strip(v, 6);
}

/** A value of a metric by its value type. */
export function formatValue(v: number, contains: string, timeUnit: string | null): string {
  if (contains === 'time') return formatTime(v, timeUnit);
  if (contains === 'data') return formatBytes(v);
  return formatNumber(v);
}

/** A percentage with two decimals ("100.00%"). */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(2)}%`;
}
