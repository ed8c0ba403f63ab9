/**
 * The control plane of the embedded server against real Triton 2.60.0, on one model repository (every catalog
 * model as `k6-triton repository` writes it, and MNIST copies for the repository API): health, server and model
 * metadata, model configs, statistics, Prometheus metrics and the repository API (explicit model control), over
 * HTTP and gRPC. Both servers get the same requests in the same order, so each test
 * compares whatever state the describe's earlier tests left; where they differ on purpose, the test names the
 * difference listed in packages/server/README.md. Skipped where tritonserver is absent (REAL_TRITON.skipReason).
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinaryInferRequest } from '../../../lib/kserve/binary.ts';
import { CATALOG } from '../../../models/catalog.ts';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { MNIST_MODEL_FILE, mnistModelWithBatchDim } from '../../../models/mnist/export-onnx.ts';
import { catalogInputs } from '../../onnx/catalog-inputs.ts';
import { REAL_TRITON, startPair, type Target } from './servers.ts';

const PROTO_DIR = fileURLToPath(new URL('../../../proto/', import.meta.url));

/** MNIST as Triton's ONNX Runtime backend accepts it: the shipped fixed-size model, or the batchable copy. */
function mnistConfig(name: string, maxBatch = 0, extra = ''): string {
  const [input, output] = maxBatch > 0 ? ['[ 1, 28, 28 ]', '[ 10 ]'] : ['[ 1, 1, 28, 28 ]', '[ 1, 10 ]'];
  return [
    `name: "${name}"`,
    'platform: "onnxruntime_onnx"',
    `max_batch_size: ${maxBatch}`,
    `input [ { name: "input.1" data_type: TYPE_FP32 dims: ${input} } ]`,
    `output [ { name: "output" data_type: TYPE_FP32 dims: ${output} } ]`,
    extra,
  ].join('\n');
}

/** Writes <repo>/<name>/config.pbtxt and the MNIST model (the batchable copy when `batchable`) per version. */
function writeModel(repo: string, name: string, pbtxt: string, versions = ['1'], batchable = false): void {
  mkdirSync(path.join(repo, name), { recursive: true });
  for (const v of versions) {
    mkdirSync(path.join(repo, name, v), { recursive: true });
    const file = path.join(repo, name, v, 'model.onnx');
    if (batchable) writeFileSync(file, mnistModelWithBatchDim('N'));
    else copyFileSync(MNIST_MODEL_FILE, file);
  }
  writeFileSync(path.join(repo, name, 'config.pbtxt'), pbtxt);
}

function makeRepo(models: (repo: string) => void | Promise<void>): () => Promise<string> {
  return async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'k6t-diff-control-'));
    await models(repo);
    return repo;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: answers are compared as parsed JSON
type Json = any;

/** An HTTP answer as the comparison sees it. */
interface Answer {
  status: number;
  type: string;
  body: Json;
}

