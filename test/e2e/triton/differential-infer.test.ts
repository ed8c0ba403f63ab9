/**
 * Inference on the embedded server against real Triton 2.60.0, on one model repository (infer-repository.ts):
 * HTTP JSON and binary tensors, raw bodies, requested outputs, classification, gRPC ModelInfer and
 * ModelStreamInfer, compression both ways, bad input over both protocols, and which statistics move when
 * requests fail. Both servers get the same bytes; answers are compared whole (status, Content-Type, error
 * words), outputs numerically. Tests only compare, so their order does not matter. Where the servers differ on
 * purpose the test says so, and packages/server/README.md lists it. Skipped where tritonserver is absent.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTensor } from '../../../lib/tensor/codec.ts';
import { CATALOG } from '../../../models/catalog.ts';
import type { Datatype } from '../../../lib/tensor/datatypes.ts';
import type { ModelEntry } from '../../../models/types.ts';
import { catalogInputs } from '../../onnx/catalog-inputs.ts';
import {
  type GrpcAnswer,
  type HttpAnswer,
  httpError,
  type InferJson,
  inferBody,
  inferenceClient,
  type Msg,
  post,
} from './infer-clients.ts';
import { removeInferRepository, writeInferRepository } from './infer-repository.ts';
import { REAL_TRITON, startPair, type Target } from './servers.ts';

/** Largest difference allowed between the two servers' FP32 outputs (the same ONNX graph on ONNX Runtime). */
const FP32_TOLERANCE = 1e-5;

const PIXELS = Array.from({ length: 784 }, (_, i) => ((i * 7) % 13) / 13);
const PIXELS_2 = Array.from({ length: 784 }, (_, i) => ((i * 5) % 11) / 11);
const SEQ = Array.from({ length: 16 }, (_, i) => i - 4);
const TWOS = Array.from({ length: 16 }, () => 2);

const fp32 = (values: number[]) => Buffer.from(Float32Array.from(values).buffer);
const int32 = (values: number[]) => Buffer.from(Int32Array.from(values).buffer);

/** One input of a test request, with its values and bytes. */
interface InputCase {
  name: string;
  datatype: Datatype;
  shape: number[];
  values: number[];
  bytes: Buffer;
}

const mnistInput = (shape: number[], values = PIXELS): InputCase => ({
  name: 'input.1',
  datatype: 'FP32',
  shape,
  values,
  bytes: fp32(values),
});
const simpleInputs = (batch = 1): InputCase[] => [
  {
    name: 'INPUT0',
    datatype: 'INT32',
    shape: [batch, 16],
    values: rep(SEQ, batch),
    bytes: int32(rep(SEQ, batch)),
  },
  {
    name: 'INPUT1',
    datatype: 'INT32',
    shape: [batch, 16],
    values: rep(TWOS, batch),
    bytes: int32(rep(TWOS, batch)),
  },
];
function rep(values: number[], times: number): number[] {
  return Array.from({ length: times }, () => values).flat();
}

/** A catalog model's request (test/onnx/catalog-inputs.ts): `batch` items where the model batches. */
function catalogCase(entry: ModelEntry, batch: number): InputCase[] {
  return catalogInputs(entry, { batch }).map((t) => ({
    name: t.name,
    datatype: t.datatype,
    shape: [...t.shape],
    values: values(t.datatype, t.data) as number[],
    bytes: Buffer.from(t.data),
  }));
}

/** A valid request per model: every catalog model (two items where it batches), mnist-batch and simple. */
const MODELS: Record<string, InputCase[]> = {
  ...Object.fromEntries(
    Object.values(CATALOG).map((e) => [e.name, catalogCase(e, e.maxBatchSize > 0 ? 2 : 1)]),
  ),
  'mnist-batch': [mnistInput([2, 1, 28, 28], [...PIXELS, ...PIXELS_2])],
  simple: simpleInputs(3),
};

const jsonInputs = (inputs: InputCase[]) =>
  inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape, data: t.values }));

/** A JSON header followed by binary tensors, with its Inference-Header-Content-Length. */
function binaryBody(header: object, tensors: Buffer[]): { body: Buffer; headers: Record<string, string> } {
  const json = Buffer.from(JSON.stringify(header));
  return {
    body: Buffer.concat([json, ...tensors]),
    headers: { 'Inference-Header-Content-Length': String(json.length) },
  };
}

