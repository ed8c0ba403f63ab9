/**
 * A stateful model behind Triton's sequence batcher (MODEL=sequence-identity): each VU runs whole sequences, one
 * request at a time with sequence_id / sequence_start / sequence_end, checks every echoed step and counts
 * out-of-order and orphaned sequences (thresholds fail the run on any). SEQUENCE_LENGTH, SEQUENCE_ID_RANGE,
 * SEQUENCE_LENGTH_VARIATION and, for REQUEST_RATE levels, NUM_OF_SEQUENCES as perf_analyzer's
 * flags. Run: k6-triton bench sequence (see docs/sequences.md).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel(__ENV.MODEL || 'sequence-identity');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
