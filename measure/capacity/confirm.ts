/**
 * The linear pass that checks a capacity answer, pure: which levels to measure after the search, and whether
 * what they showed confirms it (the answer within budget, and the level the search found outside the budget
 * in every measurement, `answer.above`, outside). The levels between them are within noise of the budget
 * (search.ts): the pass measures them but does not judge them. The pass is the linear sweep the search saved
 * (every concurrency from --start to that level), so the two counts of measured levels can be compared; the
 * measuring itself is the caller's (measure.ts).
 */
import type { LoadMode } from '../../lib/load/shapes.ts';
import {
  type Answer,
  type Measurement,
  type Miss,
  misses,
  type Noise,
  noiseWords,
  type SearchBudget,
} from './search.ts';

/** A linear range longer than this is cut to the answer and `next` (a 256-level pass is hours). */
export const MAX_LINEAR_LEVELS = 64;

/** Where the search ran: its mode, first level and ceiling. */
export interface ConfirmRange {
  mode: LoadMode;
  start: number;
  max: number;
}

/** The levels of the confirmation pass and what they are. */
export interface ConfirmPlan {
  levels: number[];
  /** 'linear': every level from start to `next`; 'around': only the answer and `next`. */
  kind: 'linear' | 'around';
  /** The level that must be outside the budget (the search's `above`); undefined when it found none. */
  next: number | undefined;
}

/** One level of the pass as judged against the budget. */
export interface ConfirmLevel {
  measurement: Measurement;
  misses: Miss[];
}

/** What the confirmation pass found, as capacity.json stores it. */
export interface Confirmation {
  kind: ConfirmPlan['kind'];
  levels: number[];
  /** Every level of the pass as measured and judged, in order. */
  measured: ConfirmLevel[];
  /** The search's answer that was checked (null: no level within budget). */
  answer: number | null;
  /** The answer level as the pass measured it; undefined when the answer was null. */
  at?: ConfirmLevel;
  /** The level `next` (the first level, when the answer was null) as the pass measured it. */
  next?: ConfirmLevel;
  /** The search's levels within noise of the budget, between the answer and `next`: not judged. */
  noise: Noise;
  /** The pass's own answer, read as a linear sweep reads: the last level before its first miss. */
  linear_answer: number | null;
  /** Measured levels of the search (retries and confirmations counted), against the pass's levels.length. */
  search_levels: number;
  /** Distinct levels among them. */
  search_distinct_levels: number;
  confirms: boolean;
  /** The bench folder of the pass. */
  dir?: string;
}

/** The levels to measure to check `answer`. */
export function confirmPlan(range: ConfirmRange, answer: Answer): ConfirmPlan {
  if (answer.level === null) {
    // Nothing within budget: the first level must miss, or, when it was noise, the level the search found outside.
    const next = answer.above?.level ?? range.start;
    if (range.mode === 'concurrency' && next - range.start + 1 <= MAX_LINEAR_LEVELS) {
      const levels = Array.from({ length: next - range.start + 1 }, (_, i) => range.start + i);
      return { levels, kind: 'linear', next };
    }
    return { levels: next === range.start ? [next] : [range.start, next], kind: 'linear', next };
  }
  // The lowest level the search established outside the budget: a level within noise of it may pass or not.
  const step = answer.above?.level;
  const next = step !== undefined && step <= range.max ? step : undefined;
  const top = next ?? answer.level;
  if (range.mode === 'concurrency' && top - range.start + 1 <= MAX_LINEAR_LEVELS) {
    const levels = Array.from({ length: top - range.start + 1 }, (_, i) => range.start + i);
    return { levels, kind: 'linear', next };
  }
  return { levels: next === undefined ? [answer.level] : [answer.level, next], kind: 'around', next };
}