/** Decodes output bytes to numbers (or strings) for comparison. */
function values(datatype: string, bytes: Uint8Array): unknown[] {
  return Array.from(
    decodeTensor(datatype as Datatype, new Uint8Array(bytes), undefined, {
      int64: 'number',
    }) as ArrayLike<unknown>,
  );
}

/** Asserts two value lists equal, FP32 within FP32_TOLERANCE. */
function expectClose(embedded: unknown[], triton: unknown[], datatype: string): void {
  expect(embedded.length).toBe(triton.length);
  if (datatype !== 'FP32' && datatype !== 'FP64') {
    expect(embedded).toEqual(triton);
    return;
  }
  // NaN and ±Infinity (strings from JSON, numbers from binary) compare exactly; the rest within the tolerance.
  const exact = (v: unknown) => typeof v !== 'number' || !Number.isFinite(v);
  expect(embedded.map((v) => (exact(v) ? String(v) : 'finite'))).toEqual(
    triton.map((v) => (exact(v) ? String(v) : 'finite')),
  );
  const worst = embedded.reduce<number>(
    (m, v, i) => (exact(v) ? m : Math.max(m, Math.abs((v as number) - (triton[i] as number)))),
    0,
  );
  expect(worst).toBeLessThanOrEqual(FP32_TOLERANCE);
}

/** Asserts two successful HTTP infer answers alike: headers, JSON members in order, outputs numerically. */
function expectSameInfer(e: HttpAnswer, t: HttpAnswer): void {
  expect(t.status).toBe(200);
  expect(e.status).toBe(200);
  expect([e.contentType, e.contentEncoding]).toEqual([t.contentType, t.contentEncoding]);
  expect(e.headerLength === undefined).toBe(t.headerLength === undefined);
  const a = inferBody(e);
  const b = inferBody(t);
  expect(Object.keys(a.json)).toEqual(Object.keys(b.json));
  const strip = (j: InferJson) => ({ ...j, outputs: j.outputs.map(({ data: _, ...o }) => o) });
  expect(strip(a.json)).toEqual(strip(b.json));
  let offsetA = 0;
  let offsetB = 0;
  a.json.outputs.forEach((o, i) => {
    const p = b.json.outputs[i]!;
    if (o.data) {
      expectClose(o.data, p.data!, o.datatype);
      return;
    }
    const size = Number(o.parameters?.binary_data_size);
    expectClose(
      values(o.datatype, a.binary.subarray(offsetA, offsetA + size)),
      values(p.datatype, b.binary.subarray(offsetB, offsetB + size)),
      o.datatype,
    );
    offsetA += size;
    offsetB += size;
  });
  expect([offsetA, offsetB]).toEqual([a.binary.length, b.binary.length]);
}

/** Asserts two gRPC answers alike: errors word for word, responses with outputs compared numerically. */
function expectSameGrpc(e: GrpcAnswer, t: GrpcAnswer): void {
  if (!t.ok || !e.ok) {
    expect(e).toEqual(t);
    return;
  }
  expectSameResponse(e.response, t.response);
}

function expectSameResponse(a: Msg, b: Msg): void {
  const { raw_output_contents: rawA = [], ...restA } = a;
  const { raw_output_contents: rawB = [], ...restB } = b;
  expect(restA).toEqual(restB);
  expect(rawA.length).toBe(rawB.length);
  (a.outputs ?? []).forEach((o: Msg, i: number) => {
    expectClose(values(o.datatype, rawA[i]), values(o.datatype, rawB[i]), o.datatype);
  });
}

const inferPath = (model: string) => `/v2/models/${model}/infer`;

