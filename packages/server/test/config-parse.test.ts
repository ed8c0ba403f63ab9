import { describe, expect, it } from 'vitest';
import { completeConfig } from '../src/config/normalize.ts';
import { parseConfigJson, parsePbtxt } from '../src/config/parse.ts';
import { validateConfig, validateIo } from '../src/config/validate.ts';

describe('config.pbtxt parsing (protobuf text format via @bufbuild/protobuf)', () => {
  it('parses list and message syntax, enums, comments and maps into Triton JSON form', () => {
    const config = parsePbtxt(`
      # a comment
      name: "bert"
      platform: "tensorflow_savedmodel"
      max_batch_size: 8
      input [
        { name: "input_ids" data_type: TYPE_INT32 dims: [ 128 ] },
        { name: "mask", data_type: TYPE_INT32, dims: [ -1 ] }
      ]
      output { name: "logits" data_type: TYPE_FP32 dims: 128 }
      instance_group [ { count: 2 kind: KIND_CPU } ]
      dynamic_batching {
        preferred_batch_size: [ 4, 8 ]
        max_queue_delay_microseconds: 5000
        default_queue_policy { max_queue_size: 16 default_timeout_microseconds: 100000 }
      }
      parameters { key: "latency_profile" value: { string_value: "bert-base" } }
    `);
    expect(config.name).toBe('bert');
    expect(config.max_batch_size).toBe(8);
    expect(config.input.map((t) => [t.name, t.data_type, t.dims])).toEqual([
      ['input_ids', 'TYPE_INT32', [128]],
      ['mask', 'TYPE_INT32', [-1]],
    ]);
    expect(config.output[0]!.dims).toEqual([128]);
    expect(config.instance_group[0]).toMatchObject({ count: 2, kind: 'KIND_CPU' });
    expect(config.dynamic_batching).toMatchObject({
      preferred_batch_size: [4, 8],
      max_queue_delay_microseconds: 5000,
      default_queue_policy: { max_queue_size: 16, default_timeout_microseconds: 100000 },
    });
    expect(config.parameters).toEqual({ latency_profile: { string_value: 'bert-base' } });
  });

  it('parses configs as Triton users write them (seed 003, the docs): colons before braces, accelerators, policies', () => {
    const config = parsePbtxt(`
      name: "onnx-mnist-cpu"
      platform: "onnxruntime_onnx"
      max_batch_size : 0
      input [ { name: "input.1", data_type: TYPE_FP32, dims: [ 1, 1, 28, 28 ] } ]
      output [ { name: "output", data_type: TYPE_FP32, dims: [ 1, 10 ] } ]
      instance_group [
          {
              count: 5
              kind: KIND_CPU
          }
      ]
      dynamic_batching: { max_queue_delay_microseconds: 150 }
      version_policy: { specific { versions: [ 1, 3 ] } }
      optimization { execution_accelerators {
        gpu_execution_accelerator : [ {
          name : "tensorrt"
          parameters { key: "precision_mode" value: "FP16" }
        } ]
      } }
      model_warmup [ { name: "w" batch_size: 1 inputs { key: "input.1" value: { data_type: TYPE_FP32 dims: [ 1, 1, 28, 28 ] zero_data: true } } } ]
    `);
    expect(config.instance_group[0]).toMatchObject({ count: 5, kind: 'KIND_CPU' });
    expect(config.dynamic_batching?.max_queue_delay_microseconds).toBe(150);
    expect(config.version_policy).toEqual({ specific: { versions: [1, 3] } });
    expect(config.input[0]!.dims).toEqual([1, 1, 28, 28]);
  });

  it('rejects unknown fields and bad syntax naming the file', () => {
    expect(() => parsePbtxt('name: "x"\nmax_batch: 3', 'repo/x/config.pbtxt')).toThrow(
      /invalid repo\/x\/config.pbtxt: .*unknown field "max_batch"/,
    );
    expect(() => parsePbtxt('input [ { name: "a" ')).toThrow(/invalid config.pbtxt/);
    expect(() => parsePbtxt('input [ { data_type: TYPE_NOPE } ]')).toThrow(/invalid config.pbtxt/);
  });

  it('parses the JSON form the load API carries and fills Triton defaults', () => {
    const config = completeConfig(
      parseConfigJson({
        max_batch_size: 4,
        platform: 'onnxruntime_onnx',
        input: [{ name: 'i', data_type: 'TYPE_FP16', dims: [2] }],
      }),
      'm',
    );
    expect(config.name).toBe('m');
    expect(config.backend).toBe('onnxruntime');
    // Triton's defaults: one group named after the model, two CPU instances for onnxruntime.
    expect(config.instance_group).toEqual([
      {
        name: 'm',
        kind: 'KIND_CPU',
        count: 2,
        gpus: [],
        secondary_devices: [],
        profile: [],
        passive: false,
        host_policy: '',
      },
    ]);
    expect(config.version_policy).toEqual({ latest: { num_versions: 1 } });
    expect(config.dynamic_batching).toBeUndefined();
    expect(config.default_model_filename).toBe('model.onnx');
    expect(config.optimization).toMatchObject({
      input_pinned_memory: { enable: true },
      output_pinned_memory: { enable: true },
    });
    // Fields in the order model_config.proto declares them, as Triton prints them.
    expect(Object.keys(config).slice(0, 6)).toEqual([
      'name',
      'platform',
      'backend',
      'runtime',
      'version_policy',
      'max_batch_size',
    ]);
  });

  it('names unnamed instance groups <model>_<index>, fills preferred_batch_size, and finds the backend', () => {
    const config = completeConfig(
      parseConfigJson({
        backend: 'simulated',
        max_batch_size: 8,
        dynamic_batching: {},
        instance_group: [{ count: 2 }, { name: 'mine', kind: 'KIND_AUTO' }],
      }),
      'm',
    );
    expect(config.instance_group.map((g) => [g.name, g.kind, g.count])).toEqual([
      ['m_0', 'KIND_CPU', 2],
      ['mine', 'KIND_CPU', 1],
    ]);
    expect(config.dynamic_batching?.preferred_batch_size).toEqual([8]);
    expect(completeConfig(parseConfigJson({ default_model_filename: 'model.plan' }), 'p').backend).toBe(
      'tensorrt',
    );
    expect(completeConfig(parseConfigJson({}), 'x.identity').backend).toBe('identity');
    // No platform, backend or model file named: the model file in the first version folder says it.
    const onnx = completeConfig(parseConfigJson({}), 'o', new Map([['model.onnx', false]]));
    expect([onnx.platform, onnx.backend, onnx.default_model_filename]).toEqual([
      'onnxruntime_onnx',
      'onnxruntime',
      'model.onnx',
    ]);
    expect(completeConfig(parseConfigJson({}), 's', new Map([['model.savedmodel', true]])).backend).toBe(
      'tensorflow',
    );
    expect(() => completeConfig(parseConfigJson({}), 'nobackend')).toThrow(
      /Could not determine backend for model 'nobackend'/,
    );
  });
});

