/**
 * Seed 003's tuning sweep, on this machine: the real ONNX MNIST model served by the embedded
 * server under several instance counts and dynamic-batcher queue delays, each swept over
 * concurrency 1..8 by `k6-triton bench`. Prints perf_analyzer's lines per configuration and one
 * comparison table. Run: node --import tsx bench/figures/mnist-tuning.ts [STEP_DURATION]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnistModelWithBatchDim } from '../../models/mnist/export-onnx.ts';

interface Tuning {
  label: string;
  instances: number;
  /** Dynamic batcher queue delay; undefined: no dynamic batching. */
  queueDelay_us?: number;
}

const TUNINGS: Tuning[] = [
  { label: '1 instance, no dynamic batching', instances: 1 },
  { label: '2 instances, no dynamic batching', instances: 2 },
  { label: '4 instances, no dynamic batching', instances: 4 },
  { label: '2 instances, max_queue_delay 0 us', instances: 2, queueDelay_us: 0 },
  { label: '2 instances, max_queue_delay 150 us', instances: 2, queueDelay_us: 150 },
  { label: '2 instances, max_queue_delay 1000 us', instances: 2, queueDelay_us: 1000 },
];

const MODEL = 'onnx-mnist-cpu';

/**
 * A one-model repository; max_batch_size 8 so the batcher can batch (seed 003 had 0, which cannot), on the shipped
 * weights re-exported with a symbolic batch dim (the shipped file takes one digit, as seed 003's did).
 */
function repository(tuning: Tuning): string {
  const repo = mkdtempSync(join(tmpdir(), 'mnist-tuning-'));
  mkdirSync(join(repo, MODEL, '1'), { recursive: true });
  writeFileSync(join(repo, MODEL, '1', 'model.onnx'), mnistModelWithBatchDim('N'));
  const batching =
    tuning.queueDelay_us === undefined
      ? ''
      : `dynamic_batching { max_queue_delay_microseconds: ${tuning.queueDelay_us} }\n`;
  writeFileSync(
    join(repo, MODEL, 'config.pbtxt'),
    `name: "${MODEL}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "input.1" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 10 ] } ]
instance_group [ { count: ${tuning.instances} kind: KIND_CPU } ]
${batching}`,
  );
  return repo;
}

const step = process.argv[2] ?? '4s';
const rows: string[] = [];
for (const tuning of TUNINGS) {
  const results = mkdtempSync(join(tmpdir(), 'mnist-tuning-results-'));
  const run = spawnSync(
    process.execPath,
    [
      join(import.meta.dirname, '../../bin/k6-triton.js'),
      'bench',
      'mnist',
      '--model-repository',
      repository(tuning),
      '--concurrency',
      '1:8',
      '--step-duration',
      step,
      '--warmup',
      '1s',
      '--results-dir',
      results,
    ],
    { encoding: 'utf8' },
  );
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('Concurrency:'));
  console.log(`\n${tuning.label} (exit ${run.status})\n${lines.join('\n')}`);
  const runDir = join(results, 'mnist', readdirSync(join(results, 'mnist'))[0]!);
  const csv = readFileSync(join(runDir, 'perf_analyzer.csv'), 'utf8').trim().split('\n').slice(1);
  const byLevel = new Map(csv.map((line) => line.split(',')).map((c) => [c[0], c]));
  const cells = [1, 2, 4, 8].map((c) => {
    const row = byLevel.get(String(c));
    return row ? `${Math.round(Number(row[1]))} / ${(Number(row[9]) / 1000).toFixed(2)}` : 'n/a';
  });
  rows.push(`| ${tuning.label} | ${cells.join(' | ')} |`);
}
console.log('\n| configuration | c1 | c2 | c4 | c8 |\n| --- | --- | --- | --- | --- |');
console.log('| (infer/s / p50 ms) | | | | |');
console.log(rows.join('\n'));