async function call(
  t: Target,
  method: string,
  urlPath: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${t.url}${urlPath}`, {
    method,
    body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body),
    headers,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = text ? JSON.parse(text) : '';
  } catch {
    // Not JSON: compared as text.
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
}

/** A unary gRPC answer: the message, or the status name and details. */
type GrpcAnswer = { ok: Json } | { code: string; details: string };

/** Clients of inference.GRPCInferenceService and grpc.health.v1.Health on one target. */
function grpcClientOf(t: Target) {
  const load = (file: string) =>
    grpc.loadPackageDefinition(
      protoLoader.loadSync(file, {
        keepCase: true,
        longs: Number,
        enums: String,
        defaults: true,
        oneofs: true,
        includeDirs: [PROTO_DIR],
      }),
    ) as Json;
  const credentials = grpc.credentials.createInsecure();
  const client = new (load('grpc_service.proto').inference.GRPCInferenceService)(t.grpcUrl, credentials);
  const health = new (load('health.proto').grpc.health.v1.Health)(t.grpcUrl, credentials);
  const unary = (method: string, request: object): Promise<GrpcAnswer> =>
    new Promise((resolve) => {
      const target = method.startsWith('Health.') ? health : client;
      const name = method.replace(/^Health\./, '');
      target[name](request, { deadline: Date.now() + 60_000 }, (err: grpc.ServiceError | null, res: Json) =>
        resolve(err ? { code: grpc.status[err.code], details: err.details } : { ok: res }),
      );
    });
  return {
    unary,
    close: () => {
      client.close();
      health.close();
    },
  };
}

/** Both servers of a describe, with helpers that send one request to each, embedded first. */
function pairOf(
  makeRepository: () => Promise<string>,
  opts: { modelControl?: 'none' | 'explicit'; loadModels?: string[] } = {},
) {
  const state = { repo: '' } as {
    repo: string;
    embedded: Target;
    triton: Target;
    stop(): Promise<void>;
    grpc: { embedded: ReturnType<typeof grpcClientOf>; triton: ReturnType<typeof grpcClientOf> };
  };
  beforeAll(async () => {
    state.repo = await makeRepository();
    Object.assign(state, await startPair(state.repo, opts));
    state.grpc = { embedded: grpcClientOf(state.embedded), triton: grpcClientOf(state.triton) };
  }, 180_000);
  afterAll(async () => {
    state.grpc?.embedded.close();
    state.grpc?.triton.close();
    await state.stop?.();
    if (state.repo) rmSync(state.repo, { recursive: true, force: true });
  });
  return {
    /** The repository folder (set once the servers run). */
    get repo() {
      return state.repo;
    },
    async http(method: string, urlPath: string, body?: string | Buffer, headers?: Record<string, string>) {
      return {
        what: `${method} ${urlPath}${typeof body === 'string' ? ` ${body.slice(0, 200)}` : ''}`,
        embedded: await call(state.embedded, method, urlPath, body, headers),
        triton: await call(state.triton, method, urlPath, body, headers),
      };
    },
    async grpc(method: string, request: object = {}) {
      return {
        what: `${method} ${JSON.stringify(request).slice(0, 200)}`,
        embedded: await state.grpc.embedded.unary(method, request),
        triton: await state.grpc.triton.unary(method, request),
      };
    },
    async metrics() {
      const read = async (t: Target) => {
        const res = await fetch(t.metricsUrl);
        return { type: res.headers.get('content-type'), text: await res.text() };
      };
      return { embedded: await read(state.embedded), triton: await read(state.triton) };
    },
  };
}

/**
 * An answer with the wording differences packages/server/README.md lists taken out: the reason the embedded server adds
 * to Triton's "failed to poll" and the backends it adds to "unable to find backend".
 */
function tritonWords(value: Json): Json {
  if (typeof value === 'string')
    return value
      .replace(/(failed to poll from model repository): .*$/s, '$1')
      .replace(/ \(the embedded server has [^)]*\)/g, '');
  if (Array.isArray(value)) return value.map(tritonWords);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tritonWords(v)]));
  return value;
}

/** The same answer from both servers, HTTP or gRPC (soft: a test reports every request that differs). */
function expectSame<T>(answers: { what: string; embedded: T; triton: T }): T {
  expect.soft(tritonWords(answers.embedded), answers.what).toEqual(tritonWords(answers.triton));
  return answers.triton;
}

/** Every key path of a JSON value in order, so configs compare key order too. */
function keyPaths(value: Json, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keyPaths(v, `${prefix}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [`${prefix}.${k}`, ...keyPaths(v, `${prefix}.${k}`)]);
}

/**
 * Statistics with the times replaced by what may be compared: a duration as "ns>0" or 0, last_inference as
 * whether it is a time within a day of now in milliseconds (Triton's unit), counts as they are.
 */
function statsShape(value: Json, key = ''): Json {
  if (Array.isArray(value)) return value.map((v) => statsShape(v));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, statsShape(v, k)]));
  if (key === 'ns') return value > 0 ? 'ns>0' : 0;
  if (key === 'last_inference')
    return value === 0 ? 0 : Math.abs(value - Date.now()) < 86_400_000 ? 'ms' : value;
  return value;
}

