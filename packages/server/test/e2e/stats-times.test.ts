import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { http, makeRepository, removeRepository, start } from '../helpers.ts';

/**
 * One instance, a fixed 200 ms simulated compute, no batching: a second concurrent request queues behind the first.
 * The compute is 4x the asserted 45 ms so that a second request a few ms late on a loaded machine still queues
 * past it (at 50 ms it queued 40.8 and 44.9 ms in two full CI runs).
 */
const SLOW = `
name: "slow"
backend: "simulated"
max_batch_size: 0
input [ { name: "A" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "B" data_type: TYPE_INT32 dims: [ 1 ] } ]
parameters { key: "compute_ms" value: { string_value: "200" } }
`;

describe('statistics carry the waited compute and queue time', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({ slow: SLOW });
    server = await start({ modelRepository: repo });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('reports compute_infer of at least the simulated time and the queueing of the second request', async () => {
    const body = JSON.stringify({ inputs: [{ name: 'A', shape: [1], datatype: 'INT32', data: [1] }] });
    // Two kept-alive connections first, so that the second request is not late for the queue behind a
    // connection set-up of its own (seen under a full test run: it queued 41 of the first's 50 ms).
    await Promise.all([1, 2].map(() => http(server, 'GET', '/v2/health/live')));
    const answers = await Promise.all([1, 2].map(() => http(server, 'POST', '/v2/models/slow/infer', body)));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const st = (await http(server, 'GET', '/v2/models/slow/stats')).json().model_stats[0].inference_stats;
    // Timers never fire early, so two 200 ms executions are well over 2 x 45 ms of compute_infer (bounds kept loose).
    expect(st.compute_infer.count).toBe(2);
    expect(st.compute_infer.ns).toBeGreaterThanOrEqual(2 * 45e6);
    // The second request waited in the queue while the only instance ran the first.
    expect(st.queue.ns).toBeGreaterThanOrEqual(45e6);
    expect(st.success.ns).toBeGreaterThanOrEqual(st.compute_infer.ns + st.queue.ns);
  });
});
