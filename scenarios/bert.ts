/**
 * BERT SQuAD question answering (seed 002): MODEL=bert-base (seq 128) or bert-large (seq 384), 100 ms p95 budget.
 * Run: make bench-bert, or k6 run -e PAYLOAD=<manifest.json> scenarios/bert.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel(__ENV.MODEL || 'bert-base');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
