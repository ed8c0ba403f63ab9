import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outputProblems } from '../../lib/kserve/outputs.ts';
import type { InferInput, InferResult } from '../../lib/kserve/types.ts';
import { decodeTensor } from '../../lib/tensor/codec.ts';
import { CATALOG } from '../../models/catalog.ts';
import type { Datatype } from '../../lib/tensor/datatypes.ts';
import type { ModelEntry } from '../../models/types.ts';
import { configFromCatalog, type ModelConfig } from '../../measure/repository/catalog-config.ts';
import { DIGIT_PIXELS, loadDigitSplit } from '../../models/mnist/digits.ts';
import { importOnnx, MNIST_MODEL_FILE, mnistModelWithBatchDim } from '../../models/mnist/export-onnx.ts';
import { onnxConfigMismatch, parseConfigJson, tensorInfoFromOrt } from '@k6-triton/server';
import { standInModel } from '../../measure/repository/stand-in.ts';
import { decodeOnnxModel, encodeOnnxModel } from '../../models/onnx/onnx-writer.ts';
import { catalogInputs } from './catalog-inputs.ts';
import { hasOnnxRuntime } from './has-onnx-runtime.ts';

if (!hasOnnxRuntime)
  console.warn('stand-in models: onnxruntime-node is not installed (run npm ci); runs skipped');

const ORT_TYPE: Partial<Record<Datatype, string>> = {
  FP32: 'float32',
  FP16: 'float16',
  INT32: 'int32',
  INT64: 'int64',
};

type Ort = typeof import('onnxruntime-node');

const parsed = (config: ModelConfig) => parseConfigJson(config, config.name);
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

/** Runs a model on onnxruntime-node and returns its outputs as the suite's checks read a server's answer. */
async function run(ort: Ort, session: Session, inputs: InferInput[]): Promise<InferResult> {
  const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
  for (const input of inputs) {
    const data = decodeTensor(input.datatype === 'FP16' ? 'UINT16' : input.datatype, input.data);
    feeds[input.name] = new ort.Tensor(ORT_TYPE[input.datatype] as never, data as never, [...input.shape]);
  }
  const results = await session.run(feeds);
  return {
    modelName: 'stand-in',
    modelVersion: '1',
    outputs: Object.entries(results).map(([name, tensor]) => ({
      name,
      datatype: tensorInfoFromOrt({ name, type: tensor.type }).datatype ?? 'BYTES',
      shape: [...tensor.dims],
      data: tensor.data as Float32Array,
    })),
  };
}

/** Every catalog model with a stand-in, at each of its precisions (undefined: the catalog's datatypes). */
const STAND_INS: [string, ModelEntry, string | undefined][] = Object.values(CATALOG)
  .filter((entry) => entry.id !== 'mnist')
  .flatMap((entry) =>
    [undefined, ...Object.keys(entry.precisions)].map(
      (p) => [entry.id, entry, p] as [string, ModelEntry, string | undefined],
    ),
  );

describe('ONNX writer', () => {
  it('reads back what it wrote: typed inputs and outputs, symbolic dims, initializers, metadata', () => {
    const bytes = encodeOnnxModel({
      graphName: 'g',
      producer: 'test',
      metadata: { purpose: 'round trip' },
      inputs: [{ name: 'x', datatype: 'FP16', dims: ['N', 3] }],
      outputs: [{ name: 'y', datatype: 'INT64', dims: ['N', 1] }],
      nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['y'] }],
      initializers: [{ name: 'w', datatype: 'INT64', dims: [2], values: [5n, -7n] }],
    });
    const model = decodeOnnxModel(bytes);
    expect(model.inputs).toEqual([{ name: 'x', datatype: 'FP16', dims: ['N', 3] }]);
    expect(model.outputs).toEqual([{ name: 'y', datatype: 'INT64', dims: ['N', 1] }]);
    expect(model.metadata).toEqual({ purpose: 'round trip' });
    const w = model.initializers.get('w');
    expect(w?.dims).toEqual([2]);
    expect(Array.from(w?.values as ArrayLike<number>)).toEqual([5, -7]);
  });

  it('refuses an initializer whose values do not fill its dims', () => {
    expect(() =>
      encodeOnnxModel({
        graphName: 'g',
        producer: 'test',
        inputs: [],
        outputs: [],
        nodes: [],
        initializers: [{ name: 'w', datatype: 'FP32', dims: [2, 2], values: [1, 2, 3] }],
      }),
    ).toThrow('initializer w: expected 4 values, got 3');
  });
});

