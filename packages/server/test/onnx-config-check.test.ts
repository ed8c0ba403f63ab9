/**
 * The embedded server's copy of Triton's ONNX Runtime backend load checks. Each expected message is the one real
 * tritonserver 2.60.0 answered for the same config and model (load API, 2026-11-25), after its
 * "Invalid argument: " / "Internal: " prefix; test/e2e/triton/config-check.test.ts compares both servers live.
 */
import { describe, expect, it } from 'vitest';
import type { ModelConfigJson, ModelTensorConfigJson } from '../src/config/types.ts';
import { type ModelIo, onnxConfigMismatch, tensorInfoFromOrt } from '../src/onnx/config-check.ts';

/** The MNIST model with a symbolic batch dim, and the shipped one with seed 003's fixed dims. */
const MNIST_N: ModelIo = {
  inputs: [{ name: 'input.1', datatype: 'FP32', dims: [-1, 1, 28, 28] }],
  outputs: [{ name: 'output', datatype: 'FP32', dims: [-1, 10] }],
};
const MNIST_1: ModelIo = {
  inputs: [{ name: 'input.1', datatype: 'FP32', dims: [1, 1, 28, 28] }],
  outputs: [{ name: 'output', datatype: 'FP32', dims: [1, 10] }],
};
const DLRM: ModelIo = {
  inputs: [
    { name: 'input__0', datatype: 'FP32', dims: [-1, 13] },
    { name: 'input__1', datatype: 'INT64', dims: [-1, 26] },
  ],
  outputs: [{ name: 'output__0', datatype: 'FP32', dims: [-1, 1] }],
};

const t = (name: string, data_type: string, dims: number[]): ModelTensorConfigJson => ({
  name,
  data_type,
  dims,
});

function config(
  name: string,
  max_batch_size: number,
  input: ModelTensorConfigJson[],
  output: ModelTensorConfigJson[],
): ModelConfigJson {
  return {
    name,
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    max_batch_size,
    input,
    output,
    instance_group: [],
  };
}

const mnist = (mbs: number, input: ModelTensorConfigJson[], output: ModelTensorConfigJson[]) =>
  config('onnx-mnist-cpu', mbs, input, output);
const IN = t('input.1', 'TYPE_FP32', [1, 1, 28, 28]);
const IN_BATCHED = t('input.1', 'TYPE_FP32', [1, 28, 28]);
const OUT = t('output', 'TYPE_FP32', [10]);