/** A Prometheus exposition without values: each family's type and help, and each series' labels. */
function metricShape(text: string, ignore: RegExp): { families: Record<string, string>; series: string[] } {
  const families: Record<string, string> = {};
  const series: string[] = [];
  for (const line of text.split('\n')) {
    const name = /^(?:# (?:HELP|TYPE) )?([a-z_:]+)/.exec(line)?.[1];
    if (!name || ignore.test(name)) continue;
    const help = /^# HELP \S+ (.*)$/.exec(line);
    const type = /^# TYPE \S+ (\S+)$/.exec(line);
    if (help) families[`${name} help`] = help[1]!;
    else if (type) families[`${name} type`] = type[1]!;
    else if (!line.startsWith('#')) {
      const labels = /\{(.*)\}/.exec(line)?.[1] ?? '';
      series.push(
        `${name}{${labels
          .split(/,(?=[a-z_]+=)/)
          .filter(Boolean)
          .sort()
          .join(',')}}`,
      );
    }
  }
  return { families, series: series.sort() };
}

/** A binary infer request for a catalog model: `batch` items where it batches. */
function catalogRequest(id: string, batch: number): { headers: Record<string, string>; body: Buffer } {
  const entry = CATALOG[id]!;
  const request = buildBinaryInferRequest(catalogInputs(entry, { batch }), { binaryOutputs: true });
  return { headers: request.headers, body: Buffer.from(request.body) };
}

/** An MNIST infer body of `batch` images (the batch dim only when the model batches). */
function mnistInfer(batch: number, batched: boolean): string {
  const shape = batched ? [batch, 1, 28, 28] : [1, 1, 28, 28];
  return JSON.stringify({
    inputs: [{ name: 'input.1', datatype: 'FP32', shape, data: new Array(784 * batch).fill(0.5) }],
  });
}

describe.skipIf(!REAL_TRITON.path)('control plane against Triton 2.60.0: every model loaded at start', () => {
  // Every catalog model, and a batchable MNIST with dynamic batching Triton fills in.
  const repo = makeRepo(async (r) => {
    await writeCatalogRepository(r);
    writeModel(
      r,
      'onnx-mnist-cpu-batch',
      mnistConfig('onnx-mnist-cpu-batch', 8, 'dynamic_batching { }'),
      ['1'],
      true,
    );
  });
  const pair = pairOf(repo);
  const MODELS = Object.values(CATALOG)
    .map((e) => e.name)
    .concat('onnx-mnist-cpu-batch');

  it('answers health, server and model readiness alike, statuses, bodies and content types', async () => {
    for (const p of [
      '/v2/health/live',
      '/v2/health/ready',
      '/v2/models/onnx-mnist-cpu/ready',
      '/v2/models/onnx-mnist-cpu/versions/1/ready',
      '/v2/models/onnx-mnist-cpu/versions/2/ready',
      '/v2/models/nope/ready',
      '/v2/models/onnx-mnist-cpu/versions/99999999999999999999/ready',
    ])
      expectSame(await pair.http('GET', p));
    expectSame(await pair.grpc('ServerLive'));
    expectSame(await pair.grpc('ServerReady'));
    // The standard gRPC health service, which Kubernetes probes call.
    for (const request of [{}, { service: 'inference.GRPCInferenceService' }, { service: 'nope' }])
      expectSame(await pair.grpc('Health.Check', request));
    for (const request of [
      { name: 'onnx-mnist-cpu' },
      { name: 'onnx-mnist-cpu', version: '1' },
      { name: 'onnx-mnist-cpu', version: '2' },
      { name: 'onnx-mnist-cpu', version: 'x' },
      { name: 'onnx-mnist-cpu', version: '-1' },
      { name: 'nope' },
    ])
      expectSame(await pair.grpc('ModelReady', request));
  });

  it('serves the same server metadata: name, version 2.60.0 and the extensions it implements', async () => {
    const { embedded, triton } = await pair.http('GET', '/v2');
    expect(embedded.status).toBe(200);
    expect(embedded.body.name).toBe(triton.body.name);
    expect(embedded.body.version).toBe(triton.body.version);
    // The embedded server lists the extensions it implements, in Triton's order; packages/server/README.md lists the rest.
    const notImplemented = ['system_shared_memory', 'cuda_shared_memory', 'logging'];
    expect(embedded.body.extensions).toEqual(
      triton.body.extensions.filter((e: string) => !notImplemented.includes(e)),
    );
    const g = await pair.grpc('ServerMetadata');
    expect(g.embedded).toEqual({
      ok: { ...(g.triton as { ok: Json }).ok, extensions: embedded.body.extensions },
    });
  });

  it('serves the same model metadata over HTTP and gRPC, for every version form', async () => {
    for (const m of MODELS) {
      for (const v of ['', '/versions/1', '/versions/01', '/versions/2', '/versions/99999999999999999999'])
        expectSame(await pair.http('GET', `/v2/models/${m}${v}`));
      for (const version of ['', '1', '01', '2', 'x', '-1', ' 1'])
        expectSame(await pair.grpc('ModelMetadata', { name: m, version }));
    }
    expectSame(await pair.http('GET', '/v2/models/nope'));
    expectSame(await pair.grpc('ModelMetadata', { name: 'nope' }));
  });

  it('serves the same model config, every key Triton fills in, in its order', async () => {
    for (const m of MODELS) {
      const config = await pair.http('GET', `/v2/models/${m}/config`);
      expectSame(config);
      expect(keyPaths(config.embedded.body)).toEqual(keyPaths(config.triton.body));
      expectSame(await pair.grpc('ModelConfig', { name: m }));
      for (const version of ['2', 'x']) expectSame(await pair.grpc('ModelConfig', { name: m, version }));
      expectSame(await pair.http('GET', `/v2/models/${m}/versions/2/config`));
    }
  });

  it('counts the same statistics after a few inferences, with the same keys and units', async () => {
    expect(readdirSync(pair.repo).sort()).toEqual([...MODELS].sort());
    const before = await pair.http('GET', '/v2/models/stats');
    const ok = (a: { embedded: Answer; triton: Answer; what: string }) =>
      expect([a.embedded.status, a.triton.status], a.what).toEqual([200, 200]);
    for (const entry of Object.values(CATALOG)) {
      for (const batch of entry.maxBatchSize > 0 ? [2, 1] : [1]) {
        const r = catalogRequest(entry.id, batch);
        ok(await pair.http('POST', `/v2/models/${entry.name}/infer`, r.body, r.headers));
      }
    }
    for (let i = 0; i < 2; i++)
      ok(await pair.http('POST', '/v2/models/onnx-mnist-cpu/infer', mnistInfer(1, false)));
    // One at a time, so dynamic batching has nothing to merge: one batch of 2, one of 1.
    for (const batch of [2, 1])
      ok(await pair.http('POST', '/v2/models/onnx-mnist-cpu-batch/infer', mnistInfer(batch, true)));
    const after = await pair.http('GET', '/v2/models/stats');
    expect(statsShape(after.embedded.body)).toEqual(statsShape(after.triton.body));
    // What moved: each counter by the same amount on both servers.
    const moved = (a: Answer, b: Answer) =>
      a.body.model_stats.map((s: Json, i: number) => [
        s.inference_count - b.body.model_stats[i].inference_count,
        s.execution_count - b.body.model_stats[i].execution_count,
        s.inference_stats.success.count - b.body.model_stats[i].inference_stats.success.count,
      ]);
    expect(moved(after.embedded, before.embedded)).toEqual(moved(after.triton, before.triton));
    for (const m of MODELS) {
      for (const v of ['', '/versions/1']) {
        const one = await pair.http('GET', `/v2/models/${m}${v}/stats`);
        expect(statsShape(one.embedded.body)).toEqual(statsShape(one.triton.body));
      }
      const g = await pair.grpc('ModelStatistics', { name: m });
      expect(statsShape(g.embedded)).toEqual(statsShape(g.triton));
    }
  });

  it('answers statistics of unknown models and versions with the same errors', async () => {
    for (const p of [
      '/v2/models/nope/stats',
      '/v2/models/onnx-mnist-cpu/versions/2/stats',
      '/v2/models/onnx-mnist-cpu/versions/x/stats',
    ])
      expectSame(await pair.http('GET', p));
    for (const request of [
      { name: 'nope' },
      { name: 'onnx-mnist-cpu', version: '2' },
      { name: 'onnx-mnist-cpu', version: 'x' },
    ])
      expectSame(await pair.grpc('ModelStatistics', request));
  });

  it('exposes the same Prometheus metric names, types, help and label sets', async () => {
    const { embedded, triton } = await pair.metrics();
    expect(embedded.type).toBe(triton.type);
    // Triton's pinned memory pool has no counterpart in the embedded server (packages/server/README.md).
    const ignore = /^nv_pinned_memory_pool_/;
    expect(metricShape(embedded.text, ignore)).toEqual(metricShape(triton.text, ignore));
    expect(triton.text).toMatch(/^nv_pinned_memory_pool_total_bytes /m);
  });

  it('answers unknown paths, wrong methods and the repository API in this mode alike', async () => {
    for (const [method, p] of [
      ['GET', '/v2/nope'],
      ['GET', '/v2/models/onnx-mnist-cpu/versions/x'],
      ['GET', '/v2/models/onnx-mnist-cpu/'],
      ['POST', '/v2'],
      ['POST', '/v2/health/ready'],
      ['POST', '/v2/models/onnx-mnist-cpu'],
      ['POST', '/v2/models/onnx-mnist-cpu/ready'],
      ['GET', '/v2/models/onnx-mnist-cpu/infer'],
      ['GET', '/v2/repository/index'],
      ['GET', '/v2/repository/models/onnx-mnist-cpu/load'],
      ['POST', '/v2/repository/models/onnx-mnist-cpu/load'],
      ['POST', '/v2/repository/models/onnx-mnist-cpu/unload'],
      ['POST', '/v2/repository/index'],
    ] as const)
      expectSame(await pair.http(method, p));
    expectSame(await pair.grpc('RepositoryModelLoad', { model_name: 'onnx-mnist-cpu' }));
    expectSame(await pair.grpc('RepositoryModelUnload', { model_name: 'onnx-mnist-cpu' }));
  });
});

/** Configs Triton refuses: at poll (max_batch_size, preferred batch) or at load (tensor dims and types). */
const INVALID: Record<string, string> = {
  'v-negmbs': mnistConfig('v-negmbs').replace('max_batch_size: 0', 'max_batch_size: -1'),
  'v-preferred': mnistConfig('v-preferred', 0, 'dynamic_batching { preferred_batch_size: [ 4 ] }'),
  'v-nodims': mnistConfig('v-nodims').replace(' dims: [ 1, 1, 28, 28 ]', ''),
  'v-notype': mnistConfig('v-notype').replace('name: "input.1" data_type: TYPE_FP32', 'name: "input.1"'),
  'v-baddim': mnistConfig('v-baddim').replace('[ 1, 1, 28, 28 ]', '[ 1, 1, 28, -5 ]'),
  'v-pair': mnistConfig('v-pair').replace(
    'platform: "onnxruntime_onnx"',
    'platform: "tensorrt_plan"\nbackend: "onnxruntime"',
  ),
};

/** A model config override as the load API carries it: Triton's config JSON as a string parameter. */
function overrideBody(config: object): string {
  return JSON.stringify({ parameters: { config: JSON.stringify(config) } });
}

/** MNIST's config in Triton's JSON form (max_batch_size 0), with `extra` fields. */
function mnistJson(name: string, extra: object = {}): object {
  return {
    name,
    platform: 'onnxruntime_onnx',
    max_batch_size: 0,
    input: [{ name: 'input.1', data_type: 'TYPE_FP32', dims: [1, 1, 28, 28] }],
    output: [{ name: 'output', data_type: 'TYPE_FP32', dims: [1, 10] }],
    ...extra,
  };
}

describe.skipIf(!REAL_TRITON.path)(
  'control plane against Triton 2.60.0: the repository API (explicit mode)',
  () => {
    const repo = makeRepo((r) => {
      writeModel(r, 'onnx-mnist-cpu', mnistConfig('onnx-mnist-cpu'));
      for (const m of ['m-cycle', 'm-override', 'm-touch', 'm-fail-override'])
        writeModel(r, m, mnistConfig(m));
      writeModel(r, 'm-versions', mnistConfig('m-versions', 0, 'version_policy: { all { } }'), [
        '1',
        '2',
        '3',
      ]);
      writeModel(r, 'm-noversion', mnistConfig('m-noversion'), []);
      for (const [name, pbtxt] of Object.entries(INVALID)) writeModel(r, name, pbtxt);
      writeModel(
        r,
        'm-noplatform',
        mnistConfig('m-noplatform').replace('platform: "onnxruntime_onnx"\n', ''),
      );
      writeModel(r, 'm-broken', 'name: "m-broken"\nmax_batch_size: [ oops');
    });
    const pair = pairOf(repo, { modelControl: 'explicit', loadModels: ['onnx-mnist-cpu'] });

    /**
     * Statistics once Triton's have settled: its backend reports a request's statistics after sending the
     * response, so a read right after an answer can miss the last request (seen under CI load).
     */
    const statsOf = async (model: string) => {
      let a = await pair.http('GET', `/v2/models/${model}/stats`);
      for (let i = 0; i < 40; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const again = await pair.http('GET', `/v2/models/${model}/stats`);
        const settled = JSON.stringify(again.triton.body) === JSON.stringify(a.triton.body);
        a = again;
        if (settled) break;
      }
      return { what: a.what, embedded: statsShape(a.embedded.body), triton: statsShape(a.triton.body) };
    };
    const infer = async (model: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const a = await pair.http('POST', `/v2/models/${model}/infer`, mnistInfer(1, false));
        expect([a.embedded.status, a.triton.status]).toEqual([200, 200]);
      }
    };
    /** The index once Triton has finished unloading what a load replaced (it answers the load before). */
    const settledIndex = async () => {
      for (let i = 0; i < 100; i++) {
        const a = await pair.http('POST', '/v2/repository/index');
        if (!a.triton.body.some((r: Json) => r.state === 'UNLOADING' || r.state === 'LOADING')) return a;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('Triton still unloading after 10 s');
    };
    const configOf = async (model: string) => {
      const a = await pair.http('GET', `/v2/models/${model}/config`);
      expect.soft(a.embedded, a.what).toEqual(a.triton);
      return a.triton.body;
    };

    it('lists the repository index alike, all and ready only, over HTTP and gRPC', async () => {
      for (const body of [
        undefined,
        '{}',
        '{"ready":true}',
        '{"ready":false}',
        '[1]',
        '{"ready":"yes"}',
        '{bad',
      ])
        expectSame(await pair.http('POST', '/v2/repository/index', body));
      expectSame(await pair.http('POST', '/v2/repository/any-name/index'));
      for (const request of [{}, { ready: true }, { repository_name: 'r' }])
        expectSame(await pair.grpc('RepositoryIndex', request));
    });

    it('loads, reloads and unloads a model, answering every API alike in between', async () => {
      const model = 'm-cycle';
      const probe = async () => {
        // Triton answers an unload before the model has finished unloading: look once it has.
        expectSame(await settledIndex());
        for (const p of ['', '/ready', '/versions/1/ready', '/config', '/stats', '/versions/1'])
          expectSame(await pair.http('GET', `/v2/models/${model}${p}`));
        expectSame(await pair.grpc('ModelReady', { name: model }));
      };
      await probe();
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      await infer(model, 2);
      expectSame(await statsOf(model));
      // Nothing changed in the folder: the load does nothing, statistics included.
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`, '{}'));
      const kept = await statsOf(model);
      expectSame(kept);
      expect(kept.triton.model_stats[0].inference_count).toBe(2);
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/unload`));
      await probe();
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/unload`));
      expectSame(await pair.grpc('RepositoryModelLoad', { model_name: model }));
      await probe();
      expectSame(await pair.grpc('RepositoryModelUnload', { model_name: model }));
      await probe();
      const { embedded, triton } = await pair.metrics();
      expect(metricShape(embedded.text, /^nv_pinned_memory_pool_/)).toEqual(
        metricShape(triton.text, /^nv_pinned_memory_pool_/),
      );
    });

    it('keeps an override over a plain load, and keeps statistics when only the instances change', async () => {
      const model = 'm-override';
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      await infer(model, 2);
      const three = mnistJson(model, { instance_group: [{ count: 3, kind: 'KIND_CPU' }] });
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`, overrideBody(three)));
      expect((await configOf(model)).instance_group[0].count).toBe(3);
      // Only the instance count changed: Triton updates the model in place and its statistics go on.
      expectSame(await statsOf(model));
      expect((await statsOf(model)).triton.model_stats[0].inference_count).toBe(2);
      // A plain load keeps the override: the folder did not change since.
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      expect((await configOf(model)).instance_group[0].count).toBe(3);
      // A change beyond the instances reloads the model: statistics start again.
      const withParameter = mnistJson(model, { parameters: { note: { string_value: 'x' } } });
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`, overrideBody(withParameter)));
      await configOf(model);
      expectSame(await statsOf(model));
      // An override without a name takes the model's.
      const { name: _name, ...nameless } = mnistJson(model) as { name: string };
      expectSame(
        await pair.grpc('RepositoryModelLoad', {
          model_name: model,
          parameters: { config: { string_param: JSON.stringify(nameless) } },
        }),
      );
      await configOf(model);
      expectSame(await pair.grpc('ModelConfig', { name: model }));
    });

    it('reloads the repository config once the model folder changes after an override', async () => {
      const model = 'm-touch';
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      expectSame(
        await pair.http(
          'POST',
          `/v2/repository/models/${model}/load`,
          overrideBody(mnistJson(model, { instance_group: [{ count: 1 }] })),
        ),
      );
      expect((await configOf(model)).instance_group[0].count).toBe(1);
      const later = new Date(Date.now() + 5_000);
      utimesSync(path.join(pair.repo, model, 'config.pbtxt'), later, later);
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      expect((await configOf(model)).instance_group[0].count).toBe(2);
    });

    it('keeps serving the old config when an override fails in the backend or its dims do not fit the model', async () => {
      const model = 'm-fail-override';
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      const before = await configOf(model);
      const bad = await pair.http(
        'POST',
        `/v2/repository/models/${model}/load`,
        overrideBody({ ...mnistJson(model), platform: '', backend: 'nope' }),
      );
      expectSame(bad);
      // Triton's reason, to which the embedded server adds the backends it has (packages/server/README.md).
      expect(bad.embedded.body.error).toMatch(
        / \(the embedded server has simulated, simulated_llm, repeat, identity, onnxruntime\)/,
      );
      expect(await configOf(model)).toEqual(before);
      // Output dims the ONNX model does not have: refused at load, in Triton's words.
      const wrongDims = mnistJson(model, {
        output: [{ name: 'output', data_type: 'TYPE_FP32', dims: [-1, 10] }],
      });
      const refused = expectSame(
        await pair.http('POST', `/v2/repository/models/${model}/load`, overrideBody(wrongDims)),
      );
      expect(refused.status).toBe(400);
      expect(await configOf(model)).toEqual(before);
      expectSame(await pair.http('GET', `/v2/models/${model}/ready`));
      expectSame(await pair.http('POST', '/v2/repository/index', '{"ready":true}'));
      // Nothing changed in the folder since the last good load: a plain load leaves the model as it is.
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      expect(await configOf(model)).toEqual(before);
    });

    it('answers load and unload errors alike over HTTP', async () => {
      const load = (m: string) => `/v2/repository/models/${m}/load`;
      for (const [p, body] of [
        [load('nope'), undefined],
        [load('m-noversion'), undefined],
        [load('onnx-mnist-cpu'), '{bad'],
        [load('onnx-mnist-cpu'), '[]'],
        [load('onnx-mnist-cpu'), '{"parameters":5}'],
        [load('onnx-mnist-cpu'), '{"parameters":{"config":5}}'],
        [load('onnx-mnist-cpu'), '{"parameters":{"foo":"bar"}}'],
        [load('onnx-mnist-cpu'), '{"parameters":{"foo":5}}'],
        ['/v2/repository/r/models/onnx-mnist-cpu/load', undefined],
        ['/v2/repository/models/nope/unload', undefined],
        ['/v2/repository/models/m-broken/unload', '{"parameters":{"unload_dependents":"x"}}'],
        ['/v2/repository/models/nope/unload', '{bad'],
        ['/v2/repository/r/models/onnx-mnist-cpu/unload', undefined],
      ] as const) {
        expectSame(await pair.http('POST', p, body));
      }
    });

    it('answers poll failures alike: a config that does not parse, names that differ, bad overrides', async () => {
      for (const [m, body] of [
        ['m-broken', undefined],
        ['onnx-mnist-cpu', overrideBody(mnistJson('other'))],
        ['onnx-mnist-cpu', '{"parameters":{"config":"{bad"}}'],
        ['onnx-mnist-cpu', '{"parameters":{"config":"{\\"bogus_field\\":1}"}}'],
        ['onnx-mnist-cpu', '{"parameters":{"config":"{\\"max_batch_size\\":\\"x\\"}"}}'],
      ] as const) {
        const a = await pair.http('POST', `/v2/repository/models/${m}/load`, body);
        expect
          .soft(a.triton.body.error, a.what)
          .toBe(`failed to load '${m}', failed to poll from model repository`);
        expect.soft(a.embedded.status, a.what).toBe(500);
        expect.soft(a.embedded.body.error, a.what).toMatch(new RegExp(`^${a.triton.body.error}: `));
      }
      // A model whose config could not be read was never tried: the index lists its name only.
      expectSame(await pair.http('POST', '/v2/repository/index'));
    });

    it('reads the repository folder again on every index and load: models added and removed after start', async () => {
      writeModel(pair.repo, 'm-late', mnistConfig('m-late'));
      expectSame(await pair.http('POST', '/v2/repository/index'));
      expectSame(await pair.http('POST', '/v2/repository/models/m-late/load'));
      expectSame(await pair.http('GET', '/v2/models/m-late'));
      rmSync(path.join(pair.repo, 'm-late'), { recursive: true, force: true });
      // Gone from the folder: gone from the index and not loadable, but still served.
      expectSame(await pair.http('POST', '/v2/repository/index'));
      expectSame(await pair.http('POST', '/v2/repository/models/m-late/load'));
      expectSame(await pair.http('GET', '/v2/models/m-late/ready'));
      expectSame(await pair.http('POST', '/v2/repository/models/m-late/unload'));
      expectSame(await pair.http('GET', '/v2/models/m-late/ready'));
    });

    it('refuses the configs Triton refuses, when it reads them or when it loads them, in its words', async () => {
      for (const name of Object.keys(INVALID))
        expectSame(await pair.http('POST', `/v2/repository/models/${name}/load`));
      expectSame(await pair.http('POST', '/v2/repository/index'));
    });

    it('takes the backend of a config that names none from the model file, as Triton does', async () => {
      expectSame(await pair.http('POST', '/v2/repository/models/m-noplatform/load'));
      const config = await configOf('m-noplatform');
      expect([config.platform, config.backend, config.default_model_filename]).toEqual([
        'onnxruntime_onnx',
        'onnxruntime',
        'model.onnx',
      ]);
    });

    it('answers the repository RPCs and their errors alike over gRPC', async () => {
      for (const request of [
        { model_name: 'nope' },
        { model_name: 'onnx-mnist-cpu', parameters: { foo: { string_param: 'x' } } },
        { model_name: 'onnx-mnist-cpu', parameters: { config: { int64_param: 1 } } },
        { model_name: 'onnx-mnist-cpu', parameters: { 'file:1/model.onnx': { string_param: 'x' } } },
        { model_name: 'onnx-mnist-cpu', repository_name: 'r' },
        { model_name: 'onnx-mnist-cpu' },
      ])
        expectSame(await pair.grpc('RepositoryModelLoad', request));
      for (const request of [
        { model_name: 'nope' },
        { model_name: 'nope', parameters: { unload_dependents: { string_param: 'x' } } },
        { model_name: 'onnx-mnist-cpu', repository_name: 'r' },
      ])
        expectSame(await pair.grpc('RepositoryModelUnload', request));
      expectSame(await pair.grpc('RepositoryIndex', {}));
    });

    it('serves every version of a multi-version model alike, oldest first', async () => {
      const model = 'm-versions';
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`));
      for (const p of ['', '/versions/2', '/versions/2/ready', '/stats', '/versions/3/stats', '/config'])
        expectSame(await pair.http('GET', `/v2/models/${model}${p}`));
      expectSame(await settledIndex());
      const latest = mnistJson(model, { version_policy: { latest: { num_versions: 1 } } });
      expectSame(await pair.http('POST', `/v2/repository/models/${model}/load`, overrideBody(latest)));
      for (const p of ['', '/versions/2/ready', '/versions/2', '/stats'])
        expectSame(await pair.http('GET', `/v2/models/${model}${p}`));
      expectSame(await settledIndex());
    });
  },
);

