/**
 * Sequence settings, read from the environment with perf_analyzer's names and defaults: SEQUENCE_LENGTH
 * (--sequence-length, 20), SEQUENCE_LENGTH_VARIATION (--sequence-length-variation, 20 %), SEQUENCE_ID_RANGE
 * (--sequence-id-range start:end, end excluded; default 1 and 2^32 - 1 ids) and NUM_OF_SEQUENCES
 * (--num-of-sequences, 4: the live sequences of a request-rate level), declared in lib/settings/schema.ts.
 * Pure: no k6 imports.
 */
import { type Env, read, readOr } from '../settings/read.ts';
import { DEFAULTS, S } from '../settings/schema.ts';

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
  length: DEFAULTS.sequenceLength,
  variation_pct: DEFAULTS.sequenceLengthVariation_pct,
  idStart: 1,
  idCount: 2 ** 32 - 1,
  sequences: DEFAULTS.numOfSequences,
};

/** Reads the sequence settings; a bad value is a one-line error naming the variable. */
export function readSequenceSettings(env: Env): SequenceSettings {
  const d = DEFAULT_SEQUENCE_SETTINGS;
  const ids = read(env, S.SEQUENCE_ID_RANGE);
  return {
    length: readOr(env, S.SEQUENCE_LENGTH, d.length),
    variation_pct: readOr(env, S.SEQUENCE_LENGTH_VARIATION, d.variation_pct),
    idStart: ids?.start ?? d.idStart,
    idCount: ids?.end === undefined ? d.idCount : ids.end - ids.start,
    sequences: readOr(env, S.NUM_OF_SEQUENCES, d.sequences),
  };
}
