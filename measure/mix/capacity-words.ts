/**
 * The capacity of a mix in words: what each model missed at a scale, the mix's total and parts, what limited
 * the search, and the one sentence capacity --mix answers with. Pure: measured mixes in, text out.
 */
import { us_to_ms } from '../../lib/units.ts';
import type { Answer, SearchConfig } from '../capacity/search.ts';
import { DEFAULT_MAX_TRIALS } from '../capacity/search.ts';
import { errorShare, type MixModelResult, type MixResult } from './mix-summary.ts';

/** A number for a sentence: thousands separated, at most `digits` decimals. */
export function fmt(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** What a model missed at a scale, e.g. "resnext101-32x4d's p95 212 ms (budget 200 ms)". */
export function missWords(m: MixModelResult): string[] {
  const r = m.result;
  if (!r) return [`${m.id} completed no request`];
  const out: string[] = [];
  const p95 = us_to_ms(r.latency_us.p95);
  const p99 = us_to_ms(r.latency_us.p99);
  if (!(p95 < m.limits.p95_ms))
    out.push(`${m.id}'s p95 ${fmt(p95, 1)} ms (budget ${fmt(m.limits.p95_ms, 3)} ms)`);
  if (!(p99 < m.limits.p99_ms))
    out.push(`${m.id}'s p99 ${fmt(p99, 1)} ms (budget ${fmt(m.limits.p99_ms, 3)} ms)`);
  if (errorShare(m) >= 1)
    out.push(
      `${m.id}'s errors ${fmt((r.errors / Math.max(1, r.requests)) * 100, 2)}% (budget < ${fmt(m.limits.error_rate * 100, 2)}%)`,
    );
  return out;
}

/** The mix's parts at a scale, e.g. "410 requests/s in total (bert-base 287, resnext101-32x4d 123)". */
function totalWords(result: MixResult): string {
  const parts = result.models.map((m) => `${m.id} ${fmt(m.requests_per_s, 1)}`).join(', ');
  return `${fmt(result.whole.requests_per_s, 1)} requests/s in total (${parts})`;
}

/**
 * The capacity of the mix as one sentence: the highest scale within every model's budget, its total and
 * parts, and what the next scale measured missed.
 */
export function mixCapacitySentence(
  name: string,
  best: MixResult | undefined,
  above: MixResult | undefined,
  limitDetail: string,
): string {
  const miss = above
    ? `at ${fmt(above.percent, 1)}% (${fmt(above.whole.requests_per_s, 1)} requests/s) ${above.models.flatMap(missWords).join(' and ') || 'a model missed its budget'}`
    : undefined;
  if (!best) return `The mix ${name} holds no load within every model's budget: ${miss ?? limitDetail}.`;
  return `The mix ${name} holds ${totalWords(best)} within every model's budget, at ${fmt(best.percent, 1)}% of its file's loads; ${miss ?? `limited by ${limitDetail}`}.`;
}

/** What limited the search when no scale above the answer missed a budget, in the mix's percent. */
export function mixLimitWords(
  answer: Pick<Answer, 'limit' | 'limit_detail'>,
  config: Pick<SearchConfig, 'max' | 'maxTrials'>,
  bound: readonly MixResult[],
): string {
  switch (answer.limit) {
    case 'ceiling':
      return `the search's ceiling, ${fmt(config.max, 1)}% (raise --max to search higher)`;
    case 'trials':
      return `the number of measurements: all ${config.maxTrials ?? DEFAULT_MAX_TRIALS} were used (raise --max-levels to search on)`;
    case 'generator':
      return `the load generator (bound at ${bound.map((r) => `${fmt(r.percent, 1)}%`).join(' and ')}); the server may hold more, measure with a faster client or another machine`;
    default:
      return answer.limit_detail;
  }
}
