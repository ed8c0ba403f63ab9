/**
 * A ramp as a load shape: one k6 `ramping-vus` scenario whose VUs go from one count to another, cut into
 * consecutive measurement windows that are judged as levels. Each window is named as a level of its planned
 * average VUs (`c2_13`); the measured loop tags a request's `scenario` with the window it started in
 * (WindowClock segments), so every per-level sub-metric, threshold and report row works unchanged. Runs
 * inside k6: no Node imports. The scenarios are built by buildRampPlan (scenarios.ts).
 */

/** VUs from `from` to `to` over `duration_s`. */
export interface Ramp {
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

/** The planned average VUs of each window, rounded to hundredths (the level a window reports). */
export function rampWindowLevels(ramp: Ramp, window_s: number): number[] {
  const count = Math.round(ramp.duration_s / window_s);
  if (count < 1 || Math.abs(count * window_s - ramp.duration_s) > 1e-6)
    throw new Error(
      `RAMP_DURATION=${ramp.duration_s}s is not a whole number of ${window_s}s windows (STEP_DURATION); make it ${Math.max(1, count) * window_s}s`,
    );
  const levels: number[] = [];
  for (let i = 0; i < count; i++) {
    const avg = (vuSeconds(ramp, (i + 1) * window_s) - vuSeconds(ramp, i * window_s)) / window_s;
    levels.push(Math.round(avg * 100) / 100);
  }
  if (new Set(levels).size < levels.length)
    throw new Error(
      `RAMP=${ramp.from}:${ramp.to} over ${count} windows gives two windows the same average VUs; use fewer, longer windows (STEP_DURATION)`,
    );
  return levels;
}
