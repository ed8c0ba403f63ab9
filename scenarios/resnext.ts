/**
 * ResNeXt101-32x4d image classifier (seed 000): INPUT__0 [3,224,224] FP32 or FP16 (PRECISION), closed-loop concurrency sweep.
 * Run: make bench-resnext, or k6 run -e PAYLOAD=<manifest.json> scenarios/resnext.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel('resnext101-32x4d');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