describe.skipIf(!REAL_TRITON.path)(
  `inference against Triton 2.60.0${REAL_TRITON.path ? '' : ` (${REAL_TRITON.skipReason})`}`,
  () => {
    let repo: string;
    let pair: Awaited<ReturnType<typeof startPair>>;
    let grpcE: ReturnType<typeof inferenceClient>;
    let grpcT: ReturnType<typeof inferenceClient>;
    beforeAll(async () => {
      repo = await writeInferRepository();
      pair = await startPair(repo);
      grpcE = inferenceClient(pair.embedded);
      grpcT = inferenceClient(pair.triton);
    }, 180_000);
    afterAll(async () => {
      grpcE?.close();
      grpcT?.close();
      await pair?.stop();
      if (repo) removeInferRepository(repo);
    });

    /** The same HTTP request to both servers, embedded first. */
    const both = async (path: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      const e = await post(pair.embedded, path, body, headers);
      const t = await post(pair.triton, path, body, headers);
      return { e, t };
    };
    const bothGrpc = async (method: string, request: object) => ({
      e: await grpcE.call(method, request),
      t: await grpcT.call(method, request),
    });

    describe('HTTP', () => {
      it.each(Object.keys(MODELS))('answers JSON inference on %s with the same outputs', async (model) => {
        const { e, t } = await both(
          inferPath(model),
          JSON.stringify({ id: `json-${model}`, inputs: jsonInputs(MODELS[model]!) }),
        );
        expectSameInfer(e, t);
      });

      it.each(Object.keys(MODELS))('answers binary tensors both ways on %s alike', async (model) => {
        const inputs = MODELS[model]!;
        const { body, headers } = binaryBody(
          {
            parameters: { binary_data_output: true },
            inputs: inputs.map((t) => ({
              name: t.name,
              datatype: t.datatype,
              shape: t.shape,
              parameters: { binary_data_size: t.bytes.length },
            })),
          },
          inputs.map((t) => t.bytes),
        );
        const { e, t } = await both(inferPath(model), body, headers);
        expect(t.headerLength).toBeDefined();
        expectSameInfer(e, t);
      });

      it('reads FP32 data written as 0.0, 5e-1, NaN and Infinity alike', async () => {
        const text = JSON.stringify({ inputs: jsonInputs(MODELS['mnist-batch']!) })
          .replace(/\[0,/, '[0.0,')
          .replace(/,0,/, ',5e-1,')
          .replace(/,0,/, ',NaN,')
          .replace(/,0,/, ',-Infinity,');
        const { e, t } = await both(inferPath('mnist-batch'), text);
        expectSameInfer(e, t);
      });

      it('answers binary inputs with JSON outputs, and a raw binary body, alike', async () => {
        const inputs = MODELS['onnx-mnist-cpu']!;
        const { body, headers } = binaryBody(
          {
            inputs: [
              {
                name: 'input.1',
                datatype: 'FP32',
                shape: [1, 1, 28, 28],
                parameters: { binary_data_size: 3136 },
              },
            ],
          },
          [inputs[0]!.bytes],
        );
        const mixed = await both(inferPath('onnx-mnist-cpu'), body, headers);
        expectSameInfer(mixed.e, mixed.t);
        const raw = await both(inferPath('onnx-mnist-cpu'), inputs[0]!.bytes, {
          'Inference-Header-Content-Length': '0',
        });
        expectSameInfer(raw.e, raw.t);
      });

      it.each([
        ['a subset', [{ name: 'OUTPUT1' }]],
        ['the reverse order', [{ name: 'OUTPUT1' }, { name: 'OUTPUT0' }]],
        [
          'binary_data per output',
          [
            { name: 'OUTPUT0', parameters: { binary_data: true } },
            { name: 'OUTPUT1', parameters: { binary_data: false } },
          ],
        ],
        ['one output twice', [{ name: 'OUTPUT0' }, { name: 'OUTPUT0', parameters: { binary_data: true } }]],
        [
          'classification of an INT32 output',
          [{ name: 'OUTPUT0', parameters: { classification: 4 } }, { name: 'OUTPUT1' }],
        ],
      ])('answers requested outputs (%s) alike', async (_what, outputs) => {
        const { e, t } = await both(
          inferPath('simple'),
          JSON.stringify({ inputs: jsonInputs(simpleInputs(2)), outputs }),
        );
        expectSameInfer(e, t);
      });

      it.each([
        ['onnx-mnist-cpu', 'output', 3, false],
        ['onnx-mnist-cpu', 'output', 20, true],
        ['mnist-batch', 'output', 2, false],
        ['resnext101-32x4d', 'OUTPUT__0', 5, false],
        ['bert-base', 'end_logits', 4, true],
      ] as const)(
        'answers classification on %s %s (class_count %d, binary %s) alike',
        async (model, output, count, binary) => {
          const { e, t } = await both(
            inferPath(model),
            JSON.stringify({
              inputs: jsonInputs(MODELS[model]!),
              outputs: [{ name: output, parameters: { classification: count, binary_data: binary } }],
            }),
          );
          expectSameInfer(e, t);
        },
      );
    });

    describe('gRPC', () => {
      const raw = (model: string, extra: object = {}) => {
        const inputs = MODELS[model]!;
        return {
          model_name: model,
          inputs: inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
          raw_input_contents: inputs.map((t) => t.bytes),
          ...extra,
        };
      };
      const typed = (model: string) => ({
        model_name: model,
        id: 'typed',
        inputs: MODELS[model]!.map((t) => ({
          name: t.name,
          datatype: t.datatype,
          shape: t.shape,
          contents:
            t.datatype === 'FP32'
              ? { fp32_contents: t.values }
              : t.datatype === 'INT64'
                ? { int64_contents: t.values }
                : { int_contents: t.values },
        })),
      });

      it.each(Object.keys(MODELS))(
        'answers ModelInfer with raw_input_contents on %s alike',
        async (model) => {
          const { e, t } = await bothGrpc('ModelInfer', raw(model, { id: `raw-${model}` }));
          expect(t.ok).toBe(true);
          expectSameGrpc(e, t);
        },
      );

      it.each(Object.keys(MODELS))('answers ModelInfer with typed contents on %s alike', async (model) => {
        const { e, t } = await bothGrpc('ModelInfer', typed(model));
        expect(t.ok).toBe(true);
        expectSameGrpc(e, t);
      });

      it('answers requested outputs and classification over gRPC alike', async () => {
        for (const outputs of [
          [{ name: 'OUTPUT1' }],
          [{ name: 'OUTPUT1' }, { name: 'OUTPUT0' }, { name: 'OUTPUT1' }],
          [{ name: 'OUTPUT0', parameters: { classification: { int64_param: 3 } } }],
        ]) {
          const { e, t } = await bothGrpc('ModelInfer', raw('simple', { outputs }));
          expect(t.ok).toBe(true);
          expectSameGrpc(e, t);
        }
        const { e, t } = await bothGrpc(
          'ModelInfer',
          raw('mnist-batch', {
            outputs: [{ name: 'output', parameters: { classification: { int64_param: 2 } } }],
          }),
        );
        expectSameGrpc(e, t);
      });

      it('ignores raw_input_contents beyond the inputs, as Triton does', async () => {
        const request = raw('onnx-mnist-cpu');
        const { e, t } = await bothGrpc('ModelInfer', {
          ...request,
          raw_input_contents: [...request.raw_input_contents, Buffer.alloc(12)],
        });
        expect(t.ok).toBe(true);
        expectSameGrpc(e, t);
      });

      it('answers ModelStreamInfer on a non-decoupled model alike, every answer flagged final', async () => {
        const requests = [
          raw('onnx-mnist-cpu', { id: 's1' }),
          raw('simple', {
            id: 's2',
            inputs: [
              { name: 'INPUT0', datatype: 'INT32', shape: [1, 15] },
              { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
            ],
          }),
          raw('onnx-mnist-cpu', { model_name: 'nope', model_version: '3' }),
          raw('onnx-mnist-cpu', { model_name: '' }),
          raw('mnist-batch', { model_version: '1', parameters: { timeout: { string_param: 'soon' } } }),
          raw('simple'),
        ];
        const e = await grpcE.stream(requests);
        const t = await grpcT.stream(requests);
        expect(t.messages).toHaveLength(requests.length);
        expect(t.messages[0].infer_response.parameters.triton_final_response.bool_param).toBe(true);
        expect(e.error).toEqual(t.error);
        expect(e.messages).toHaveLength(t.messages.length);
        e.messages.forEach((m: Msg, i: number) => {
          const n = t.messages[i];
          expect(m.error_message).toEqual(n.error_message);
          expectSameResponse(m.infer_response, n.infer_response);
        });
      });

      it('refuses an empty model name alike, in ModelInfer and on a stream', async () => {
        const { e, t } = await bothGrpc('ModelInfer', raw('onnx-mnist-cpu', { model_name: '' }));
        expect(t).toEqual({ ok: false, code: 5, details: "Request for unknown model: '' is not found" });
        expect(e).toEqual(t);
        const se = await grpcE.stream([{ inputs: [] }]);
        const st = await grpcT.stream([{ inputs: [] }]);
        expect(se).toEqual(st);
      });
    });

    const mnist = () => ({ inputs: jsonInputs(MODELS['onnx-mnist-cpu']!) });
    const withInput = (change: (input: Record<string, unknown>) => void) => {
      const body = mnist();
      change(body.inputs[0] as Record<string, unknown>);
      return JSON.stringify(body);
    };
    const simpleJson = (change: (inputs: Record<string, unknown>[]) => void = () => {}) => {
      const inputs = jsonInputs(simpleInputs(1)) as Record<string, unknown>[];
      change(inputs);
      return JSON.stringify({ inputs });
    };
    const identity = { 'Accept-Encoding': 'identity' };

    /** [what, model, body, headers]: malformed or invalid HTTP requests, each refused. */
    const BAD_HTTP: [string, string, string | Buffer, Record<string, string>?][] = [
      ['unparsable JSON', 'onnx-mnist-cpu', '{"inputs": ['],
      ['JSON with trailing text', 'onnx-mnist-cpu', `${JSON.stringify(mnist())}x`],
      ['an invalid escape', 'onnx-mnist-cpu', '{"id": "\\q"}'],
      ['an unpaired surrogate escape', 'onnx-mnist-cpu', '{"id": "\\ud800"}'],
      [
        'a number too big for a double',
        'onnx-mnist-cpu',
        JSON.stringify(mnist()).replace(/\d\.\d+/, '1e400'),
      ],
      ['a JSON array body', 'onnx-mnist-cpu', '[]'],
      ['no inputs', 'onnx-mnist-cpu', '{}'],
      ['inputs as an object', 'onnx-mnist-cpu', '{"inputs": {}}'],
      ['an empty inputs list', 'onnx-mnist-cpu', '{"inputs": []}'],
      ['id as a number', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), id: 5 })],
      ['parameters as an array', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), parameters: [] })],
      [
        'a reserved triton_ parameter',
        'onnx-mnist-cpu',
        JSON.stringify({ ...mnist(), parameters: { triton_x: 1 } }),
      ],
      ['a null parameter', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), parameters: { foo: null } })],
      ['timeout as a string', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), parameters: { timeout: 'x' } })],
      [
        'binary_data_output "yes"',
        'onnx-mnist-cpu',
        JSON.stringify({ ...mnist(), parameters: { binary_data_output: 'yes' } }),
      ],
      ['outputs as an object', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), outputs: {} })],
      ['an output without a name', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), outputs: [{}] })],
      ['an unknown output', 'onnx-mnist-cpu', JSON.stringify({ ...mnist(), outputs: [{ name: 'nope' }] })],
      [
        'binary_data "yes"',
        'onnx-mnist-cpu',
        JSON.stringify({ ...mnist(), outputs: [{ name: 'output', parameters: { binary_data: 'yes' } }] }),
      ],
      [
        'classification -1',
        'onnx-mnist-cpu',
        JSON.stringify({ ...mnist(), outputs: [{ name: 'output', parameters: { classification: -1 } }] }),
      ],
      ['an input without a name', 'onnx-mnist-cpu', withInput((i) => delete i.name)],
      ['an input without a datatype', 'onnx-mnist-cpu', withInput((i) => delete i.datatype)],
      ['an unknown datatype', 'onnx-mnist-cpu', withInput((i) => (i.datatype = 'FLOAT'))],
      ['the wrong datatype', 'onnx-mnist-cpu', withInput((i) => (i.datatype = 'INT32'))],
      ['a shape as a string', 'onnx-mnist-cpu', withInput((i) => (i.shape = '1,1,28,28'))],
      ['a negative dim', 'onnx-mnist-cpu', withInput((i) => (i.shape = [1, 1, -28, 28]))],
      ['the wrong shape', 'onnx-mnist-cpu', withInput((i) => (i.shape = [1, 28, 28]))],
      ['a shape the data does not fill', 'onnx-mnist-cpu', withInput((i) => (i.shape = [1, 1, 28, 27]))],
      ['a scalar shape', 'onnx-mnist-cpu', withInput((i) => (i.shape = []))],
      ['data short of the shape', 'onnx-mnist-cpu', withInput((i) => (i.data = PIXELS.slice(1)))],
      ['data as strings', 'onnx-mnist-cpu', withInput((i) => (i.data = PIXELS.map(String)))],
      ['data as a number', 'onnx-mnist-cpu', withInput((i) => (i.data = 1))],
      ['no data', 'onnx-mnist-cpu', withInput((i) => delete i.data)],
      [
        'data and binary_data_size',
        'onnx-mnist-cpu',
        withInput((i) => (i.parameters = { binary_data_size: 3136 })),
      ],
      [
        'a shared memory region',
        'onnx-mnist-cpu',
        withInput((i) => {
          delete i.data;
          i.parameters = { shared_memory_region: 'r', shared_memory_byte_size: 3136 };
        }),
      ],
      ['an unknown input', 'onnx-mnist-cpu', withInput((i) => (i.name = 'x'))],
      ['a missing input', 'simple', simpleJson((inputs) => inputs.pop())],
      ['an input twice', 'simple', simpleJson((inputs) => (inputs[1]!.name = 'INPUT0'))],
      [
        'inputs with different batch sizes',
        'simple',
        simpleJson((inputs) => {
          inputs[1]!.shape = [2, 16];
          inputs[1]!.data = rep(TWOS, 2);
        }),
      ],
      ['a batch above max_batch_size', 'simple', JSON.stringify({ inputs: jsonInputs(simpleInputs(9)) })],
      [
        'INT32 data written as a whole double',
        'simple',
        simpleJson().replace('"data":[-4,', '"data":[-4.0,'),
      ],
      [
        'INT32 data written with an exponent',
        'simple',
        simpleJson().replace('"data":[-4,-3,', '"data":[-4,3e0,'),
      ],
      [
        'INT32 data given as floats',
        'simple',
        simpleJson((inputs) => (inputs[0]!.data = SEQ.map((v) => v + 0.5))),
      ],
      [
        'a request id and the wrong shape',
        'simple',
        JSON.stringify({
          id: 'r-7',
          inputs: jsonInputs(simpleInputs(1)).map((t) => ({ ...t, shape: [16] })),
        }),
      ],
      ['an empty body (a raw body of 0 bytes)', 'onnx-mnist-cpu', ''],
      [
        'a raw body of the wrong size',
        'onnx-mnist-cpu',
        Buffer.alloc(100),
        { 'Inference-Header-Content-Length': '0' },
      ],
      [
        'a raw body to a model of two inputs',
        'simple',
        Buffer.alloc(128),
        { 'Inference-Header-Content-Length': '0' },
      ],
      [
        'Inference-Header-Content-Length beyond the body',
        'onnx-mnist-cpu',
        JSON.stringify(mnist()),
        { 'Inference-Header-Content-Length': '999999' },
      ],
      [
        'Inference-Header-Content-Length short of the JSON',
        'onnx-mnist-cpu',
        JSON.stringify(mnist()),
        { 'Inference-Header-Content-Length': '20' },
      ],
      [
        'binary_data_size past the body',
        'onnx-mnist-cpu',
        binaryBody(
          {
            inputs: [
              {
                name: 'input.1',
                datatype: 'FP32',
                shape: [1, 1, 28, 28],
                parameters: { binary_data_size: 3136 },
              },
            ],
          },
          [Buffer.alloc(3000)],
        ).body,
        {
          'Inference-Header-Content-Length': String(
            JSON.stringify({
              inputs: [
                {
                  name: 'input.1',
                  datatype: 'FP32',
                  shape: [1, 1, 28, 28],
                  parameters: { binary_data_size: 3136 },
                },
              ],
            }).length,
          ),
        },
      ],
      [
        'an unsupported Content-Encoding',
        'onnx-mnist-cpu',
        JSON.stringify(mnist()),
        { 'Content-Encoding': 'br' },
      ],
      ['an empty gzip body', 'onnx-mnist-cpu', '', { 'Content-Encoding': 'gzip' }],
      ['a corrupt gzip body', 'onnx-mnist-cpu', 'not gzip at all', { 'Content-Encoding': 'gzip' }],
      ['an unknown model', 'nope', JSON.stringify(mnist())],
      ['an unknown version', 'onnx-mnist-cpu/versions/7', JSON.stringify(mnist())],
    ];

    it.each(BAD_HTTP)('refuses %s over HTTP alike', async (_what, model, body, headers = {}) => {
      const { e, t } = await both(inferPath(model), body, { ...identity, ...headers });
      expect(t.status).toBeGreaterThanOrEqual(400);
      expect(httpError(e)).toEqual(httpError(t));
      expect(e.acceptEncoding).toEqual(t.acceptEncoding);
    });

    const rawMnist = (extra: object = {}) => ({
      model_name: 'onnx-mnist-cpu',
      inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] }],
      raw_input_contents: [fp32(PIXELS)],
      ...extra,
    });
    const rawSimple = (extra: object = {}) => ({
      model_name: 'simple',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
      ],
      raw_input_contents: [int32(SEQ), int32(TWOS)],
      ...extra,
    });
    const mnistInputWith = (change: object) => ({
      inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28], ...change }],
    });

    /** [what, request]: invalid gRPC ModelInfer requests, each refused. */
    const BAD_GRPC: [string, object][] = [
      ['an unknown model', rawMnist({ model_name: 'nope' })],
      ['an unknown version', rawMnist({ model_version: '7' })],
      ['a version that is not a number', rawMnist({ model_version: 'x' })],
      ['a negative version', rawMnist({ model_version: '-1' })],
      ['no data for an input', rawMnist({ raw_input_contents: [] })],
      ['raw and typed contents together', rawMnist(mnistInputWith({ contents: { fp32_contents: PIXELS } }))],
      [
        'typed contents of another datatype',
        rawMnist({
          raw_input_contents: [],
          ...mnistInputWith({ contents: { int_contents: PIXELS.map(() => 1) } }),
        }),
      ],
      [
        'two typed contents fields',
        rawMnist({
          raw_input_contents: [],
          ...mnistInputWith({ contents: { fp32_contents: PIXELS, int_contents: [1] } }),
        }),
      ],
      [
        'typed contents short of the shape',
        rawMnist({
          raw_input_contents: [],
          ...mnistInputWith({ contents: { fp32_contents: PIXELS.slice(1) } }),
        }),
      ],
      ['raw contents short of the shape', rawMnist({ raw_input_contents: [fp32(PIXELS.slice(1))] })],
      ['an unknown datatype', rawMnist(mnistInputWith({ datatype: 'FLOAT' }))],
      ['the wrong datatype', rawMnist(mnistInputWith({ datatype: 'INT32' }))],
      ['a -1 dim', rawMnist(mnistInputWith({ shape: [1, 1, -1, 28] }))],
      ['an unknown input', rawMnist({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 1, 28, 28] }] })],
      [
        'an input twice',
        rawSimple({
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
          ],
        }),
      ],
      ['no inputs', rawMnist({ inputs: [], raw_input_contents: [] })],
      [
        'a missing input',
        rawSimple({
          inputs: [{ name: 'INPUT1', datatype: 'INT32', shape: [1, 16] }],
          raw_input_contents: [int32(TWOS)],
        }),
      ],
      [
        'a request id and the wrong shape',
        rawSimple({
          id: 'r-8',
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 15] },
            { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
          ],
        }),
      ],
      [
        'a batch above max_batch_size',
        rawSimple({
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [9, 16] },
            { name: 'INPUT1', datatype: 'INT32', shape: [9, 16] },
          ],
          raw_input_contents: [int32(rep(SEQ, 9)), int32(rep(TWOS, 9))],
        }),
      ],
      ['an unknown output', rawMnist({ outputs: [{ name: 'nope' }] })],
      [
        'classification as a string',
        rawMnist({ outputs: [{ name: 'output', parameters: { classification: { string_param: '3' } } }] }),
      ],
      [
        'classification 0',
        rawMnist({ outputs: [{ name: 'output', parameters: { classification: { int64_param: 0 } } }] }),
      ],
      ['timeout as a string', rawMnist({ parameters: { timeout: { string_param: 'x' } } })],
      ['a negative priority', rawMnist({ parameters: { priority: { int64_param: -1 } } })],
      ['a reserved triton_ parameter', rawMnist({ parameters: { triton_x: { bool_param: true } } })],
      ['a parameter without a value', rawMnist({ parameters: { foo: {} } })],
      [
        'a shared memory region',
        rawMnist(
          mnistInputWith({
            parameters: {
              shared_memory_region: { string_param: 'r' },
              shared_memory_byte_size: { int64_param: 3136 },
            },
          }),
        ),
      ],
    ];

    it.each(BAD_GRPC)('refuses %s over gRPC alike', async (_what, request) => {
      const { e, t } = await bothGrpc('ModelInfer', request);
      expect(t.ok).toBe(false);
      expect(e).toEqual(t);
    });

    it('answers a shape error ending in a space with its code; the message reaches grpc-js clients from us only', async () => {
      // Triton's message ends in ". " when there is no batching note; gRPC C++ writes the space as it is and grpc-js
      // (nghttp2) drops such a header value. grpc-js percent-encodes it, so ours arrives (packages/server/README.md).
      const { e, t } = await bothGrpc('ModelInfer', rawMnist(mnistInputWith({ shape: [1, 28, 28] })));
      expect(t).toEqual({ ok: false, code: 3, details: '' });
      expect(e).toMatchObject({ ok: false, code: 3 });
      expect((e as { details: string }).details).toMatch(/unexpected shape for input 'input\.1' .* $/);
    });

    it('moves the same statistics and failure metrics when requests are refused', async () => {
      const snapshot = async (target: Target) => {
        const stats = (await (await fetch(`${target.url}/v2/models/stats`)).json()) as Msg;
        const metrics = await (await fetch(target.metricsUrl)).text();
        const counters: Record<string, number> = {};
        for (const s of stats.model_stats as Msg[]) {
          counters[`${s.name} success`] = s.inference_stats.success.count;
          counters[`${s.name} fail`] = s.inference_stats.fail.count;
          counters[`${s.name} inference_count`] = s.inference_count;
          counters[`${s.name} execution_count`] = s.execution_count;
        }
        for (const m of metrics.matchAll(/^(nv_inference_request_(?:failure|success))\{([^}]*)\} (\d+)/gm)) {
          counters[`${m[1]}{${m[2]!.split(',').sort().join(',')}}`] = Number(m[3]);
        }
        return counters;
      };
      const delta = (before: Record<string, number>, after: Record<string, number>) =>
        Object.fromEntries(
          Object.entries(after)
            .filter(([k, v]) => v !== (before[k] ?? 0))
            .map(([k, v]) => [k, v - (before[k] ?? 0)]),
        );
      const run = async (target: Target, client: ReturnType<typeof inferenceClient>) => {
        const before = await snapshot(target);
        for (const [, model, body, headers = {}] of BAD_HTTP)
          await post(target, inferPath(model), body, { ...identity, ...headers });
        for (const [, request] of BAD_GRPC) await client.call('ModelInfer', request);
        await client.stream([rawMnist({ inputs: [] })]);
        // One success, so that the comparison sees counters that do move.
        await post(target, inferPath('simple'), simpleJson());
        // Triton's backend reports statistics after sending the response: read once they have settled.
        let after = await snapshot(target);
        for (let i = 0; i < 40; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const again = await snapshot(target);
          const settled = JSON.stringify(again) === JSON.stringify(after);
          after = again;
          if (settled) break;
        }
        return delta(before, after);
      };
      const e = await run(pair.embedded, grpcE);
      const t = await run(pair.triton, grpcT);
      expect(t['simple success']).toBe(1);
      expect(e).toEqual(t);
    });

    describe('compression', () => {
      it.each([
        ['gzip, deflate'],
        ['deflate'],
        ['deflate, gzip'],
        ['gzip;q=0.5, deflate'],
        ['identity'],
        ['br'],
        ['*'],
        ['GZIP'],
      ])('answers Accept-Encoding: %s alike', async (accept) => {
        const { e, t } = await both(inferPath('onnx-mnist-cpu'), JSON.stringify(mnist()), {
          'Accept-Encoding': accept,
        });
        expectSameInfer(e, t);
      });

      it('compresses binary answers whole, keeping the JSON length in Inference-Header-Content-Length', async () => {
        const inputs = MODELS.simple!;
        const { body, headers } = binaryBody(
          { parameters: { binary_data_output: true }, inputs: jsonInputs(inputs) },
          [],
        );
        const { e, t } = await both(inferPath('simple'), body, { ...headers, 'Accept-Encoding': 'gzip' });
        expect(t.contentEncoding).toBe('gzip');
        expect(e.headerLength).toBe(t.headerLength);
        expectSameInfer(e, t);
      });

      it('does not compress error answers', async () => {
        const { e, t } = await both(inferPath('onnx-mnist-cpu'), '{}', { 'Accept-Encoding': 'gzip' });
        expect([e.contentEncoding, t.contentEncoding]).toEqual([undefined, undefined]);
        expect(httpError(e)).toEqual(httpError(t));
      });

      it.each([
        ['gzip', (b: Buffer) => zlib.gzipSync(b)],
        ['deflate', (b: Buffer) => zlib.deflateSync(b)],
        ['deflate', (b: Buffer) => zlib.gzipSync(b)],
      ] as const)('reads a request body sent with Content-Encoding: %s alike', async (encoding, compress) => {
        const body = compress(Buffer.from(JSON.stringify({ inputs: jsonInputs(MODELS['mnist-batch']!) })));
        const { e, t } = await both(inferPath('mnist-batch'), body, { 'Content-Encoding': encoding });
        expectSameInfer(e, t);
      });
    });
  },
);
