import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { expectedFloat } from '../expected-outputs.ts';
import {
  binaryBody,
  fp32Bytes,
  http,
  int32Bytes,
  makeRepository,
  removeRepository,
  start,
} from '../helpers.ts';
import { NOBATCH, SIMPLE, STRINGS } from '../repo-fixtures.ts';

const seq = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);

describe('HTTP infer', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, nobatch: NOBATCH, strings: STRINGS });
    server = await start({ modelRepository: repo });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  const jsonRequest = (extra: object = {}) => ({
    inputs: [
      { name: 'INPUT0', shape: [1, 16], datatype: 'INT32', data: seq(16) },
      { name: 'INPUT1', shape: [1, 16], datatype: 'INT32', data: seq(16, 100) },
    ],
    ...extra,
  });

  it('answers a JSON request with JSON outputs of the right names, shapes, datatypes and values', async () => {
    const res = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      JSON.stringify(jsonRequest({ id: 'req-1' })),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('inference-header-content-length')).toBeNull();
    const json = res.json();
    expect(json.model_name).toBe('simple');
    expect(json.model_version).toBe('1');
    expect(json.id).toBe('req-1');
    expect(json.outputs.map((o: { name: string }) => o.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
    const out0 = json.outputs[0];
    expect(out0).toMatchObject({ datatype: 'FP32', shape: [1, 16] });
    const parts = [int32Bytes(seq(16)), int32Bytes(seq(16, 100))];
    expect(out0.data.map((v: number) => Math.fround(v))).toEqual(seq(16).map((j) => expectedFloat(parts, j)));
    expect(json.outputs[1]).toMatchObject({ datatype: 'INT32', shape: [1, 4] });
    expect(json.outputs[1].data.every((v: number) => Number.isInteger(v) && v >= 0 && v < 100)).toBe(true);
  });

  it('accepts nested JSON data arrays', async () => {
    const body = jsonRequest();
    (body.inputs[0] as { data: unknown }).data = [seq(16)];
    const res = await http(server, 'POST', '/v2/models/simple/infer', JSON.stringify(body));
    expect(res.status).toBe(200);
  });

  it('answers binary inputs with binary outputs when binary_data_output is set, same values as JSON', async () => {
    const header = {
      parameters: { binary_data_output: true },
      inputs: [
        { name: 'INPUT0', shape: [1, 16], datatype: 'INT32', parameters: { binary_data_size: 64 } },
        { name: 'INPUT1', shape: [1, 16], datatype: 'INT32', parameters: { binary_data_size: 64 } },
      ],
    };
    const { body, headerLength } = binaryBody(header, [int32Bytes(seq(16)), int32Bytes(seq(16, 100))]);
    const res = await http(server, 'POST', '/v2/models/simple/infer', body, {
      'Inference-Header-Content-Length': String(headerLength),
      'Content-Type': 'application/octet-stream',
    });
    expect(res.status).toBe(200);
    const hl = Number(res.headers.get('inference-header-content-length'));
    const head = JSON.parse(res.body.subarray(0, hl).toString());
    expect(head.outputs[0]).toEqual({
      name: 'OUTPUT0',
      datatype: 'FP32',
      shape: [1, 16],
      parameters: { binary_data_size: 64 },
    });
    expect(head.outputs[1].parameters.binary_data_size).toBe(16);
    expect(res.body.length).toBe(hl + 64 + 16);
    const first = res.body.readFloatLE(hl);
    expect(first).toBe(expectedFloat([int32Bytes(seq(16)), int32Bytes(seq(16, 100))], 0));
  });

  it('mixes JSON and binary outputs per output binary_data, and returns only requested outputs', async () => {
    const req = jsonRequest({
      outputs: [{ name: 'OUTPUT1', parameters: { binary_data: true } }],
    });
    const res = await http(server, 'POST', '/v2/models/simple/infer', JSON.stringify(req));
    const hl = Number(res.headers.get('inference-header-content-length'));
    expect(hl).toBeGreaterThan(0);
    const head = JSON.parse(res.body.subarray(0, hl).toString());
    expect(head.outputs).toHaveLength(1);
    expect(head.outputs[0].name).toBe('OUTPUT1');
    expect(res.body.length - hl).toBe(16);
    const json = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      JSON.stringify(jsonRequest({ outputs: [{ name: 'OUTPUT0' }] })),
    );
    expect(json.json().outputs.map((o: { name: string }) => o.name)).toEqual(['OUTPUT0']);
  });

  it('serves a raw binary request (header length 0) on a single-input model', async () => {
    const image = fp32Bytes(seq(784).map((i) => i / 784));
    const res = await http(server, 'POST', '/v2/models/nobatch/infer', image, {
      'Inference-Header-Content-Length': '0',
    });
    expect(res.status).toBe(200);
    const hl = Number(res.headers.get('inference-header-content-length'));
    const head = JSON.parse(res.body.subarray(0, hl).toString());
    expect(head.outputs[0]).toMatchObject({ name: 'output', datatype: 'FP32', shape: [1, 10] });
    expect(res.body.length - hl).toBe(40);
    expect(res.body.readFloatLE(hl + 4)).toBe(expectedFloat([image], 1));
  });

  it('runs a batch-3 request and splits nothing: the outputs carry the batch dimension', async () => {
    const body = {
      inputs: [
        { name: 'INPUT0', shape: [3, 16], datatype: 'INT32', data: seq(48) },
        { name: 'INPUT1', shape: [3, 16], datatype: 'INT32', data: seq(48) },
      ],
    };
    const json = (await http(server, 'POST', '/v2/models/simple/infer', JSON.stringify(body))).json();
    expect(json.outputs[0].shape).toEqual([3, 16]);
    const item2 = [int32Bytes(seq(16, 32)), int32Bytes(seq(16, 32))];
    expect(Math.fround(json.outputs[0].data[32])).toBe(expectedFloat(item2, 0));
  });

  it('serves BYTES tensors in JSON and binary form', async () => {
    const body = { inputs: [{ name: 'TEXT', shape: [1, 2], datatype: 'BYTES', data: ['hello', 'world'] }] };
    const res = await http(server, 'POST', '/v2/models/strings/infer', JSON.stringify(body));
    expect(res.status).toBe(200);
    const out = res.json().outputs[0];
    expect(out).toMatchObject({ name: 'LABEL', datatype: 'BYTES', shape: [1, 1] });
    expect(out.data[0]).toMatch(/^[0-9a-f]+$/);
    const raw = Buffer.concat([
      Buffer.from([5, 0, 0, 0]),
      Buffer.from('hello'),
      Buffer.from([5, 0, 0, 0]),
      Buffer.from('world'),
    ]);
    const { body: bin, headerLength } = binaryBody(
      {
        inputs: [
          { name: 'TEXT', shape: [1, 2], datatype: 'BYTES', parameters: { binary_data_size: raw.length } },
        ],
      },
      [raw],
    );
    const res2 = await http(server, 'POST', '/v2/models/strings/infer', bin, {
      'Inference-Header-Content-Length': String(headerLength),
    });
    expect(res2.json().outputs[0].data).toEqual(out.data);
  });

  it('answers the classification extension: top-k "value:index" strings per batch item', async () => {
    const plain = (
      await http(server, 'POST', '/v2/models/simple/infer', JSON.stringify(jsonRequest()))
    ).json();
    const values: number[] = plain.outputs[0].data;
    const order = values.map((_, i) => i).sort((a, b) => values[b]! - values[a]!);
    const res = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      JSON.stringify(jsonRequest({ outputs: [{ name: 'OUTPUT0', parameters: { classification: 3 } }] })),
    );
    expect(res.status).toBe(200);
    const out = res.json().outputs[0];
    expect(out).toMatchObject({ name: 'OUTPUT0', datatype: 'BYTES', shape: [1, 3] });
    expect(out.data).toEqual(order.slice(0, 3).map((i) => `${values[i]!.toFixed(6)}:${i}`));
  });

  it('accepts a gzip-compressed body', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      gzipSync(JSON.stringify(jsonRequest())),
      {
        'Content-Encoding': 'gzip',
      },
    );
    expect(res.status).toBe(200);
  });
});