describe.skipIf(!REAL_TRITON.path)('control plane against Triton 2.60.0: strict readiness', () => {
  const repo = makeRepo((r) => {
    writeModel(r, 'onnx-mnist-cpu', mnistConfig('onnx-mnist-cpu'));
    writeModel(
      r,
      'm-nobackend',
      mnistConfig('m-nobackend').replace('platform: "onnxruntime_onnx"', 'backend: "nope"'),
    );
    writeModel(r, 'm-broken', 'name: "m-broken"\nmax_batch_size: [ oops');
  });
  const pair = pairOf(repo, { modelControl: 'explicit', loadModels: ['onnx-mnist-cpu'] });

  it('is not ready once a model failed in its backend, ready again once it loads or only its config failed', async () => {
    const ready = async () => expectSame(await pair.http('GET', '/v2/health/ready')).status;
    expect(await ready()).toBe(200);
    // A config that does not parse never reaches the lifecycle: readiness stays.
    expectSame(await pair.http('POST', '/v2/repository/models/m-broken/load'));
    expect(await ready()).toBe(200);
    const failed = await pair.http('POST', '/v2/repository/models/m-nobackend/load');
    expect([failed.embedded.status, failed.triton.status]).toEqual([400, 400]);
    expect(await ready()).toBe(400);
    expectSame(await pair.grpc('ServerReady'));
    expect(expectSame(await pair.grpc('Health.Check', {}))).toEqual({ ok: { status: 'NOT_SERVING' } });
    expectSame(await pair.http('POST', '/v2/repository/models/m-nobackend/unload'));
    // Unloading leaves the failed version as it was: still not ready.
    expect(await ready()).toBe(400);
    expectSame(await pair.http('GET', '/v2/models/m-nobackend'));
    expectSame(await pair.http('POST', '/v2/repository/index'));
    expectSame(
      await pair.http(
        'POST',
        '/v2/repository/models/m-nobackend/load',
        overrideBody(mnistJson('m-nobackend')),
      ),
    );
    expect(await ready()).toBe(200);
  });
});

