import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import {
  buildGrpcInferRequest,
  decodeGrpcInferResponse,
  fromInferParameters,
  grpcMethod,
  readStreamInferResponse,
  toInferParameter,
} from '../../lib/kserve/grpc-messages.ts';
import { encodeTensor } from '../../lib/tensor/index.ts';

const PROTO_DIR = fileURLToPath(new URL('../../proto', import.meta.url));

type Method = grpc.MethodDefinition<object, object>;

/** ModelInfer's (de)serialisers under given loader options. */
function modelInfer(options: protoLoader.Options): Method {
  const definition = protoLoader.loadSync('grpc_service.proto', { includeDirs: [PROTO_DIR], ...options });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
  };
  return loaded.inference.GRPCInferenceService.service.ModelInfer as Method;
}

/** Proto names in, as k6 sends; protojson-like objects out (camelCase, int64 and bytes as strings), as k6 returns. */
const protoNames = modelInfer({ keepCase: true, longs: String });
const protojsonLike = modelInfer({ keepCase: false, longs: String, bytes: String, defaults: true });

describe('buildGrpcInferRequest', () => {
  const inputs = [
    { name: 'input__0', datatype: 'FP32' as const, shape: [2, 1], data: encodeTensor('FP32', [1, -0.5]) },
    { name: 'input__1', datatype: 'INT64' as const, shape: [2, 1], data: encodeTensor('INT64', [3, 99]) },
  ];

  it('builds proto-named fields with base64 raw_input_contents in input order', () => {
    const request = buildGrpcInferRequest('dlrm', inputs, {
      outputs: ['output__0'],
      id: 'a',
      parameters: { priority: 1 },
    });
    expect(request).toEqual({
      model_name: 'dlrm',
      model_version: '',
      id: 'a',
      parameters: { priority: { int64_param: '1' } },
      inputs: [
        { name: 'input__0', datatype: 'FP32', shape: [2, 1] },
        { name: 'input__1', datatype: 'INT64', shape: [2, 1] },
      ],
      outputs: [{ name: 'output__0' }],
      raw_input_contents: ['AACAPwAAAL8=', 'AwAAAAAAAABjAAAAAAAAAA=='],
    });
  });

  it('serialises through the protos with the exact tensor bytes', () => {
    const request = buildGrpcInferRequest('dlrm', inputs, { version: '2' });
    const wire = protoNames.requestSerialize(request);
    const back = protoNames.requestDeserialize(wire) as {
      model_version: string;
      inputs: { shape: string[] }[];
      raw_input_contents: Buffer[];
    };
    expect(back.model_version).toBe('2');
    expect(back.inputs[1]!.shape).toEqual(['2', '1']);
    expect([...back.raw_input_contents[0]!]).toEqual([...inputs[0]!.data]);
    expect([...back.raw_input_contents[1]!]).toEqual([...inputs[1]!.data]);
  });

  it('uses an injected base64 encoder and validates inputs', () => {
    const request = buildGrpcInferRequest('m', inputs.slice(0, 1), {
      encodeBase64: (bytes) => `len:${bytes.length}`,
    });
    expect(request.raw_input_contents).toEqual(['len:8']);
    expect(() =>
      buildGrpcInferRequest('m', [{ name: 'x', datatype: 'FP32', shape: [3], data: new Uint8Array(8) }]),
    ).toThrow('invalid tensor "x": expected FP32 [3] (12 bytes), got 8 bytes');
  });

  it('names methods inference.GRPCInferenceService/<Method>', () => {
    expect(grpcMethod('ModelInfer')).toBe('inference.GRPCInferenceService/ModelInfer');
  });
});

