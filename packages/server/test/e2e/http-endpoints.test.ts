import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { http, makeRepository, removeRepository, start } from '../helpers.ts';
import { NOBATCH, SIMPLE, STRINGS } from '../repo-fixtures.ts';

describe('HTTP endpoints other than infer', () => {
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

  it('answers liveness and readiness with 200 and an empty body', async () => {
    for (const p of ['/v2/health/live', '/v2/health/ready']) {
      const res = await http(server, 'GET', p);
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(0);
    }
  });

  it('answers model readiness: 200 for a loaded model and version, 400 "Model version not ready" otherwise', async () => {
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    expect((await http(server, 'GET', '/v2/models/simple/versions/1/ready')).status).toBe(200);
    for (const p of ['/v2/models/simple/versions/2/ready', '/v2/models/nope/ready']) {
      const res = await http(server, 'GET', p);
      expect([res.status, res.json()]).toEqual([400, { error: 'Model version not ready' }]);
    }
  });

  it('serves server metadata with its extensions', async () => {
    const res = await http(server, 'GET', '/v2');
    expect(res.status).toBe(200);
    const json = res.json();
    expect(json.name).toBe('triton');
    expect(json.version).toMatch(/^2\./);
    expect(json.extensions).toEqual(
      expect.arrayContaining(['binary_tensor_data', 'statistics', 'model_repository']),
    );
  });

  it('serves model metadata with -1 for the batch dimension', async () => {
    const json = (await http(server, 'GET', '/v2/models/simple')).json();
    expect(json).toEqual({
      name: 'simple',
      versions: ['1'],
      platform: 'simulated',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [-1, 16] },
        { name: 'INPUT1', datatype: 'INT32', shape: [-1, 16] },
      ],
      outputs: [
        { name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 16] },
        { name: 'OUTPUT1', datatype: 'INT32', shape: [-1, 4] },
      ],
    });
    const nobatch = (await http(server, 'GET', '/v2/models/nobatch/versions/1')).json();
    expect(nobatch.inputs[0].shape).toEqual([1, 1, 28, 28]);
    expect((await http(server, 'GET', '/v2/models/strings')).json().inputs[0].datatype).toBe('BYTES');
  });

  it('serves the model config in Triton JSON form with numeric dims', async () => {
    const json = (await http(server, 'GET', '/v2/models/simple/config')).json();
    expect(json.name).toBe('simple');
    expect(json.max_batch_size).toBe(8);
    expect(json.input[0]).toMatchObject({ name: 'INPUT0', data_type: 'TYPE_INT32', dims: [16] });
    // No instance_group: one group named after the model; one instance, the default of backends other than onnxruntime.
    expect(json.instance_group[0]).toMatchObject({ name: 'simple', count: 1, kind: 'KIND_CPU' });
    // What Triton fills in: the pinned-memory optimization and the fields the config left empty.
    expect(json.optimization).toMatchObject({ input_pinned_memory: { enable: true } });
    expect(json.runtime).toBe('');
    expect(json.parameters.compute_ms.string_value).toBe('0');
  });

  it('answers 404 with Triton words for an unknown model or version', async () => {
    const res = await http(server, 'GET', '/v2/models/nope');
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ error: "Request for unknown model: 'nope' is not found" });
    const v = await http(server, 'GET', '/v2/models/simple/versions/7/config');
    expect(v.status).toBe(404);
    expect(v.json().error).toBe("Request for unknown model: 'simple' version 7 is not found");
  });

  it('serves statistics for all models, one model and one version', async () => {
    const all = (await http(server, 'GET', '/v2/models/stats')).json();
    expect(all.model_stats.map((m: { name: string }) => m.name).sort()).toEqual([
      'nobatch',
      'simple',
      'strings',
    ]);
    const one = (await http(server, 'GET', '/v2/models/simple/stats')).json();
    expect(one.model_stats).toHaveLength(1);
    expect(one.model_stats[0]).toMatchObject({ name: 'simple', version: '1', inference_count: 0 });
    expect(Object.keys(one.model_stats[0].inference_stats)).toEqual(
      expect.arrayContaining([
        'success',
        'fail',
        'queue',
        'compute_input',
        'compute_infer',
        'compute_output',
      ]),
    );
    const ver = (await http(server, 'GET', '/v2/models/simple/versions/1/stats')).json();
    expect(ver.model_stats[0].version).toBe('1');
    // Triton answers statistics of a model or version it does not serve with 400, not 404.
    const nope = await http(server, 'GET', '/v2/models/nope/stats');
    expect([nope.status, nope.json().error]).toEqual([400, "requested model 'nope' is not available"]);
    const v2 = await http(server, 'GET', '/v2/models/simple/versions/2/stats');
    expect([v2.status, v2.json().error]).toEqual([
      400,
      "requested model version is not available for model 'simple'",
    ]);
  });

  it('serves the repository index, all or ready only', async () => {
    const res = await http(server, 'POST', '/v2/repository/index');
    expect(res.status).toBe(200);
    // An empty reason is left out, as Triton does.
    expect(res.json()).toEqual([
      { name: 'nobatch', version: '1', state: 'READY' },
      { name: 'simple', version: '1', state: 'READY' },
      { name: 'strings', version: '1', state: 'READY' },
    ]);
    const ready = await http(server, 'POST', '/v2/repository/index', JSON.stringify({ ready: true }));
    expect(ready.json()).toHaveLength(3);
  });

  it('refuses load and unload unless the model control mode is explicit', async () => {
    const res = await http(server, 'POST', '/v2/repository/models/simple/unload');
    expect(res.status).toBe(503);
    expect(res.json().error).toMatch(/explicit model load \/ unload is not allowed/);
  });

  it('answers 404 for unknown paths and 405 for wrong methods, in Triton words', async () => {
    for (const p of ['/v3/whatever', '/v2/models/simple/versions/x', '/v2/models/simple/']) {
      const res = await http(server, 'GET', p);
      expect([res.status, res.json()]).toEqual([404, { error: 'Not Found' }]);
    }
    const infer = await http(server, 'GET', '/v2/models/simple/infer');
    expect([infer.status, infer.json()]).toEqual([405, { error: 'Method Not Allowed' }]);
    expect((await http(server, 'POST', '/v2/health/live')).status).toBe(405);
  });

  it('reads a version as Triton does: leading zeros are the same version, too large a number is a 400', async () => {
    expect((await http(server, 'GET', '/v2/models/simple/versions/01')).json().versions).toEqual(['1']);
    const big = await http(server, 'GET', '/v2/models/simple/versions/99999999999999999999');
    expect(big.status).toBe(400);
    expect(big.json().error).toMatch(/^failed to get model version from specified version string/);
  });
});

describe('metrics endpoint', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it("serves Triton's metric names with model and version labels", async () => {
    const res = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const name of [
      'nv_inference_request_success',
      'nv_inference_count',
      'nv_inference_exec_count',
      'nv_inference_pending_request_count',
      'nv_inference_request_duration_us',
      'nv_inference_queue_duration_us',
      'nv_inference_compute_input_duration_us',
      'nv_inference_compute_infer_duration_us',
      'nv_inference_compute_output_duration_us',
    ]) {
      expect(text).toMatch(new RegExp(`^${name}\\{model="simple",version="1"\\} 0$`, 'm'));
    }
    // The failure counter per reason, labels in name order as Triton prints them.
    for (const reason of ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'])
      expect(text).toMatch(
        `\nnv_inference_request_failure{model="simple",reason="${reason}",version="1"} 0\n`,
      );
    expect(text).toMatch(/^nv_model_load_duration_secs\{model="simple",version="1"\} [0-9.e-]+$/m);
    expect(text).toMatch(/^nv_cpu_utilization [0-9.e-]+$/m);
    expect(text).toMatch(/^nv_cpu_memory_used_bytes \d+$/m);
  });
});
