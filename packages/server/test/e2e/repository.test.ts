import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { http, makeRepository, removeRepository, start } from '../helpers.ts';
import { NOBATCH, SIMPLE } from '../repo-fixtures.ts';

/** An infer body for the SIMPLE model. */
const SIMPLE_INFER = JSON.stringify({
  inputs: ['INPUT0', 'INPUT1'].map((name) => ({
    name,
    shape: [1, 16],
    datatype: 'INT32',
    data: new Array(16).fill(1),
  })),
});

describe('model repository and explicit model control over HTTP', () => {
  let server: RunningServer | undefined;
  let repo: string | undefined;
  afterEach(async () => {
    await server?.stop();
    if (repo) removeRepository(repo);
    server = undefined;
    repo = undefined;
  });

  it('loads nothing at start in explicit mode unless asked, and lists models as unloaded', async () => {
    repo = makeRepository({ simple: SIMPLE, nobatch: NOBATCH });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['simple'] });
    const index = (await http(server, 'POST', '/v2/repository/index')).json();
    expect(index).toEqual([{ name: 'nobatch' }, { name: 'simple', version: '1', state: 'READY' }]);
    expect((await http(server, 'GET', '/v2/models/nobatch/ready')).status).toBe(400);
  });

  it('loads, unloads and reloads with a "config" parameter that overrides config.pbtxt', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit' });
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(400);
    const load = await http(server, 'POST', '/v2/repository/models/simple/load');
    expect(load.status).toBe(200);
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);

    const unload = await http(server, 'POST', '/v2/repository/models/simple/unload', '{}');
    expect(unload.status).toBe(200);
    // An unloaded model keeps its version, not ready (Triton's lifecycle).
    const infer = await http(server, 'POST', '/v2/models/simple/infer', '{"inputs":[]}');
    expect(infer.status).toBe(404);
    expect(infer.json().error).toBe("Request for unknown model: 'simple' has no available versions");
    // Unloading again, or a model never loaded, succeeds as in Triton.
    expect((await http(server, 'POST', '/v2/repository/models/simple/unload')).status).toBe(200);
    expect((await http(server, 'POST', '/v2/repository/models/ghost/unload')).status).toBe(200);

    const config = {
      name: 'simple',
      backend: 'simulated',
      max_batch_size: 2,
      input: [{ name: 'A', data_type: 'TYPE_FP32', dims: [3] }],
      output: [{ name: 'B', data_type: 'TYPE_FP32', dims: [1] }],
      dynamic_batching: { max_queue_delay_microseconds: 100 },
    };
    const reload = await http(
      server,
      'POST',
      '/v2/repository/models/simple/load',
      JSON.stringify({ parameters: { config: JSON.stringify(config) } }),
    );
    expect(reload.status).toBe(200);
    const served = (await http(server, 'GET', '/v2/models/simple/config')).json();
    expect(served.max_batch_size).toBe(2);
    expect(served.input[0]).toMatchObject({ name: 'A', dims: [3] });
    expect(served.dynamic_batching.max_queue_delay_microseconds).toBe(100);
    const ok = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      JSON.stringify({ inputs: [{ name: 'A', shape: [2, 3], datatype: 'FP32', data: [1, 2, 3, 4, 5, 6] }] }),
    );
    expect(ok.json().outputs[0].shape).toEqual([2, 1]);
  });

  it('answers 500 "failed to poll" with the reason for a config parameter that is not a valid model config, keeping the model as it was', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    const bad = await http(
      server,
      'POST',
      '/v2/repository/models/simple/load',
      JSON.stringify({ parameters: { config: '{"max_batch_size": "x", "bogus": 1}' } }),
    );
    expect(bad.status).toBe(500);
    expect(bad.json().error).toMatch(
      /^failed to load 'simple', failed to poll from model repository: Invalid config override: /,
    );
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
  });

  it('keeps serving the loaded model when a reload fails to load', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    const config = JSON.stringify({ name: 'simple', backend: 'no-such-backend', max_batch_size: 1 });
    const res = await http(
      server,
      'POST',
      '/v2/repository/models/simple/load',
      JSON.stringify({ parameters: { config } }),
    );
    expect(res.status).toBe(400);
    expect(res.json().error).toBe(
      "load failed for model 'simple': version 1 is at UNAVAILABLE state: Invalid argument: unable to find " +
        "backend library for backend 'no-such-backend', try specifying runtime on the model configuration. " +
        '(the embedded server has simulated, simulated_llm, repeat, identity, onnxruntime);\n',
    );
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    expect((await http(server, 'GET', '/v2/models/simple/config')).json().max_batch_size).toBe(8);
  });

  it('lists a model whose config.pbtxt does not parse by name only, and answers its load with the parser reason', async () => {
    repo = makeRepository({ simple: SIMPLE, broken: 'name: "broken"\nmax_batch_size: [ oops' });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    const index = (await http(server, 'POST', '/v2/repository/index')).json();
    expect(index.find((r: { name: string }) => r.name === 'broken')).toEqual({ name: 'broken' });
    const load = await http(server, 'POST', '/v2/repository/models/broken/load');
    expect(load.status).toBe(500);
    expect(load.json().error).toMatch(
      /failed to poll from model repository: invalid .*broken.*config\.pbtxt/,
    );
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    // A config Triton cannot read never reaches the model lifecycle: the server stays ready.
    expect((await http(server, 'GET', '/v2/health/ready')).status).toBe(200);
  });

  it('is not ready (strict readiness) while a model failed to load in its backend', async () => {
    repo = makeRepository({
      simple: SIMPLE,
      nowhere: SIMPLE.replace('"simple"', '"nowhere"').replace('simulated', 'nope'),
    });
    server = await start({ modelRepository: repo });
    const index = (await http(server, 'POST', '/v2/repository/index')).json();
    expect(index.find((r: { name: string }) => r.name === 'nowhere')).toMatchObject({
      version: '1',
      state: 'UNAVAILABLE',
      reason: expect.stringMatching(/^Invalid argument: unable to find backend library for backend 'nope'/),
    });
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    expect((await http(server, 'GET', '/v2/health/ready')).status).toBe(400);
    expect((await http(server, 'GET', '/v2/health/live')).status).toBe(200);
  });

  it('leaves a loaded model alone on a plain load unless its folder changed, keeping an override', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['simple'] });
    const s = server;
    const infer = SIMPLE_INFER;
    expect((await http(s, 'POST', '/v2/models/simple/infer', infer)).status).toBe(200);
    const count = async () =>
      (await http(s, 'GET', '/v2/models/simple/stats')).json().model_stats[0].inference_count;
    const load = (body?: string) => http(s, 'POST', '/v2/repository/models/simple/load', body);
    expect((await load()).status).toBe(200);
    expect(await count()).toBe(1);
    const served = (await http(s, 'GET', '/v2/models/simple/config')).json();
    // Only the instance count changes: the model is updated in place and its statistics go on.
    const twice = { ...served, instance_group: [{ count: 2, kind: 'KIND_CPU' }] };
    expect((await load(JSON.stringify({ parameters: { config: JSON.stringify(twice) } }))).status).toBe(200);
    expect(await count()).toBe(1);
    expect((await load()).status).toBe(200);
    expect((await http(s, 'GET', '/v2/models/simple/config')).json().instance_group[0].count).toBe(2);
    // The folder changes after the override: the plain load reads config.pbtxt again.
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(repo, 'simple', 'config.pbtxt'), later, later);
    expect((await load()).status).toBe(200);
    expect((await http(s, 'GET', '/v2/models/simple/config')).json().instance_group[0].count).toBe(1);
    // A change beyond the instances reloads the model: statistics start again.
    const other = { ...served, max_batch_size: 4 };
    expect((await load(JSON.stringify({ parameters: { config: JSON.stringify(other) } }))).status).toBe(200);
    expect(await count()).toBe(0);
  });

  it('serves the newest version folder by default and every version with version_policy all', async () => {
    repo = makeRepository({ simple: SIMPLE });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(repo, 'simple', '3'));
    mkdirSync(path.join(repo, 'simple', '2'));
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    expect((await http(server, 'GET', '/v2/models/simple')).json().versions).toEqual(['3']);
    writeFileSync(path.join(repo, 'simple', 'config.pbtxt'), `${SIMPLE}\nversion_policy: { all { } }\n`);
    expect((await http(server, 'POST', '/v2/repository/models/simple/load')).status).toBe(200);
    // Oldest first, as Triton lists them.
    expect((await http(server, 'GET', '/v2/models/simple')).json().versions).toEqual(['1', '2', '3']);
    expect((await http(server, 'GET', '/v2/models/simple/versions/2/ready')).status).toBe(200);
    // An infer that names no version runs on the newest ready one.
    const answer = await http(server, 'POST', '/v2/models/simple/infer', SIMPLE_INFER);
    expect(answer.json().model_version).toBe('3');
  });

  it('fails to start with a one-line error for a missing repository folder', async () => {
    await expect(start({ modelRepository: '/nonexistent/k6t-repo' })).rejects.toThrow(
      /model repository "\/nonexistent\/k6t-repo" is not a readable folder/,
    );
  });
});