describe('decodeGrpcInferResponse', () => {
  it('decodes a k6-style message: camelCase, shape as strings, raw contents as base64', () => {
    const result = decodeGrpcInferResponse({
      modelName: 'resnext101-32x4d',
      modelVersion: '1',
      id: '',
      parameters: {},
      outputs: [{ name: 'OUTPUT__0', datatype: 'FP16', shape: ['1', '2'], parameters: {}, contents: null }],
      rawOutputContents: ['ADwAwA=='],
    });
    expect(result).toMatchObject({ modelName: 'resnext101-32x4d', modelVersion: '1' });
    expect(result.id).toBeUndefined();
    expect(result.outputs[0]!.shape).toEqual([1, 2]);
    expect(Array.from(result.outputs[0]!.data as Float32Array)).toEqual([1, -2]);
  });

  it('decodes a response serialised through the protos and read back protojson-style', () => {
    const wire = protoNames.responseSerialize({
      model_name: 'bert-base',
      model_version: '1',
      id: 'q7',
      outputs: [
        { name: 'start_logits', datatype: 'FP32', shape: [1, 3] },
        { name: 'end_logits', datatype: 'FP32', shape: [1, 3] },
      ],
      raw_output_contents: [
        Buffer.from(encodeTensor('FP32', [0.5, 1, -1])),
        Buffer.from(encodeTensor('FP32', [2, 0, -4])),
      ],
      parameters: { sequence_id: { int64_param: '12' }, done: { bool_param: true } },
    });
    const message = protojsonLike.responseDeserialize(wire);
    const result = decodeGrpcInferResponse(message);
    expect(result.id).toBe('q7');
    expect(result.parameters).toEqual({ sequence_id: 12, done: true });
    expect(result.outputs.map((o) => [o.name, o.shape, Array.from(o.data as Float32Array)])).toEqual([
      ['start_logits', [1, 3], [0.5, 1, -1]],
      ['end_logits', [1, 3], [2, 0, -4]],
    ]);
  });

  it('falls back to typed contents when there are no raw contents', () => {
    const result = decodeGrpcInferResponse({
      model_name: 'm',
      outputs: [
        { name: 'probs', datatype: 'FP32', shape: [2], contents: { fp32_contents: [0.25, 0.75] } },
        { name: 'ids', datatype: 'INT64', shape: [1], contents: { int64Contents: ['5'] } },
        { name: 'label', datatype: 'BYTES', shape: [1], contents: { bytesContents: ['Y2F0'] } },
      ],
    });
    expect(result.outputs.map((o) => o.data)).toEqual([[0.25, 0.75], [5], ['cat']]);
  });

  it('reports a raw-contents count that does not match the outputs', () => {
    expect(() =>
      decodeGrpcInferResponse({
        outputs: [
          { name: 'a', datatype: 'UINT8', shape: ['1'] },
          { name: 'b', datatype: 'UINT8', shape: ['1'] },
        ],
        rawOutputContents: ['AQ=='],
      }),
    ).toThrow('2 outputs but 1 raw_output_contents');
  });
});

describe('parameters and streams', () => {
  it('maps parameter values to InferParameter members and back', () => {
    expect(toInferParameter(true)).toEqual({ bool_param: true });
    expect(toInferParameter(7)).toEqual({ int64_param: '7' });
    expect(toInferParameter(0.5)).toEqual({ double_param: 0.5 });
    expect(toInferParameter('x')).toEqual({ string_param: 'x' });
    expect(
      fromInferParameters({
        a: { boolParam: false },
        b: { int64Param: '3' },
        c: { stringParam: 's' },
        d: { doubleParam: 1.5 },
      }),
    ).toEqual({ a: false, b: 3, c: 's', d: 1.5 });
  });

  it('splits ModelStreamInferResponse into error and response', () => {
    expect(readStreamInferResponse({ errorMessage: 'model not ready', inferResponse: null })).toEqual({
      error: 'model not ready',
    });
    const read = readStreamInferResponse({ errorMessage: '', inferResponse: { id: 's3', modelName: 'm' } });
    expect(read.error).toBeUndefined();
    expect(read.id).toBe('s3');
    expect(read.response).toEqual({ id: 's3', modelName: 'm' });
  });
});
