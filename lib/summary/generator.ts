/**
 * The load generator's warning, in one wording for the console, report.md and summary.json readers:
 * a level whose iterations spend more than GENERATOR_OVERHEAD_LIMIT_PCT outside the request (or whose
 * generator saturates a core) measured the generator's limit, not the server's. Pure.
 */
import { GENERATOR_CPU_LIMIT_PCT, GENERATOR_OVERHEAD_LIMIT_PCT } from './from-summary.ts';
import { msFixed } from './format.ts';
import type { LevelResult } from './types.ts';

/** The warning for one level, or undefined when its generator kept up. */
export function generatorWarning(result: LevelResult): string | undefined {
  const cost = result.generator;
  if (!cost?.bound) return undefined;
  const reasons: string[] = [];
  if (cost.overhead_pct > GENERATOR_OVERHEAD_LIMIT_PCT) {
    reasons.push(
      `${cost.overhead_pct.toFixed(0)}% of each iteration (${msFixed(cost.overhead_us, 3)} ms) is the generator's own work`,
    );
  }
  if (cost.cpu_pct !== undefined && cost.cpu_pct >= GENERATOR_CPU_LIMIT_PCT) {
    reasons.push(`the generator used ${cost.cpu_pct.toFixed(0)}% of a core`);
  }
  return `${result.name}: load generator bound: ${reasons.join(' and ')}; the server may hold more`;
}

/** Every level's warning, in run order. */
export function generatorWarnings(results: readonly LevelResult[]): string[] {
  return results.map(generatorWarning).filter((line): line is string => line !== undefined);
}
