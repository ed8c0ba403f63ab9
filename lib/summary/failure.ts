/**
 * Levels whose requests failed. A refused connection returns at once, so a level against a dead server
 * has instant "requests" and an iteration that is all generator time: its figures would blame the load
 * generator. Such a level's verdict is its failure instead: "server unreachable: <first error>", "all
 * requests failed: <first error>", or the failed share when most failed. A level with no successful
 * request has no figures at all: perf_analyzer writes no row for it, and neither do the tables, plots and
 * CSV here. Pure.
 */
import { INVALID_RESPONSE, isInvalidResponse } from '../kserve/response.ts';
import { parseFirstErrorCheck } from '../load/names.ts';
import { formatCount } from './format.ts';
import type { LevelFailure, LevelResult } from './types.ts';

/** Above this share of failed requests (percent) a level's verdict is its failure. */
export const MOSTLY_FAILED_PCT = 50;

/** A check of the summary's root group, as far as this module reads it. */
interface SummaryCheck {
  name?: unknown;
}

/** The firstErrorCheck names in k6 summary data's root_group.checks, parsed, in the order k6 lists them. */
function firstErrorChecks(summary: object): NonNullable<ReturnType<typeof parseFirstErrorCheck>>[] {
  const group = (summary as { root_group?: { checks?: SummaryCheck[] } }).root_group;
  const checks = Array.isArray(group?.checks) ? group.checks : [];
  return checks.flatMap((check) => {
    const parsed = typeof check.name === 'string' ? parseFirstErrorCheck(check.name) : undefined;
    return parsed ? [parsed] : [];
  });
}

/** The first error recorded per level (firstErrorCheck names), from k6 summary data's root_group.checks. */
export function firstErrors(summary: object): Map<string, { error: string; noResponse: boolean }> {
  const found = new Map<string, { error: string; noResponse: boolean }>();
  // k6 lists checks in the order they were first made: the first one per level came first.
  for (const { level, error, noResponse } of firstErrorChecks(summary))
    if (!found.has(level)) found.set(level, { error, noResponse });
  return found;
}

/**
 * The first invalid response per level (an INVALID_RESPONSE first-error check), worded without that prefix:
 * `body is text/html, not JSON`. A VU notes one beside its first error when that was another failure.
 */
export function firstInvalid(summary: object): Map<string, string> {
  const found = new Map<string, string>();
  for (const { level, error } of firstErrorChecks(summary))
    if (isInvalidResponse(error) && !found.has(level)) found.set(level, error.slice(INVALID_RESPONSE.length));
  return found;
}

/** The level's failure when more than MOSTLY_FAILED_PCT of its requests failed; undefined otherwise. */
export function levelFailure(
  requests: number,
  errors: number,
  first?: { error: string; noResponse: boolean },
): LevelFailure | undefined {
  if (requests <= 0) return undefined;
  const failed_pct = (Math.min(errors, requests) / requests) * 100;
  if (failed_pct <= MOSTLY_FAILED_PCT) return undefined;
  return {
    failed_pct,
    ...(first ? { first_error: first.error } : {}),
    no_response: first?.noResponse ?? false,
  };
}

/** Whether at least one of the level's requests succeeded: only then has it figures to report. */
export function hasFigures(result: LevelResult): boolean {
  return result.requests > result.errors;
}

/** The levels with figures, in run order: table rows, plot points, CSV rows. */
export function levelsWithFigures(results: readonly LevelResult[]): LevelResult[] {
  return results.filter(hasFigures);
}

/** A share in percent, with a decimal near the ends so 99.7% never reads as 100%. */
function pct(value: number): string {
  return value.toFixed(value > 99 || value < 1 ? 1 : 0);
}

/** The verdict of a level whose requests (mostly) failed, e.g. `server unreachable: dial: connection refused`. */
export function failureVerdict(failure: LevelFailure): string {
  const cause = failure.first_error ? `: ${failure.first_error}` : '';
  if (failure.failed_pct < 100) return `${pct(failure.failed_pct)}% of requests failed${cause}`;
  return failure.no_response ? `server unreachable${cause}` : `all requests failed${cause}`;
}

/**
 * A level's invalid responses and their first cause, e.g. `1,204 of 1,204 responses invalid: body is text/html,
 * not JSON`; with sampled output checks, how many were checked.
 */
export function invalidVerdict(result: LevelResult): string {
  const invalid = result.responses_invalid ?? 0;
  const checked = result.responses_checked ?? 0;
  const sampled = checked < result.requests ? ` (outputs checked on ${formatCount(checked)})` : '';
  const cause = result.invalid_cause ? `: ${result.invalid_cause}` : '';
  return `${formatCount(invalid)} of ${formatCount(result.requests)} responses invalid${sampled}${cause}`;
}

/**
 * One line per level with failed requests to name, run order: a level with invalid responses names them and
 * their first cause; one whose requests mostly failed otherwise gets its failure's verdict; either says what
 * became of its figures when most failed.
 */
export function failureLines(results: readonly LevelResult[]): string[] {
  return results.flatMap((result) => {
    const invalid = (result.responses_invalid ?? 0) > 0;
    if (!result.failure && !invalid) return [];
    const verdict = invalid ? invalidVerdict(result) : failureVerdict(result.failure!);
    if (!result.failure) return [`${result.name}: ${verdict}`];
    const figures = hasFigures(result)
      ? `${pct(100 - result.failure.failed_pct)}% succeeded; its latencies include the failed requests`
      : 'no request succeeded: no figures, no CSV row';
    return [`${result.name}: ${verdict} (${figures})`];
  });
}
