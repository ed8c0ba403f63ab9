/**
 * Sequence settings, read from the environment with perf_analyzer's names and defaults: SEQUENCE_LENGTH
 * (--sequence-length, 20), SEQUENCE_LENGTH_VARIATION (--sequence-length-variation, 20 %), SEQUENCE_ID_RANGE
 * (--sequence-id-range start:end, end excluded; default 1 and 2^32 - 1 ids) and NUM_OF_SEQUENCES
 * (--num-of-sequences, 4: the live sequences of a request-rate level). Pure: no k6 imports.
 */

/** How the sequences of a run are shaped. */
export interface SequenceSettings {
  /** Base requests per sequence. @default 20 */
  length: number;
  /** Each sequence's length is drawn within ± this percent of `length`. @default 20 */
  variation_pct: number;
  /** The first correlation id. @default 1 */
  idStart: number;
  /** How many ids from idStart on are used, wrapping around. @default 2^32 - 1 (perf_analyzer's UINT32_MAX) */
  idCount: number;
  /** Live sequences of a request-rate level (perf_analyzer's --num-of-sequences). @default 4 */
  sequences: number;
}

/** perf_analyzer's defaults. */
export const DEFAULT_SEQUENCE_SETTINGS: Readonly<SequenceSettings> = {
  length: 20,
  variation_pct: 20,
  idStart: 1,
  idCount: 2 ** 32 - 1,
  sequences: 4,
};

function whole(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`invalid ${name}="${raw}"; expected a whole number >= ${min}`);
  return n;
}

/** Reads "start:end" (end excluded) or "start" (open-ended: perf_analyzer's default count). */
function idRange(raw: string | undefined): { idStart: number; idCount: number } {
  if (raw === undefined || raw.trim() === '') {
    return { idStart: DEFAULT_SEQUENCE_SETTINGS.idStart, idCount: DEFAULT_SEQUENCE_SETTINGS.idCount };
  }
  const [startText, endText, extra] = raw.split(':');
  const start = Number(startText);
  const end = endText === undefined || endText === '' ? undefined : Number(endText);
  const bad =
    extra !== undefined ||
    !Number.isSafeInteger(start) ||
    start < 1 ||
    (end !== undefined && (!Number.isSafeInteger(end) || end <= start));
  if (bad) {
    throw new Error(
      `invalid SEQUENCE_ID_RANGE="${raw}"; expected start:end with 1 <= start < end (end excluded), e.g. 1:1000`,
    );
  }
  return { idStart: start, idCount: end === undefined ? DEFAULT_SEQUENCE_SETTINGS.idCount : end - start };
}

/** Reads the sequence settings; a bad value is a one-line error naming the variable. */
export function readSequenceSettings(env: Record<string, string | undefined>): SequenceSettings {
  const variation = env.SEQUENCE_LENGTH_VARIATION;
  const variation_pct =
    variation === undefined || variation.trim() === ''
      ? DEFAULT_SEQUENCE_SETTINGS.variation_pct
      : Number(variation);
  if (!Number.isFinite(variation_pct) || variation_pct < 0 || variation_pct > 100) {
    throw new Error(`invalid SEQUENCE_LENGTH_VARIATION="${variation}"; expected a percentage from 0 to 100`);
  }
  return {
    length: whole(env, 'SEQUENCE_LENGTH', DEFAULT_SEQUENCE_SETTINGS.length, 1),
    variation_pct,
    ...idRange(env.SEQUENCE_ID_RANGE),
    sequences: whole(env, 'NUM_OF_SEQUENCES', DEFAULT_SEQUENCE_SETTINGS.sequences, 1),
  };
}
