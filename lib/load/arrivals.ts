/**
 * Open-loop arrival processes: when each request of a request-rate level is due. Constant spacing is
 * k6's constant-arrival-rate; Poisson (exponential gaps) and gamma (shape k: k < 1 burstier, k = 1 Poisson,
 * as genai-perf's and vLLM's --burstiness) draw their gaps from the one seeded generator (lib/random), so
 * a seed gives the same schedule in every VU, on every machine and in both runtimes. Runs inside k6: no
 * Node imports.
 */
import { createRandom, type Random } from '../random/random.ts';

/** How the gaps between a level's requests are spread; every process has mean gap 1 / rate. */
export type Arrivals =
  | { kind: 'constant' }
  | { kind: 'poisson' }
  | { kind: 'gamma' /** Shape k: the gaps' coefficient of variation is 1 / sqrt(k). */; shape: number };

/** The default: evenly spaced sends, as k6's constant-arrival-rate and perf_analyzer's default. */
export const CONSTANT_ARRIVALS: Arrivals = { kind: 'constant' };

/** Seed of the arrival schedules when ARRIVALS_SEED is unset. */
export const DEFAULT_ARRIVALS_SEED = 1;

const ARRIVALS_FIX =
  'use constant, poisson or gamma:<k> (k > 0; k < 1 burstier, k = 1 Poisson), e.g. ARRIVALS=gamma:0.5';

/** Parses ARRIVALS=constant|poisson|gamma:<k>; one line naming the setting and the fix when invalid. */
export function parseArrivals(text: string, name = 'ARRIVALS'): Arrivals {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'constant') return { kind: 'constant' };
  if (trimmed === 'poisson') return { kind: 'poisson' };
  const gamma = /^gamma:(\d+(?:\.\d+)?|\.\d+)$/.exec(trimmed);
  if (gamma) {
    const shape = Number(gamma[1]);
    if (shape > 0) return { kind: 'gamma', shape };
    throw new Error(`${name}="${text}" is invalid: the shape must be greater than 0; ${ARRIVALS_FIX}`);
  }
  throw new Error(`${name}="${text}" is invalid: unknown arrival process; ${ARRIVALS_FIX}`);
}

/** The setting's spelling of an arrival process (parseArrivals reads it back). */
export function formatArrivals(arrivals: Arrivals): string {
  return arrivals.kind === 'gamma' ? `gamma:${arrivals.shape}` : arrivals.kind;
}

/** A standard gamma deviate (scale 1) by Marsaglia and Tsang's squeeze; shape < 1 by the boost u^(1/k). */
export function gammaDeviate(rng: Random, shape: number): number {
  if (shape < 1) return gammaDeviate(rng, shape + 1) * (1 - rng.float()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = rng.normal();
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = 1 - rng.float();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A source of gaps (seconds) between consecutive requests at `rate` per second. */
export function gapSource(arrivals: Arrivals, rate: number, rng: Random): () => number {
  if (!(rate > 0)) throw new Error(`arrival rate ${rate} must be greater than 0`);
  switch (arrivals.kind) {
    case 'constant':
      return () => 1 / rate;
    case 'poisson':
      // 1 - u lies in (0, 1]: the logarithm stays finite.
      return () => -Math.log(1 - rng.float()) / rate;
    case 'gamma': {
      const scale = 1 / (arrivals.shape * rate);
      return () => gammaDeviate(rng, arrivals.shape) * scale;
    }
  }
}

/** Options of arrivalOffsets_ms. */
export interface ArrivalScheduleOptions {
  arrivals: Arrivals;
  /** Mean requests per second. */
  rate: number;
  /** Length of the stretch to fill, seconds. */
  duration_s: number;
  /** Seed of the one generator; the rate is mixed in so each level draws its own stream. @default 1 */
  seed?: number;
  /** Most arrivals to plan, a guard against a rate or duration typo. @default 10_000_000 */
  limit?: number;
}

/**
 * Send times of one level, milliseconds from its start, ascending, in [0, duration): the first request
 * goes at 0, each next one a drawn gap later (constant spacing gives k6's i / rate exactly).
 */
export function arrivalOffsets_ms(options: ArrivalScheduleOptions): number[] {
  const { rate, duration_s } = options;
  const limit = options.limit ?? 10_000_000;
  const rng = createRandom(options.seed ?? DEFAULT_ARRIVALS_SEED).fork(`arrivals:${rate}`);
  const gap = gapSource(options.arrivals, rate, rng);
  const end_ms = duration_s * 1000;
  const offsets: number[] = [];
  if (options.arrivals.kind === 'constant') {
    // Multiply rather than accumulate: no drift over a long window.
    for (let i = 0; i * (1000 / rate) < end_ms && i < limit; i++) offsets.push((i * 1000) / rate);
    return offsets;
  }
  for (let t_ms = 0; t_ms < end_ms && offsets.length < limit; t_ms += gap() * 1000) offsets.push(t_ms);
  return offsets;
}
