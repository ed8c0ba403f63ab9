/**
 * Any model by name (MODEL_NAME): tensors from the server's metadata and config, random inputs unless PAYLOAD is given, as perf_analyzer does.
 * Run: make bench-generic, or k6 run -e PAYLOAD=<manifest.json> scenarios/generic.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { genericEntry } from '../models/generic.ts';

const MODEL = genericEntry(__ENV.MODEL_NAME);
const BUDGET = __ENV.THRESHOLDS || '../thresholds/generic.json';
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