/** Judges the pass's measurements (in the plan's order) against the budget and the search's answer. */
export function judgeConfirmation(
  plan: ConfirmPlan,
  answer: Answer,
  measurements: readonly Measurement[],
  budget: SearchBudget,
  /** The levels the search measured, in order, retries included. */
  searchLevels: readonly number[],
): Confirmation {
  const judged = measurements.map((m) => ({ measurement: m, misses: misses(m, budget) }));
  const find = (level: number | undefined) =>
    level === undefined ? undefined : judged.find((j) => j.measurement.level === level);
  const at = answer.level === null ? undefined : find(answer.level);
  const next = find(plan.next);
  const firstMiss = judged.findIndex((j) => j.misses.length > 0);
  const beforeMiss = firstMiss < 0 ? judged[judged.length - 1] : judged[firstMiss - 1];
  const linear_answer = plan.kind === 'linear' ? (beforeMiss?.measurement.level ?? null) : null;
  const nextOutside = plan.next === undefined || (next !== undefined && next.misses.length > 0);
  const confirms =
    answer.level === null ? nextOutside : at !== undefined && at.misses.length === 0 && nextOutside;
  return {
    kind: plan.kind,
    levels: plan.levels,
    measured: judged,
    answer: answer.level,
    ...(at ? { at } : {}),
    ...(next ? { next } : {}),
    noise: answer.noise,
    linear_answer,
    search_levels: searchLevels.length,
    search_distinct_levels: new Set(searchLevels).size,
    confirms,
  };
}

const num = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

function levelText(j: ConfirmLevel | undefined, level: number, budget: SearchBudget): string {
  if (!j) return `${num(level)} was not measured`;
  const m = j.measurement;
  const figures = `p95 ${Number.isFinite(m.p95_ms) ? m.p95_ms.toFixed(2) : 'n/a'} ms, p99 ${Number.isFinite(m.p99_ms) ? m.p99_ms.toFixed(2) : 'n/a'} ms, errors ${(m.error_rate * 100).toFixed(2)}%`;
  return j.misses.length === 0
    ? `${num(level)} within budget (${figures})`
    : `${num(level)} outside it (missed ${j.misses.join(', ')}: ${figures}; budget p95 ${budget.p95_ms} ms, p99 ${budget.p99_ms} ms)`;
}

/** The verdict in one sentence, e.g. "confirmed: a linear bench over 1..14 (14 levels; the search measured 10): ...". */
export function confirmationSentence(c: Confirmation, budget: SearchBudget): string {
  const searched =
    c.search_distinct_levels === c.search_levels
      ? `the search measured ${c.search_levels}`
      : `the search measured ${c.search_levels}, ${c.search_distinct_levels} distinct`;
  const range =
    c.kind === 'linear'
      ? `a linear bench over ${num(c.levels[0]!)}..${num(c.levels[c.levels.length - 1]!)} (${c.levels.length} level${c.levels.length === 1 ? '' : 's'}; ${searched})`
      : `a bench at ${c.levels.map(num).join(' and ')} (the levels around the answer; ${searched})`;
  const nextLevel = c.next?.measurement.level ?? (c.answer === null ? c.levels[0] : undefined);
  const noise = noiseWords(c.noise);
  const parts =
    c.answer === null
      ? [
          `no level within budget: ${noise ? `${noise} (not judged), ` : ''}${levelText(c.next, nextLevel ?? 0, budget)}`,
        ]
      : [
          levelText(c.at, c.answer, budget),
          ...(noise ? [`${noise} (not judged)`] : []),
          nextLevel === undefined
            ? 'no level above it was found outside the budget'
            : levelText(c.next, nextLevel, budget),
        ];
  const own =
    c.kind === 'linear' && c.linear_answer !== c.answer
      ? `; the linear bench alone would answer ${c.linear_answer === null ? 'no level' : num(c.linear_answer)}`
      : '';
  return `${c.confirms ? 'confirmed' : 'NOT confirmed'}: ${range}: ${parts.join(', ')}${own}`;
}