describe('statistics equal the requests sent', () => {
  let server: RunningServer | undefined;
  let repo: string | undefined;
  afterEach(async () => {
    await server?.stop();
    if (repo) removeRepository(repo);
  });

  it('counts successes, failures, inferences and executions exactly', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo });
    const s = server;
    const good = (batch: number) =>
      JSON.stringify({
        inputs: ['INPUT0', 'INPUT1'].map((name) => ({
          name,
          shape: [batch, 16],
          datatype: 'INT32',
          data: new Array(16 * batch).fill(1),
        })),
      });
    const bad = JSON.stringify({
      inputs: [{ name: 'INPUT0', shape: [1, 16], datatype: 'INT32', data: [1] }],
    });
    const sends = [
      ...Array.from({ length: 20 }, () => good(1)),
      ...Array.from({ length: 5 }, () => good(3)),
      ...Array.from({ length: 4 }, () => bad),
    ];
    const answers = await Promise.all(sends.map((b) => http(s, 'POST', '/v2/models/simple/infer', b)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(25);
    // Refused before they reach the model's queue (data short of the shape): Triton counts them nowhere.
    expect(answers.filter((a) => a.status === 500)).toHaveLength(4);
    const st = (await http(s, 'GET', '/v2/models/simple/stats')).json().model_stats[0];
    expect(st.inference_stats.success.count).toBe(25);
    expect(st.inference_stats.fail.count).toBe(0);
    expect(st.inference_stats.queue.count).toBe(25);
    expect(st.inference_stats.compute_infer.count).toBe(25);
    expect(st.inference_count).toBe(20 + 15);
    expect(st.execution_count).toBe(25);
    expect(
      st.batch_stats.map((b: { batch_size: number; compute_infer: { count: number } }) => [
        b.batch_size,
        b.compute_infer.count,
      ]),
    ).toEqual([
      [1, 20],
      [3, 5],
    ]);
    expect(st.last_inference).toBeGreaterThan(0);
    expect(st.inference_stats.success.ns).toBeGreaterThan(0);
    const metrics = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^nv_inference_request_success\{model="simple",version="1"\} 25$/m);
    expect(metrics).toMatch(/^nv_inference_request_failure\{model="simple",reason="OTHER",version="1"\} 0$/m);
    expect(metrics).toMatch(
      /^nv_inference_request_failure\{model="simple",reason="REJECTED",version="1"\} 0$/m,
    );
    expect(metrics).toMatch(/^nv_inference_count\{model="simple",version="1"\} 35$/m);
    expect(metrics).toMatch(/^nv_inference_exec_count\{model="simple",version="1"\} 25$/m);
  });
});
