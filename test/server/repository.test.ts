import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.ts';
import { http, makeRepository, removeRepository, start } from './helpers.ts';
import { NOBATCH, SIMPLE } from './repo-fixtures.ts';

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
    expect(index).toEqual([
      { name: 'nobatch' },
      { name: 'simple', version: '1', state: 'READY', reason: '' },
    ]);
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
    const infer = await http(server, 'POST', '/v2/models/simple/infer', '{"inputs":[]}');
    expect(infer.status).toBe(404);
    expect(infer.json().error).toBe("Request for unknown model: 'simple' is not found");

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

  it('answers 400 for a config parameter that is not a valid model config, keeping the model as it was', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, modelControlMode: 'explicit', loadModels: ['*'] });
    const bad = await http(
      server,
      'POST',
      '/v2/repository/models/simple/load',
      JSON.stringify({ parameters: { config: '{"max_batch_size": "x", "bogus": 1}' } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/invalid "config" parameter of model 'simple'/);
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
    expect(res.json().error).toMatch(
      /load failed for model 'simple': unable to find backend 'no-such-backend'/,
    );
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    expect((await http(server, 'GET', '/v2/models/simple/config')).json().max_batch_size).toBe(8);
  });

  it('reports a model whose config.pbtxt does not parse as UNAVAILABLE with the parser reason', async () => {
    repo = makeRepository({ simple: SIMPLE, broken: 'name: "broken"\nmax_batch_size: [ oops' });
    server = await start({ modelRepository: repo });
    const index = (await http(server, 'POST', '/v2/repository/index')).json();
    const broken = index.find((r: { name: string }) => r.name === 'broken');
    expect(broken.state).toBe('UNAVAILABLE');
    expect(broken.reason).toMatch(/invalid .*broken.*config\.pbtxt/);
    expect((await http(server, 'GET', '/v2/models/simple/ready')).status).toBe(200);
    // Strict readiness, Triton's default: the server is not ready while a model failed to load.
    expect((await http(server, 'GET', '/v2/health/ready')).status).toBe(400);
    expect((await http(server, 'GET', '/v2/health/live')).status).toBe(200);
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
    expect((await http(server, 'GET', '/v2/models/simple')).json().versions).toEqual(['3', '2', '1']);
    expect((await http(server, 'GET', '/v2/models/simple/versions/2/ready')).status).toBe(200);
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
    expect(metrics).toMatch(/^nv_inference_request_failure\{model="simple",version="1",reason="OTHER"\} 0$/m);
    expect(metrics).toMatch(
      /^nv_inference_request_failure\{model="simple",version="1",reason="REJECTED"\} 0$/m,
    );
    expect(metrics).toMatch(/^nv_inference_count\{model="simple",version="1"\} 35$/m);
    expect(metrics).toMatch(/^nv_inference_exec_count\{model="simple",version="1"\} 25$/m);
  });
});
