/**
 * MNIST digits on ONNX Runtime CPU (seed 003): real digits with labels, checked against the answers when the model is real.
 * Run: make bench-mnist, or k6 run -e PAYLOAD=<manifest.json> scenarios/mnist.ts (see README).
 */
import { modelTest } from './kit/model-test.ts';
import { getModel } from '../models/index.ts';

const MODEL = getModel('mnist');
const BUDGET = __ENV.THRESHOLDS || `../thresholds/${MODEL.id}.json`;
export const { options, setup, warmup, infer, stats, handleSummary } = modelTest(MODEL, open(BUDGET), BUDGET);
