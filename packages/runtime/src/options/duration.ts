/** k6 durations as k6 prints them; lib/duration.ts parses them. */

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
