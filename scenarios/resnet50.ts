/**
 * ResNet50 on AWS Inferentia (seed 004): batch-16 requests from 2 concurrent clients.
 * Run: make bench-resnet50, or k6 run -e PAYLOAD=<manifest.json> scenarios/resnet50.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel('resnet50');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