describe("Triton's ONNX Runtime backend load checks", () => {
  it.each([
    [
      'a fixed output dim where the model has -1',
      mnist(0, [IN], [t('output', 'TYPE_FP32', [1, 10])]),
      MNIST_N,
      "model 'onnx-mnist-cpu', tensor 'output': the model expects 2 dimensions (shape [-1,10]) but the model configuration specifies 2 dimensions (shape [1,10])",
    ],
    [
      'an input datatype the model does not take',
      mnist(4, [t('input.1', 'TYPE_FP16', [1, 28, 28])], [OUT]),
      MNIST_N,
      "unable to load model 'onnx-mnist-cpu', configuration expects datatype TYPE_FP16 for input 'input.1', model provides TYPE_FP32",
    ],
    [
      'an input name the model does not have',
      mnist(4, [t('input.2', 'TYPE_FP32', [1, 28, 28])], [OUT]),
      MNIST_N,
      "unexpected inference input 'input.2', allowed inputs are: input.1",
    ],
    [
      'an output name the model does not have',
      mnist(4, [IN_BATCHED], [t('out', 'TYPE_FP32', [10])]),
      MNIST_N,
      "unexpected inference output 'out', allowed outputs are: output",
    ],
    [
      'an output datatype the model does not give',
      mnist(4, [IN_BATCHED], [t('output', 'TYPE_FP16', [10])]),
      MNIST_N,
      "unable to load model 'onnx-mnist-cpu', configuration expects datatype TYPE_FP16 for output 'output', model provides TYPE_FP32",
    ],
    [
      'a fixed input dim the model does not have',
      mnist(4, [t('input.1', 'TYPE_FP32', [3, 28, 28])], [OUT]),
      MNIST_N,
      "model 'onnx-mnist-cpu', tensor 'input.1': the model expects 4 dimensions (shape [-1,1,28,28]) but the model configuration specifies 4 dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape [-1,3,28,28])",
    ],
    [
      'a -1 input dim where the model has a fixed one',
      mnist(4, [t('input.1', 'TYPE_FP32', [-1, 28, 28])], [OUT]),
      MNIST_N,
      "model 'onnx-mnist-cpu', tensor 'input.1': the model expects 4 dimensions (shape [-1,1,28,28]) but the model configuration specifies 4 dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape [-1,-1,28,28])",
    ],
    [
      'batching on a model whose first dim is fixed',
      mnist(8, [IN_BATCHED], [OUT]),
      MNIST_1,
      "model 'onnx-mnist-cpu', tensor 'input.1': for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; but shape expected by the model is [1,1,28,28]",
    ],
    [
      'more inputs than the model has',
      mnist(0, [IN, t('extra', 'TYPE_FP32', [1])], [t('output', 'TYPE_FP32', [1, 10])]),
      MNIST_1,
      "unable to load model 'onnx-mnist-cpu', configuration expects 2 inputs, model provides 1",
    ],
    [
      'fewer inputs than the model has',
      config('dlrm', 0, [t('input__0', 'TYPE_FP32', [4, 13])], [t('output__0', 'TYPE_FP32', [-1, 1])]),
      DLRM,
      "unable to load model 'dlrm', configuration expects 1 inputs, model provides 2",
    ],
    [
      'an output with fewer dims than the model',
      mnist(0, [IN], [OUT]),
      MNIST_1,
      "model 'onnx-mnist-cpu', tensor 'output': the model expects 2 dimensions (shape [1,10]) but the model configuration specifies 1 dimensions (shape [10])",
    ],
    [
      'a batched output dim the model does not have',
      config(
        'dlrm',
        65536,
        [t('input__0', 'TYPE_FP32', [13]), t('input__1', 'TYPE_INT64', [26])],
        [t('output__0', 'TYPE_FP32', [2])],
      ),
      DLRM,
      "model 'dlrm', tensor 'output__0': the model expects 2 dimensions (shape [-1,1]) but the model configuration specifies 2 dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape [-1,2])",
    ],
  ])('refuses %s', (_what, cfg, model, message) => {
    expect(onnxConfigMismatch(cfg, model)).toEqual({ code: 'INVALID_ARG', message });
  });

  it('refuses a datatype the backend has no ONNX type for as an internal error', () => {
    const cfg = mnist(0, [t('input.1', 'TYPE_BF16', [1, 1, 28, 28])], [t('output', 'TYPE_FP32', [1, 10])]);
    expect(onnxConfigMismatch(cfg, MNIST_1)).toEqual({
      code: 'INTERNAL',
      message: "unsupported datatype TYPE_BF16 for input 'input.1' for model 'onnx-mnist-cpu'",
    });
  });

  it('accepts what Triton loads: -1 in the model takes any input dim, outputs match exactly', () => {
    expect(onnxConfigMismatch(mnist(0, [IN], [t('output', 'TYPE_FP32', [-1, 10])]), MNIST_N)).toBeUndefined();
    expect(onnxConfigMismatch(mnist(128, [IN_BATCHED], [OUT]), MNIST_N)).toBeUndefined();
    expect(onnxConfigMismatch(mnist(0, [IN], [t('output', 'TYPE_FP32', [1, 10])]), MNIST_1)).toBeUndefined();
    const dlrm = config(
      'dlrm',
      0,
      [t('input__0', 'TYPE_FP32', [4, 13]), t('input__1', 'TYPE_INT64', [4, 26])],
      [t('output__0', 'TYPE_FP32', [-1, 1])],
    );
    expect(onnxConfigMismatch(dlrm, DLRM)).toBeUndefined();
  });

  it('compares a reshape, not the dims, with the model; leaves a config without inputs or outputs to auto-complete', () => {
    const reshaped = { ...IN_BATCHED, dims: [784], reshape: { shape: [1, 28, 28] } };
    expect(onnxConfigMismatch(mnist(8, [reshaped], [OUT]), MNIST_N)).toBeUndefined();
    expect(onnxConfigMismatch(mnist(8, [], [t('output', 'TYPE_FP32', [99])]), MNIST_N)).toBeUndefined();
  });

  it('reads onnxruntime-node metadata: symbolic dims are -1, bfloat16 has no Triton datatype', () => {
    expect(tensorInfoFromOrt({ name: 'x', type: 'float16', shape: ['N', 3] })).toEqual({
      name: 'x',
      datatype: 'FP16',
      dims: [-1, 3],
    });
    expect(tensorInfoFromOrt({ name: 'y', type: 'bfloat16', shape: [] }).datatype).toBeUndefined();
  });
});