describe.skipIf(!REAL_TRITON.path)(
  'control plane against Triton 2.60.0: the differences packages/server/README.md lists',
  () => {
    const repo = makeRepo((r) => {
      writeModel(r, 'onnx-mnist-cpu', mnistConfig('onnx-mnist-cpu'));
      writeModel(r, 'm-gpu', mnistConfig('m-gpu', 0, 'instance_group [ { kind: KIND_GPU count: 1 } ]'));
    });
    const pair = pairOf(repo, { modelControl: 'explicit', loadModels: ['onnx-mnist-cpu'] });

    it('keeps the differences packages/server/README.md lists: KIND_GPU groups load, "file:" parameters and the extensions left out are refused', async () => {
      const gpu = await pair.http('POST', '/v2/repository/models/m-gpu/load');
      expect(gpu.triton.status).toBe(400);
      expect(gpu.triton.body.error).toMatch(/has kind KIND_GPU but server does not support GPUs/);
      expect(gpu.embedded.status).toBe(200);
      const files = await pair.http(
        'POST',
        '/v2/repository/models/onnx-mnist-cpu/load',
        '{"parameters":{"file:1/model.onnx":"AAAA"}}',
      );
      expect(files.triton.status).toBe(500);
      expect(files.embedded.status).toBe(501);
      // Extensions left out: Triton answers them, the embedded server does not.
      const logging = await pair.http('GET', '/v2/logging');
      expect([logging.triton.status, logging.embedded.status]).toEqual([200, 404]);
      const shm = await pair.http('GET', '/v2/systemsharedmemory/status');
      expect([shm.triton.status, shm.embedded.status]).toEqual([200, 404]);
      for (const rpc of ['LogSettings', 'SystemSharedMemoryStatus', 'CudaSharedMemoryStatus']) {
        const g = await pair.grpc(rpc, {});
        expect('ok' in g.triton, g.what).toBe(true);
        expect(g.embedded, g.what).toMatchObject({ code: 'UNIMPLEMENTED' });
      }
    });
  },
);
