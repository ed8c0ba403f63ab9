import { describe, expect, it } from 'vitest';
import { CATALOG, getModel, inputsFor, modelIds } from '../models/index.ts';

describe('model catalog', () => {
  it('holds the six seed models', () => {
    expect(modelIds()).toEqual(['bert-base', 'bert-large', 'dlrm', 'mnist', 'resnet50', 'resnext101-32x4d']);
  });

  it('finds a model by Triton name as well as by id', () => {
    expect(getModel('onnx-mnist-cpu').id).toBe('mnist');
  });

  it('rejects an unknown model with the list of known ones', () => {
    expect(() => getModel('resnet18')).toThrow(
      /unknown model "resnet18"; known models: bert-base, bert-large, dlrm/,
    );
  });

  it('maps a precision onto input datatypes', () => {
    const dlrm = getModel('dlrm');
    expect(inputsFor(dlrm, 'fp16').map((t) => t.datatype)).toEqual(['FP16', 'INT64']);
    expect(inputsFor(dlrm, 'INT32').map((t) => t.datatype)).toEqual(['FP32', 'INT32']);
    expect(() => inputsFor(getModel('mnist'), 'FP16')).toThrow(/invalid PRECISION "FP16" for model mnist/);
  });

  it('keeps every entry self-consistent', () => {
    for (const m of Object.values(CATALOG)) {
      expect(m.inputs.length).toBeGreaterThan(0);
      expect(m.outputs.length).toBeGreaterThan(0);
      expect(m.defaultBatch).toBeGreaterThanOrEqual(1);
      if (m.maxBatchSize === 0) expect(m.defaultBatch).toBe(1);
      else expect(m.defaultBatch).toBeLessThanOrEqual(m.maxBatchSize);
      const names = [...m.inputs, ...m.outputs].map((t) => t.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});