describe('MNIST export', () => {
  const shipped = readFileSync(MNIST_MODEL_FILE);

  it('ships seed 003 dims, [1,1,28,28] -> [1,10], and is its own weights re-exported byte for byte', () => {
    const model = decodeOnnxModel(shipped);
    expect(model.inputs).toEqual([{ name: 'input.1', datatype: 'FP32', dims: [1, 1, 28, 28] }]);
    expect(model.outputs).toEqual([{ name: 'output', datatype: 'FP32', dims: [1, 10] }]);
    expect(Buffer.from(mnistModelWithBatchDim(1)).equals(shipped)).toBe(true);
    expect(importOnnx(shipped).metadata.held_out_accuracy).toBe('0.9805');
  });

  it.skipIf(!hasOnnxRuntime)(
    'gives the same logits from the batchable copy as from the shipped model',
    async () => {
      const ort = (await import('onnxruntime-node')) as Ort;
      const batchable = mnistModelWithBatchDim('N');
      expect(decodeOnnxModel(batchable).inputs[0]?.dims).toEqual(['N', 1, 28, 28]);
      const { test } = loadDigitSplit();
      const pixels = test.pixels.slice(0, 3 * DIGIT_PIXELS);
      const one = await ort.InferenceSession.create(shipped);
      const three = await ort.InferenceSession.create(batchable);
      const batch = await three.run({ 'input.1': new ort.Tensor('float32', pixels, [3, 1, 28, 28]) });
      for (let i = 0; i < 3; i++) {
        const digit = pixels.slice(i * DIGIT_PIXELS, (i + 1) * DIGIT_PIXELS);
        const single = await one.run({ 'input.1': new ort.Tensor('float32', digit, [1, 1, 28, 28]) });
        expect(Array.from(single.output!.data as Float32Array)).toEqual(
          Array.from((batch.output!.data as Float32Array).slice(i * 10, i * 10 + 10)),
        );
      }
    },
  );
});

describe.skipIf(!hasOnnxRuntime)('stand-in models', () => {
  it('also fits a model without a batch dim (max_batch_size 0: dims as they are)', async () => {
    const ort = (await import('onnxruntime-node')) as Ort;
    const entry = CATALOG.mnist!;
    const session = await ort.InferenceSession.create(standInModel(entry));
    const io = {
      inputs: session.inputMetadata.map(tensorInfoFromOrt),
      outputs: session.outputMetadata.map(tensorInfoFromOrt),
    };
    expect(io.outputs).toEqual([{ name: 'output', datatype: 'FP32', dims: [1, 10] }]);
    expect(onnxConfigMismatch(parsed(configFromCatalog(entry, 'onnxruntime')), io)).toBeUndefined();
    const result = await run(ort, session, catalogInputs(entry));
    expect(outputProblems(entry.outputs, result, { maxBatchSize: 0 })).toEqual([]);
    const probabilities = Array.from(result.outputs[0]!.data as Float32Array);
    expect(probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    await session.release();
  });

  it.each(STAND_INS)(
    '%s at %s loads with the catalog config and passes the suite output checks',
    async (_id, entry, precision) => {
      const ort = (await import('onnxruntime-node')) as Ort;
      const bytes = standInModel(entry, precision);
      expect(Buffer.from(standInModel(entry, precision)).equals(Buffer.from(bytes))).toBe(true);
      const session = await ort.InferenceSession.create(bytes);
      const io = {
        inputs: session.inputMetadata.map(tensorInfoFromOrt),
        outputs: session.outputMetadata.map(tensorInfoFromOrt),
      };
      // What Triton's ONNX Runtime backend checks at load: the catalog's config fits the model exactly.
      expect(
        onnxConfigMismatch(parsed(configFromCatalog(entry, 'onnxruntime', precision)), io),
      ).toBeUndefined();
      expect(io.outputs.map((t) => [t.name, t.datatype, t.dims])).toEqual(
        entry.outputs.map((t) => [t.name, t.datatype, [-1, ...t.dims]]),
      );
      const batch = 3;
      const answers = [];
      for (const seed of [0, 1]) {
        const result = await run(ort, session, catalogInputs(entry, { precision, batch, seed }));
        expect(
          outputProblems(entry.outputs, result, { batchSize: batch, maxBatchSize: entry.maxBatchSize }),
        ).toEqual([]);
        answers.push(result.outputs.map((o) => Array.from(o.data as Float32Array)));
      }
      expect(answers[0]).not.toEqual(answers[1]);
      const values = answers[0]!.flat();
      expect(values.every(Number.isFinite)).toBe(true);
      if (entry.payload.kind === 'image') {
        // Class probabilities: every row sums to 1.
        const row = answers[0]![0]!.slice(0, 1000).reduce((a, b) => a + b, 0);
        expect(row).toBeCloseTo(1, 4);
      }
      if (entry.payload.kind === 'dlrm') expect(values.every((v) => v > 0 && v < 1)).toBe(true);
      await session.release();
    },
  );
});
