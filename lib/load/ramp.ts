/**
 * A ramp as a load shape: one k6 `ramping-vus` scenario whose VUs go from one count to another, cut into
 * consecutive measurement windows that are judged as levels. Each window is named as a level of its planned
 * average VUs (`c2_13`); the measured loop tags a request's `scenario` with the window it started in
 * (WindowClock segments), so every per-level sub-metric, threshold and report row works unchanged. Runs
 * inside k6: no Node imports. The scenarios are built by buildRampPlan (scenarios.ts).
 */

/** VUs (closed loop) or arrivals per second (open loop) from `from` to `to` over `duration_s`. */
export interface Ramp {
  mode: 'concurrency' | 'request-rate';
  from: number;
  to: number;
  duration_s: number;
}

/** The ramping-vus scenario's name: not a level's name, so nothing reads it as one. */
export const RAMP_SCENARIO = 'ramp';

/** Windows a ramp gets when RAMP_DURATION is unset. */
export const DEFAULT_RAMP_WINDOWS = 4;

/**
 * Seconds x VUs from the ramp's start to `t_s`: k6's ramping-vus adds (or removes) one VU each time the
 * straight line from `from` to `to` crosses a whole number, so the count is from ± floor(n t / d).
 */
function vuSeconds(ramp: Ramp, t_s: number): number {
  const n = Math.abs(ramp.to - ramp.from);
  const u = (n * t_s) / ramp.duration_s;
  const k = Math.floor(u);
  const steps = (ramp.duration_s / n) * ((k * (k - 1)) / 2 + k * (u - k));
  return ramp.from * t_s + Math.sign(ramp.to - ramp.from) * steps;
}

/** Requests per second x seconds from an open-loop ramp's start to `t_s`: the straight line's area. */
function arrivals(ramp: Ramp, t_s: number): number {
  return ramp.from * t_s + ((ramp.to - ramp.from) * t_s * t_s) / (2 * ramp.duration_s);
}

/**
 * When an open-loop ramp's send number `slot` is due, ms after the ramp's start: where the arrivals so far
 * reach slot + 1, as real k6's ramping-arrival-rate starts its iteration `slot` (measured: never before it).
 */
export function rampDue_ms(ramp: Ramp, slot: number): number {
  const n = slot + 1;
  const a = ramp.from;
  const k = (ramp.to - ramp.from) / ramp.duration_s;
  // a t + k t^2 / 2 = n, the root that is >= 0 (written to stay exact as k nears 0).
  return ((2 * n) / (a + Math.sqrt(Math.max(0, a * a + 2 * k * n)))) * 1000;
}

/** The planned average VUs or rate of each window, rounded to hundredths (the level a window reports). */
export function rampWindowLevels(ramp: Ramp, window_s: number): number[] {
  const count = Math.round(ramp.duration_s / window_s);
  if (count < 1 || Math.abs(count * window_s - ramp.duration_s) > 1e-6)
    throw new Error(
      `RAMP_DURATION=${ramp.duration_s}s is not a whole number of ${window_s}s windows (STEP_DURATION); make it ${Math.max(1, count) * window_s}s`,
    );
  const levels: number[] = [];
  for (let i = 0; i < count; i++) {
    const area = ramp.mode === 'request-rate' ? arrivals : vuSeconds;
    const avg = (area(ramp, (i + 1) * window_s) - area(ramp, i * window_s)) / window_s;
    levels.push(Math.round(avg * 100) / 100);
  }
  if (new Set(levels).size < levels.length)
    throw new Error(
      `${ramp.mode === 'request-rate' ? 'RAMP_RATE' : 'RAMP'}=${ramp.from}:${ramp.to} over ${count} windows gives two windows the same average; use fewer, longer windows (STEP_DURATION)`,
    );
  return levels;
}
