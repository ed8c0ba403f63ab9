import { CRITEO_CARDINALITIES } from './dlrm-cardinalities.ts';
import { closedLoop, type ModelEntry } from './types.ts';

/** ImageNet normalisation used by every torchvision-trained classifier. */
const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };

const resnext101: ModelEntry = {
  id: 'resnext101-32x4d',
  name: 'resnext101-32x4d',
  platform: 'tensorrt_plan',
  maxBatchSize: 64,
  inputs: [{ name: 'INPUT__0', datatype: 'FP32', dims: [3, 224, 224] }],
  outputs: [{ name: 'OUTPUT__0', datatype: 'FP32', dims: [1000] }],
  precisions: { FP32: {}, FP16: { INPUT__0: 'FP16' } },
  defaultBatch: 1,
  payload: { kind: 'image', channels: 3, height: 224, width: 224, ...IMAGENET },
  load: closedLoop(
    [1, 2, 4, 8, 16, 32],
    'seed 000 table rows 1..32 concurrent requests (the table goes on to 256)',
  ),
  scenario: 'resnext',
  deployment: { instanceCount: 1, dynamicBatching: { maxQueueDelayMicroseconds: 100 } },
  source: { seed: '000', note: 'TensorRT, 1x V100 16GB, dynamic batching up to 64, batch-1 requests' },
};

const dlrm: ModelEntry = {
  id: 'dlrm',
  name: 'dlrm',
  platform: 'onnxruntime_onnx',
  maxBatchSize: 65536,
  inputs: [
    { name: 'input__0', datatype: 'FP32', dims: [13] },
    { name: 'input__1', datatype: 'INT64', dims: [26] },
  ],
  outputs: [{ name: 'output__0', datatype: 'FP32', dims: [1] }],
  precisions: {
    FP32: {},
    FP16: { input__0: 'FP16' },
    INT32: { input__1: 'INT32' },
    INT64: {},
  },
  defaultBatch: 4096,
  payload: { kind: 'dlrm', numerical: 13, cardinalities: [...CRITEO_CARDINALITIES] },
  load: closedLoop(
    [1, 2, 3, 4, 5, 6, 7, 8],
    'seed 001: 8 concurrent requests of 4096 samples fit the 20 ms budget on one V100',
  ),
  scenario: 'dlrm',
  deployment: {
    instanceCount: 1,
    dynamicBatching: { preferredBatchSize: [65536], maxQueueDelayMicroseconds: 2000 },
  },
  source: { seed: '001', note: 'ONNX FP16 on V100-32G, requests of 4096 samples, max batch 65536' },
};

/** BERT SQuAD question answering; the two sizes differ only in sequence length. */
function bert(id: string, seqLength: number, platform: string, note: string): ModelEntry {
  const seq = [seqLength];
  return {
    id,
    name: id,
    platform,
    maxBatchSize: 8,
    inputs: [
      { name: 'input_ids', datatype: 'INT32', dims: seq },
      { name: 'segment_ids', datatype: 'INT32', dims: seq },
      { name: 'input_mask', datatype: 'INT32', dims: seq },
    ],
    outputs: [
      { name: 'start_logits', datatype: 'FP32', dims: seq },
      { name: 'end_logits', datatype: 'FP32', dims: seq },
    ],
    precisions: { INT32: {} },
    defaultBatch: 1,
    payload: { kind: 'bert', seqLength, docStride: 128, maxQueryLength: 64 },
    load: closedLoop(
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
      'seed 002: one A100 holds up to 9 concurrent requests under the 100 ms bound',
    ),
    scenario: 'bert',
    deployment: {
      instanceCount: 1,
      dynamicBatching: { preferredBatchSize: [4, 8], maxQueueDelayMicroseconds: 5000 },
    },
    source: { seed: '002', note },
  };
}

const mnist: ModelEntry = {
  id: 'mnist',
  name: 'onnx-mnist-cpu',
  platform: 'onnxruntime_onnx',
  maxBatchSize: 0,
  inputs: [{ name: 'input.1', datatype: 'FP32', dims: [1, 1, 28, 28] }],
  outputs: [{ name: 'output', datatype: 'FP32', dims: [1, 10] }],
  precisions: { FP32: {} },
  defaultBatch: 1,
  payload: { kind: 'mnist' },
  load: closedLoop([1, 2, 3, 4, 5, 6, 7, 8], 'seed 003: perf_analyzer --concurrency-range 1:8'),
  scenario: 'mnist',
  deployment: { instanceCount: 5, dynamicBatching: { maxQueueDelayMicroseconds: 150 } },
  source: { seed: '003', note: 'ONNX Runtime CPU on i9-12900F, instance count 5, max_queue_delay 150 us' },
};

const resnet50: ModelEntry = {
  id: 'resnet50',
  name: 'rn50-16neuroncores-default',
  platform: 'python',
  maxBatchSize: 16,
  inputs: [{ name: 'INPUT__0', datatype: 'FP32', dims: [3, 224, 224] }],
  outputs: [{ name: 'OUTPUT__0', datatype: 'FP32', dims: [1000] }],
  precisions: { FP32: {} },
  defaultBatch: 16,
  payload: { kind: 'image', channels: 3, height: 224, width: 224, ...IMAGENET },
  load: closedLoop([2], 'seed 004: 2 client threads, each sending batch-16 requests back to back'),
  scenario: 'resnet50',
  // Seed 004's two client threads each saw ~34 ms: the server ran their requests side by side.
  deployment: { instanceCount: 2 },
  source: { seed: '004', note: 'python backend on AWS Inferentia inf1.6xlarge, 16 NeuronCores, batch 16' },
};

/** Every built-in model, keyed by id. */
export const CATALOG: Readonly<Record<string, ModelEntry>> = Object.fromEntries(
  [
    resnext101,
    dlrm,
    bert('bert-base', 128, 'tensorflow_savedmodel', 'BERT Base FP16, seq 128, TF SavedModel on V100 32GB'),
    bert('bert-large', 384, 'tensorrt_plan', 'BERT Large, seq 384, TensorRT on A100 40GB, 1 ms queue delay'),
    mnist,
    resnet50,
  ].map((entry) => [entry.id, entry]),
);