describe("Triton's config checks (config/validate.ts)", () => {
  const base = {
    name: 'm',
    platform: 'onnxruntime_onnx',
    max_batch_size: 4,
    input: [{ name: 'i', data_type: 'TYPE_FP32', dims: [2] }],
    output: [{ name: 'o', data_type: 'TYPE_FP32', dims: [2] }],
  };
  const config = (extra: object) => completeConfig(parseConfigJson({ ...base, ...extra }), 'm');

  it('refuses when it reads a config: a negative max_batch_size, a preferred batch above it, a platform the backend is not', () => {
    expect(() => validateConfig(config({}))).not.toThrow();
    expect(() => validateConfig(config({ max_batch_size: -1 }))).toThrow(
      "'max_batch_size' must be non-negative value for m",
    );
    expect(() => validateConfig(config({ dynamic_batching: { preferred_batch_size: [8] } }))).toThrow(
      'dynamic batching preferred size must be <= max batch size for m',
    );
    expect(() => validateConfig(config({ backend: 'tensorrt' }))).toThrow(
      "unexpected 'platform' and 'backend' pair, got:onnxruntime_onnx, tensorrt",
    );
    expect(() => validateConfig(config({ platform: 'nope' }))).toThrow(
      "unexpected platform type 'nope' for m",
    );
  });

  it('refuses at load a tensor without dims or type, with a dim below 1 other than -1, or a reshape of another size', () => {
    expect(() => validateIo(config({}))).not.toThrow();
    expect(() => validateIo(config({ input: [{ name: 'i', data_type: 'TYPE_FP32' }] }))).toThrow(
      "model input 'i' must specify 'dims' for m",
    );
    expect(() => validateIo(config({ input: [{ name: 'i', dims: [2] }] }))).toThrow(
      "model input 'i' must specify 'data_type' for m",
    );
    expect(() => validateIo(config({ output: [{ name: 'o', data_type: 'TYPE_FP32', dims: [0] }] }))).toThrow(
      "model output 'o' dimension must be integer >= 1, or -1 to indicate a variable-size dimension for m",
    );
    const reshape = { name: 'i', data_type: 'TYPE_FP32', dims: [2, 3], reshape: { shape: [5] } };
    expect(() => validateIo(config({ input: [reshape] }))).toThrow(
      "model input 'i' has different size for dims and reshape for m",
    );
  });
});
