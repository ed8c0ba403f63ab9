import { describe, expect, it } from 'vitest';
import { buildBinaryInferRequest, parseBinaryInferResponse } from '../../lib/kserve/binary.ts';
import { parseHttpInferResponse } from '../../lib/kserve/response.ts';

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

describe('buildBinaryInferRequest layout', () => {
  it('writes the JSON header then the tensor bytes, byte for byte', () => {
    const request = buildBinaryInferRequest(
      [
        {
          name: 'INPUT0',
          datatype: 'INT32',
          shape: [1, 2],
          data: new Uint8Array([1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]),
        },
      ],
      { outputs: ['OUTPUT0'] },
    );
    const header =
      '{"inputs":[{"name":"INPUT0","shape":[1,2],"datatype":"INT32","parameters":{"binary_data_size":8}}],' +
      '"outputs":[{"name":"OUTPUT0","parameters":{"binary_data":true}}]}';
    expect(request.headerLength).toBe(164);
    expect(request.headers).toEqual({
      'Content-Type': 'application/octet-stream',
      'Inference-Header-Content-Length': '164',
    });
    expect([...new Uint8Array(request.body)]).toEqual([
      ...ascii(header),
      0x01,
      0x00,
      0x00,
      0x00,
      0xfe,
      0xff,
      0xff,
      0xff,
    ]);
  });

  it('asks for binary_data_output when no outputs are listed, and keeps id and input order', () => {
    const request = buildBinaryInferRequest(
      [
        { name: 'A', datatype: 'FP16', shape: [2], data: new Uint8Array([0x00, 0x3c, 0x00, 0xc0]) },
        { name: 'T', datatype: 'BYTES', shape: [1], data: new Uint8Array([2, 0, 0, 0, 0x68, 0x69]) },
      ],
      { id: 'r1' },
    );
    const header =
      '{"id":"r1","parameters":{"binary_data_output":true},' +
      '"inputs":[{"name":"A","shape":[2],"datatype":"FP16","parameters":{"binary_data_size":4}},' +
      '{"name":"T","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":6}}]}';
    expect(request.headerLength).toBe(222);
    expect([...new Uint8Array(request.body)]).toEqual([
      ...ascii(header),
      0x00,
      0x3c,
      0x00,
      0xc0,
      0x02,
      0x00,
      0x00,
      0x00,
      0x68,
      0x69,
    ]);
  });

  it('returns JSON outputs when binaryOutputs is false, with per-output overrides', () => {
    const request = buildBinaryInferRequest(
      [{ name: 'X', datatype: 'UINT8', shape: [1], data: new Uint8Array([9]) }],
      {
        binaryOutputs: false,
        outputs: ['JSON_OUT', { name: 'BIN_OUT', binary: true }, { name: 'TOP', classification: 3 }],
      },
    );
    const header = new TextDecoder().decode(new Uint8Array(request.body, 0, request.headerLength));
    expect(JSON.parse(header)).toEqual({
      inputs: [{ name: 'X', shape: [1], datatype: 'UINT8', parameters: { binary_data_size: 1 } }],
      outputs: [
        { name: 'JSON_OUT' },
        { name: 'BIN_OUT', parameters: { binary_data: true } },
        { name: 'TOP', parameters: { classification: 3 } },
      ],
    });
  });

  it('rejects an input whose bytes do not fit its shape, naming it', () => {
    expect(() =>
      buildBinaryInferRequest([
        { name: 'INPUT__0', datatype: 'FP32', shape: [1, 3, 224, 224], data: new Uint8Array(1000) },
      ]),
    ).toThrow('invalid tensor "INPUT__0": expected FP32 [1,3,224,224] (602112 bytes), got 1000 bytes');
    expect(() => buildBinaryInferRequest([])).toThrow('at least one input');
  });
});

describe('binary response parsing', () => {
  const header =
    '{"model_name":"m","model_version":"1","id":"42","outputs":[' +
    '{"name":"OUT","datatype":"FP32","shape":[1,2],"parameters":{"binary_data_size":8}},' +
    '{"name":"LBL","datatype":"BYTES","shape":[1],"data":["cat"]},' +
    '{"name":"IDX","datatype":"INT64","shape":[1,1],"parameters":{"binary_data_size":8}}]}';
  const tail = [0, 0, 0, 0x3f, 0, 0, 0x80, 0xbf, 7, 0, 0, 0, 0, 0, 0, 0];
  const body = new Uint8Array([...ascii(header), ...tail]);

  it('slices binary outputs from the tail in order and keeps JSON outputs', () => {
    const result = parseBinaryInferResponse(body.buffer, header.length);
    expect(result.modelName).toBe('m');
    expect(result.modelVersion).toBe('1');
    expect(result.id).toBe('42');
    expect(result.outputs.map((o) => [o.name, o.datatype, o.shape])).toEqual([
      ['OUT', 'FP32', [1, 2]],
      ['LBL', 'BYTES', [1]],
      ['IDX', 'INT64', [1, 1]],
    ]);
    expect(Array.from(result.outputs[0]!.data as Float32Array)).toEqual([0.5, -1]);
    expect(result.outputs[1]!.data).toEqual(['cat']);
    expect(result.outputs[2]!.data).toEqual([7]);
    expect([...result.outputs[2]!.bytes!]).toEqual([7, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('reads the header length from a lowercased header (Node) through parseHttpInferResponse', () => {
    const result = parseHttpInferResponse({
      status: 200,
      headers: { 'inference-header-content-length': String(header.length) },
      body: body.buffer,
    });
    expect(Array.from(result.outputs[0]!.data as Float32Array)).toEqual([0.5, -1]);
  });

  it('treats a body without the header as all JSON', () => {
    const json =
      '{"model_name":"m","outputs":[{"name":"O","datatype":"INT32","shape":[2,2],"data":[[1,2],[3,4]]}]}';
    const result = parseHttpInferResponse({
      status: 200,
      headers: {},
      body: new Uint8Array(ascii(json)).buffer,
    });
    expect(result.modelVersion).toBe('');
    expect(result.outputs[0]!.data).toEqual([1, 2, 3, 4]);
  });

  it('reports truncated binary data and server errors', () => {
    expect(() => parseBinaryInferResponse(body.subarray(0, body.length - 4), header.length)).toThrow(
      'output "IDX" declares 8 binary bytes, 4 remain',
    );
    expect(() =>
      parseHttpInferResponse({
        status: 400,
        headers: {},
        body: '{"error":"unexpected inference input \'X\'"}',
      }),
    ).toThrow("infer failed with HTTP 400: unexpected inference input 'X'");
    expect(() =>
      parseHttpInferResponse({
        status: 200,
        headers: { 'Inference-Header-Content-Length': '9999' },
        body: body.buffer,
      }),
    ).toThrow('Inference-Header-Content-Length is 9999 but the body has');
  });
});
