/**
 * Parsers for the load settings users pass by environment (CONCURRENCY, REQUEST_RATE, STEP_DURATION, ...).
 * Runs inside k6: no Node imports. Every error is one line naming the variable and the fix.
 */
import { isBareNumber, parseDuration_ms } from '../duration.ts';

/** Most levels one range may expand to; a typo like 1:100000 should fail fast, not plan a day-long run. */
export const MAX_LEVELS = 512;

/** Which kind of number a level list holds. */
export interface LevelParseOptions {
  /** Concurrency levels are whole VU counts; request rates may be fractional (perf_analyzer takes doubles). @default true */
  integer?: boolean;
}

function fail(name: string, text: string, reason: string, fix: string): never {
  throw new Error(`${name}="${text}" is invalid: ${reason}; ${fix}`);
}

function levelNumber(name: string, text: string, part: string, integer: boolean, fix: string): number {
  const trimmed = part.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) fail(name, text, `"${trimmed}" is not a number`, fix);
  const value = Number(trimmed);
  if (integer && !Number.isInteger(value)) fail(name, text, `"${trimmed}" is not a whole number`, fix);
  if (value <= 0) fail(name, text, `"${trimmed}" must be greater than 0`, fix);
  return value;
}

/**
 * Parses perf_analyzer's range syntax `start:end[:step]` (step defaults to 1) or a list `1,2,4,8`
 * into ascending, de-duplicated levels.
 */
export function parseLevels(name: string, text: string, options: LevelParseOptions = {}): number[] {
  const integer = options.integer ?? true;
  const example = integer ? '1:8 or 1:16:2 or 1,2,4,8' : '10:100:10 or 50,100,200';
  const fix = `use start:end[:step] or a comma-separated list, e.g. ${name}=${example}`;
  const trimmed = text.trim();
  if (trimmed === '') fail(name, text, 'it is empty', fix);
  let levels: number[];
  if (trimmed.includes(':')) {
    const parts = trimmed.split(':');
    if (parts.length > 3) fail(name, text, 'a range has at most three parts', fix);
    const [start, end, step] = parts.map((part) => levelNumber(name, text, part, integer, fix)) as [
      number,
      number,
      number | undefined,
    ];
    if (end < start) fail(name, text, `end ${end} is below start ${start}`, fix);
    const stride = step ?? 1;
    const count = Math.floor((end - start) / stride + 1e-9) + 1;
    if (count > MAX_LEVELS) fail(name, text, `it expands to ${count} levels (at most ${MAX_LEVELS})`, fix);
    levels = [];
    // Multiply instead of accumulating so fractional steps (0.5) do not drift.
    for (let i = 0; i < count; i++) levels.push(Number((start + i * stride).toFixed(6)));
  } else {
    levels = trimmed.split(',').map((part) => levelNumber(name, text, part, integer, fix));
    if (levels.length > MAX_LEVELS)
      fail(name, text, `it lists ${levels.length} levels (at most ${MAX_LEVELS})`, fix);
  }
  return [...new Set(levels)].sort((a, b) => a - b);
}

/**
 * Parses a duration setting ('5s', '500ms', '1m', '1m30s': k6's grammar, lib/duration.ts) into seconds. A bare
 * number other than 0 is refused: k6 would read it as milliseconds where a reader may mean seconds.
 */
export function parseDuration_s(name: string, text: string, options: { allowZero?: boolean } = {}): number {
  const fix = `use a duration with a unit, such as ${name}=5s, 500ms, 1m or 1m30s`;
  const trimmed = text.trim();
  if (trimmed === '') fail(name, text, 'it is empty', fix);
  if (isBareNumber(trimmed) && Number(trimmed) !== 0)
    fail(name, text, 'a number without a unit is ambiguous', fix);
  let ms = 0;
  try {
    ms = parseDuration_ms(trimmed, name);
  } catch {
    fail(name, text, 'unknown duration format', fix);
  }
  if (ms === 0 && !options.allowZero) fail(name, text, 'it must be longer than 0', fix);
  return ms / 1000;
}

/** Parses a positive number setting (e.g. STABILITY=10, P95_MS=20). */
export function parsePositiveNumber(name: string, text: string, example = '10'): number {
  const trimmed = text.trim();
  const fix = `use a positive number, e.g. ${name}=${example}`;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) fail(name, text, 'not a number', fix);
  const value = Number(trimmed);
  if (value <= 0) fail(name, text, 'it must be greater than 0', fix);
  return value;
}
