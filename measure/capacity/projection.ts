/** Planning from a measured capacity: how many servers a target inference rate needs, and the headroom left. */
import { type Answer, type Measurement, misses, type SearchBudget } from './search.ts';

/** Servers needed for a target rate and what is left over. */
export interface Projection {
  target_infer_s: number;
  per_server_infer_s: number;
  servers: number;
  /** Capacity of that many servers. */
  total_infer_s: number;
  /** (total − target) / target, percent. */
  headroom_pct: number;
  /** target / total: how loaded each server runs, percent of its measured capacity. */
  utilisation_pct: number;
  /** The measured level the plan rests on (its stable measurement within budget), when one was chosen. */
  level?: number;
}

/**
 * The measurement a server-count plan rests on: the answer's when it was stable, else the highest level at or
 * below the answer measured stable and within budget; undefined when there is none (a level not judged for
 * stability counts as stable). An unstable level's figures can be off by its whole spread.
 */
export function planningBasis(
  measurements: readonly Measurement[],
  answer: Pick<Answer, 'level' | 'measurement'>,
  budget: SearchBudget,
): Measurement | undefined {
  if (answer.level === null) return undefined;
  if (answer.measurement && answer.measurement.stable !== false) return answer.measurement;
  const top = answer.level;
  const held = measurements.filter(
    (m) => m.level <= top && m.stable !== false && m.throughput_infer_s > 0 && misses(m, budget).length === 0,
  );
  // The highest level, and of its measurements the last.
  return held.reduce<Measurement | undefined>(
    (best, m) => (!best || m.level >= best.level ? m : best),
    undefined,
  );
}

/** Projects servers for `target_infer_s` from one server's measured capacity (within budget). */
export function project(target_infer_s: number, per_server_infer_s: number): Projection {
  if (!(target_infer_s > 0))
    throw new Error(`--target-rate must be a positive number of inferences/s, got ${target_infer_s}`);
  if (!(per_server_infer_s > 0))
    throw new Error('no capacity was measured within budget, so no number of servers meets --target-rate');
  // Throughput adds across independent servers behind a balancer; latency per server stays as measured.
  const servers = Math.ceil(target_infer_s / per_server_infer_s);
  const total_infer_s = servers * per_server_infer_s;
  return {
    target_infer_s,
    per_server_infer_s,
    servers,
    total_infer_s,
    headroom_pct: ((total_infer_s - target_infer_s) / target_infer_s) * 100,
    utilisation_pct: (target_infer_s / total_infer_s) * 100,
  };
}
