/**
 * The k6-facing clients (lib/kserve/http.ts, grpc.ts) run on the Node runtime's k6/http,
 * k6/net/grpc and k6/encoding modules, against the embedded server on 127.0.0.1.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeTensor } from '@k6-triton/lib/tensor/index.ts';
import { getModel } from '../../../../models/index.ts';
import { followVuAcrossAwaits, runInVu } from '../../src/vu-context.ts';
import { startCatalogServer } from '../../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { type FakeVu, fakeVu, samplesOf } from '../fake-vu.ts';

// These tests call module functions directly across awaits, where a script's would be bound to its VU.
followVuAcrossAwaits();

vi.mock('k6/http', () => import('../../src/modules/http.ts'));
vi.mock('k6/net/grpc', () => import('../../src/modules/grpc.ts'));
vi.mock('k6/encoding', () => import('../../src/modules/encoding.ts'));

const { KServeHttp } = await import('@k6-triton/lib/kserve/http.ts');
const { KServeGrpc } = await import('@k6-triton/lib/kserve/grpc.ts');

const PROTO_DIR = fileURLToPath(new URL('../../../../proto', import.meta.url));

let server: RunningServer;
let vu: FakeVu;

beforeAll(async () => {
  server = await startCatalogServer({
    httpPort: 0,
    grpcPort: 0,
    metricsPort: -1,
    simulated: { timeScale: 0 },
  });
  vu = fakeVu();
});

afterAll(async () => {
  await vu?.retire();
  await server?.stop();
});

const resnext = getModel('resnext101-32x4d');
const sample = (batch: number) => [
  {
    name: 'INPUT__0',
    datatype: 'FP32' as const,
    shape: [batch, 3, 224, 224],
    data: encodeTensor('FP32', new Float32Array(batch * 3 * 224 * 224).fill(0.5)),
  },
];

describe('KServeHttp on the runtime', () => {
  it('checks health and metadata, infers with a prepared binary body and parses outputs on demand', async () => {
    await runInVu(vu, async () => {
      const client = new KServeHttp({ url: `http://127.0.0.1:${server.httpPort}/` });
      expect(await client.serverLive()).toBe(true);
      expect(await client.serverReady()).toBe(true);
      expect(await client.modelReady(resnext.name)).toBe(true);
      expect(await client.modelReady('no-such-model')).toBe(false);
      expect((await client.serverMetadata()).extensions).toContain('binary_tensor_data');
      const meta = await client.modelMetadata(resnext.name);
      expect(meta.inputs[0]).toEqual({ name: 'INPUT__0', datatype: 'FP32', shape: [-1, 3, 224, 224] });
      const config = await client.modelConfig(resnext.name);
      expect(config['max_batch_size']).toBe(64);

      const prepared = client.prepareBinary(sample(2));
      const call = await client.infer(resnext.name, prepared);
      expect(call.ok).toBe(true);
      expect(call.error()).toBeUndefined();
      const result = call.outputs();
      expect(result.outputs[0]!.shape).toEqual([2, 1000]);
      expect(call.outputs()).toBe(result);

      const discarded = await client.infer(resnext.name, prepared, { responseType: 'none' });
      expect(discarded.ok).toBe(true);
      expect(() => discarded.outputs()).toThrow('empty body');

      const stats = await client.statistics(resnext.name);
      expect(stats[0]!.inferenceCount).toBeGreaterThanOrEqual(4);
    });
  });

  it('sends client tags and a non-default timeout with infer and bound requests, and neither by default', async () => {
    await runInVu(vu, async () => {
      const url = `http://127.0.0.1:${server.httpPort}`;
      const tagged = new KServeHttp({ url, tags: { team: 'vision' }, timeout: '5s' });
      const prepared = tagged.prepareBinary(sample(1));
      vu.samples.length = 0;
      expect((await tagged.infer(resnext.name, prepared, { tags: { step: 'one' } })).ok).toBe(true);
      expect(await tagged.bind(resnext.name, prepared).send()).toBeUndefined();
      const [infer, bound] = samplesOf(vu, 'http_req_duration');
      expect(infer!.tags).toMatchObject({ team: 'vision', step: 'one' });
      expect(bound!.tags).toMatchObject({ team: 'vision' });

      // A timeout shorter than any round trip fails the request: it was sent, not dropped with the default.
      const hasty = new KServeHttp({ url, timeout: 0.001 });
      expect(await hasty.bind(resnext.name, hasty.prepareBinary(sample(8))).send()).toMatch(/timeout/i);

      const plain = new KServeHttp({ url });
      vu.samples.length = 0;
      expect(await plain.bind(resnext.name, plain.prepareBinary(sample(1))).send()).toBeUndefined();
      expect(samplesOf(vu, 'http_req_duration')[0]!.tags).not.toHaveProperty('team');
    });
  });

  it('reports server errors and unreachable servers readably', async () => {
    await runInVu(vu, async () => {
      const client = new KServeHttp({ url: `http://127.0.0.1:${server.httpPort}` });
      const call = await client.infer('no-such-model', client.prepareBinary(sample(1)));
      expect(call.ok).toBe(false);
      expect(call.error()).toMatch(/^HTTP 4\d\d: .+/);
      await expect(client.modelMetadata('no-such-model')).rejects.toThrow(
        /GET http:\/\/127\.0\.0\.1:\d+\/v2\/models\/no-such-model failed: HTTP 4\d\d/,
      );
      expect(() => new KServeHttp({ url: 'localhost:8000' })).toThrow('invalid KServe URL "localhost:8000"');
    });
  });
});

describe('KServeGrpc on the runtime', () => {
  it('infers with a prepared request, streams, and reads metadata and statistics', async () => {
    vu.inInit = true;
    const client = runInVu(
      vu,
      () => new KServeGrpc({ address: `127.0.0.1:${server.grpcPort}`, protoDirs: [PROTO_DIR] }),
    );
    vu.inInit = false;
    await runInVu(vu, async () => {
      expect(await client.serverLive()).toBe(true);
      expect(await client.modelReady(resnext.name)).toBe(true);
      expect((await client.modelMetadata(resnext.name)).outputs[0]!.name).toBe('OUTPUT__0');
      expect(await client.modelConfig(resnext.name)).toHaveProperty('maxBatchSize', 64);

      const request = client.prepareInfer(resnext.name, sample(1));
      const call = await client.infer(request);
      expect(call.error()).toBeUndefined();
      expect(call.outputs().outputs[0]!.shape).toEqual([1, 1000]);
      expect((call.outputs().outputs[0]!.data as Float32Array).length).toBe(1000);

      const fast = await client.infer(request, { discardResponse: true });
      expect(fast.ok).toBe(true);

      const missing = await client.infer(client.prepareInfer('no-such-model', sample(1)));
      expect(missing.ok).toBe(false);
      expect(missing.error()).toMatch(/^status \d+: .+/);

      const events: { id?: string; shape?: number[]; error?: string }[] = [];
      await new Promise<void>((resolve, reject) => {
        const stream = client.openStream({
          onResponse: (event) => {
            events.push({ id: event.id, shape: event.outputs().outputs[0]?.shape, error: event.error });
            if (events.length === 2) stream.end();
          },
          onError: (error) => reject(new Error(error.message)),
          onEnd: () => resolve(),
        });
        stream.write(request);
        stream.write(request);
      });
      expect(events.map((e) => e.id).sort()).toEqual(['s0', 's1']);
      expect(events.every((e) => e.error === undefined && e.shape?.join() === '1,1000')).toBe(true);

      const stats = await client.statistics(resnext.name);
      expect(stats[0]!.inferenceCount).toBeGreaterThanOrEqual(4);
      client.close();
    });
  });

  it('sends client tags with infer and bound calls, and none by default', async () => {
    vu.inInit = true;
    const address = `127.0.0.1:${server.grpcPort}`;
    const [tagged, plain] = runInVu(vu, () => [
      new KServeGrpc({ address, protoDirs: [PROTO_DIR], tags: { team: 'vision' }, metadata: { x: '1' } }),
      new KServeGrpc({ address, protoDirs: [PROTO_DIR] }),
    ]);
    vu.inInit = false;
    await runInVu(vu, async () => {
      vu.samples.length = 0;
      const request = tagged!.prepareInfer(resnext.name, sample(1));
      expect((await tagged!.infer(request, { tags: { step: 'one' } })).ok).toBe(true);
      expect(await tagged!.bind(request).send()).toBeUndefined();
      expect(await plain!.bind(request).send()).toBeUndefined();
      const [infer, bound, untagged] = samplesOf(vu, 'grpc_req_duration');
      expect(infer!.tags).toMatchObject({ team: 'vision', step: 'one' });
      expect(bound!.tags).toMatchObject({ team: 'vision' });
      expect(untagged!.tags).not.toHaveProperty('team');
      tagged!.close();
      plain!.close();
    });
  });
});
