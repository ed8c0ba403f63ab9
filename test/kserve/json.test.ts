import { describe, expect, it } from 'vitest';
import { buildJsonInferRequest, parseJsonInferResponse } from '../../lib/kserve/json.ts';
import { encodeTensor } from '../../lib/tensor/index.ts';

describe('buildJsonInferRequest', () => {
  it('decodes raw tensors into flat JSON data arrays', () => {
    const request = buildJsonInferRequest([
      { name: 'input_ids', datatype: 'INT32', shape: [1, 3], data: encodeTensor('INT32', [101, 2054, 102]) },
      { name: 'flag', datatype: 'BOOL', shape: [1], data: encodeTensor('BOOL', [true]) },
    ]);
    expect(request.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(request.body).toBe(
      '{"inputs":[{"name":"input_ids","shape":[1,3],"datatype":"INT32","data":[101,2054,102]},' +
        '{"name":"flag","shape":[1],"datatype":"BOOL","data":[true]}]}',
    );
  });

  it('accepts value arrays and lists outputs as JSON unless binaryOutputs is set', () => {
    const plain = buildJsonInferRequest([{ name: 'T', datatype: 'BYTES', shape: [1], data: ['hello'] }], {
      outputs: ['OUT'],
    });
    expect(JSON.parse(plain.body)).toEqual({
      inputs: [{ name: 'T', shape: [1], datatype: 'BYTES', data: ['hello'] }],
      outputs: [{ name: 'OUT' }],
    });
    const binary = buildJsonInferRequest([{ name: 'X', datatype: 'FP32', shape: [1], data: [1.5] }], {
      binaryOutputs: true,
    });
    expect(JSON.parse(binary.body).parameters).toEqual({ binary_data_output: true });
  });

  it('refuses FP16 and BF16 inputs, pointing at the binary extension', () => {
    expect(() =>
      buildJsonInferRequest([{ name: 'INPUT__0', datatype: 'FP16', shape: [1], data: new Uint8Array(2) }]),
    ).toThrow(
      'input "INPUT__0" is FP16, which has no JSON representation; send it with the binary tensor extension',
    );
    expect(() => buildJsonInferRequest([{ name: 'B', datatype: 'BF16', shape: [1], data: [1] }])).toThrow(
      'BF16',
    );
  });
});

describe('parseJsonInferResponse', () => {
  it('parses text bodies with flat and nested data', () => {
    const result = parseJsonInferResponse(
      '{"model_name":"bert","model_version":"1","outputs":[' +
        '{"name":"start_logits","datatype":"FP32","shape":[1,2],"data":[0.25,-3]},' +
        '{"name":"flags","datatype":"BOOL","shape":[2,1],"data":[[true],[false]]}]}',
    );
    expect(result.outputs[0]).toEqual({
      name: 'start_logits',
      datatype: 'FP32',
      shape: [1, 2],
      data: [0.25, -3],
    });
    expect(result.outputs[1]!.data).toEqual([true, false]);
  });

  it('rejects non-JSON bodies and unknown datatypes', () => {
    expect(() => parseJsonInferResponse('<html>')).toThrow('invalid response: body is not JSON');
    expect(() =>
      parseJsonInferResponse(
        '{"model_name":"m","outputs":[{"name":"O","datatype":"FP8","shape":[1],"data":[1]}]}',
      ),
    ).toThrow('output "O" has unknown datatype "FP8"');
  });
});
