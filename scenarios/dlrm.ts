/**
 * DLRM recommender (seed 001): 13 numerical + 26 categorical features, requests of BATCH=4096 samples, 20 ms p95 budget.
 * Run: make bench-dlrm, or k6 run -e PAYLOAD=<manifest.json> scenarios/dlrm.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel('dlrm');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
