import { CRITEO_CARDINALITIES } from './dlrm-cardinalities.ts';
import { closedLoop } from '../lib/load/shapes.ts';
import type { LatencyProfile, ModelEntry } from './types.ts';

/** ImageNet normalisation used by every torchvision-trained classifier. */
const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };

const resnext101: ModelEntry = {
  id: 'resnext101-32x4d',
  name: 'resnext101-32x4d',
  aliases: ['resnext'],
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
  latency: {
    points: [
      [1, 15.96],
      [2, 28.74],
      [4, 35.08],
      [8, 44.41],
      [16, 66.66],
      [32, 93.75],
      [64, 141.6],
    ],
    source: 'resnext101-32x4d_trt_v100.csv fp32 avg latency at concurrency = batch (1..64)',
  },
  latencyByPrecision: {
    FP16: {
      points: [
        [1, 11.68],
        [2, 21.74],
        [4, 28.22],
        [8, 33.98],
        [16, 40.67],
        [32, 51.18],
        [64, 73.39],
      ],
      source: 'resnext101-32x4d_trt_v100.csv fp16 avg latency at concurrency = batch (1..64)',
    },
  },
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
  latency: {
    points: [
      [1, 2.31],
      [8, 2.48],
      [64, 2.37],
      [512, 2.68],
      [4096, 4.58],
      [32768, 16.0],
      [65536, 31.3],
      [131072, 68.7],
    ],
    source:
      'dlrm_triton.csv ONNX FP16 V100-32G avg latency per batch size; >4096 from the 8 x 4096 concurrent figure',
  },
};

/** BERT SQuAD question answering; the two sizes differ only in sequence length. */
function bert(
  id: string,
  seqLength: number,
  platform: string,
  note: string,
  latency: LatencyProfile,
): ModelEntry {
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
    latency,
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
  // Seed 003 also set max_queue_delay 150 us, which cannot act with max_batch_size 0: no dynamic batching.
  deployment: { instanceCount: 5 },
  source: { seed: '003', note: 'ONNX Runtime CPU on i9-12900F, instance count 5, max_queue_delay 150 us' },
  latency: {
    points: [
      [1, 1.4],
      [8, 4.2],
    ],
    source: 'mnist_onnx_cpu_i9-12900F.csv concurrency 1 (batch > 1 assumed +0.4 ms per sample)',
  },
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
  latency: {
    points: [
      [1, 33.7],
      [16, 33.7],
      [32, 67.4],
    ],
    source: 'prose-figures.md ResNet50 Inferentia batch 16 p50 33.7 ms (one sample per NeuronCore)',
  },
};

/**
 * A stateful model behind Triton's sequence batcher, on Triton's identity backend: each request's INPUT0 is
 * [sequence id, step] and comes back as OUTPUT0, so the client sees whether each sequence's steps stayed in order.
 * Real Triton and the embedded server serve it alike (no model file). Kept out of CATALOG, whose entries are the
 * seeds' tensor models that payloads, stand-ins and profiles are made for; getModel() finds it.
 */
const sequenceIdentity: ModelEntry = {
  id: 'sequence-identity',
  name: 'sequence_identity',
  aliases: ['sequence'],
  platform: '',
  backend: 'identity',
  maxBatchSize: 8,
  inputs: [{ name: 'INPUT0', datatype: 'INT32', dims: [2] }],
  outputs: [{ name: 'OUTPUT0', datatype: 'INT32', dims: [2] }],
  precisions: { INT32: {} },
  defaultBatch: 1,
  payload: { kind: 'sequence' },
  load: closedLoop([1, 2, 4, 8], 'each VU sends one sequence at a time, so live sequences = concurrency'),
  scenario: 'sequence',
  deployment: {
    instanceCount: 1,
    sequenceBatching: { strategy: 'direct', maxSequenceIdleMicroseconds: 5_000_000 },
  },
  source: {
    seed: '',
    note: "Triton's identity backend behind the Direct sequence batcher: 8 slots, 5 s idle timeout",
  },
};

/** Models behind Triton's sequence batcher, keyed by id. */
export const SEQUENCE_MODELS: Readonly<Record<string, ModelEntry>> = {
  [sequenceIdentity.id]: sequenceIdentity,
};

/** Every built-in model, keyed by id. */
export const CATALOG: Readonly<Record<string, ModelEntry>> = Object.fromEntries(
  [
    resnext101,
    dlrm,
    {
      ...bert(
        'bert-base',
        128,
        'tensorflow_savedmodel',
        'BERT Base FP16, seq 128, TF SavedModel on V100 32GB',
        {
          points: [
            [1, 8.38],
            [8, 15.46],
          ],
          source: 'prose-figures.md BERT Base compute per request, batch 1 and 8',
        },
      ),
      aliases: ['bert'],
    },
    bert('bert-large', 384, 'tensorrt_plan', 'BERT Large, seq 384, TensorRT on A100 40GB, 1 ms queue delay', {
      points: [
        [1, 2.24],
        [8, 8.94],
        [16, 16.59],
      ],
      source: 'prose-figures.md BERT Large A100: a + k*b with 1/k = 1045 seq/s, 90% of it at batch 12',
    }),
    mnist,
    resnet50,
  ].map((entry) => [entry.id, entry]),
);
