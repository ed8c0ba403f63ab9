/**
 * Agreement for k6's REST API: the same script runs under real k6 and `k6-triton run`, each with
 * `--paused --linger --address`; both APIs are asked the same things while paused, after resuming and
 * while lingering, and their documents (keys, values where the run decides them, refusals) compared.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  call,
  EXECUTORS_SCRIPT,
  metricsById,
  NODE_RUNTIME,
  PAUSED_SCRIPT,
  patchStatus,
  startRun,
  statusIs,
  until,
} from '../runtime/rest-api-run.ts';
import { findK6 } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`REST API agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

const dir = mkdtempSync(join(tmpdir(), 'k6t-restapi-agree-'));
const script = join(dir, 'paused.js');
writeFileSync(script, PAUSED_SCRIPT);
const executors = join(dir, 'executors.js');
writeFileSync(executors, EXECUTORS_SCRIPT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Metrics = Awaited<ReturnType<typeof metricsById>>;

/** What one runtime's API answered along the run. */
interface Seen {
  paused: Answer;
  pausedMetrics: Metrics;
  refusals: Answer[];
  resumed: Answer;
  lingering: Answer;
  metrics: Metrics;
  groups: Answer;
  setup: Answer;
  pauseAfterStart: Answer;
  code: number | null;
}

async function observe(command: string[]): Promise<Seen> {
  const run = await startRun(command, ['-q', '--paused', '--linger', script]);
  await statusIs(run.base, { status: 4 });
  const paused = await call(run.base, '/v1/status');
  // k6's metrics engine takes in samples a moment after they are emitted: wait for vus_max.
  const pausedMetrics = await until(async () => {
    const m = await metricsById(run.base);
    return m.has('vus_max') ? m : undefined;
  });
  const refusals = [
    await patchStatus(run.base, { paused: true }),
    await patchStatus(run.base, { vus: 3 }),
    await call(run.base, '/v1/status', 'PATCH', 'not json'),
  ];
  const resumed = await patchStatus(run.base, { paused: false });
  // -q hides k6's linger line: the end of the test shows in the status (9: ended).
  await statusIs(run.base, { status: 9 });
  const lingering = await call(run.base, '/v1/status');
  // k6 evaluates thresholds every 2 s: once it has, `ticks` (with a threshold) shows its verdict.
  const metrics = await until(async () => {
    const m = await metricsById(run.base);
    return m.get('ticks')?.attributes['tainted'] !== null ? m : undefined;
  });
  const groups = await call(run.base, '/v1/groups');
  const setup = await call(run.base, '/v1/setup');
  const pauseAfterStart = await patchStatus(run.base, { paused: true });
  run.kill('SIGINT');
  const end = await run.ended;
  return {
    paused,
    pausedMetrics,
    refusals,
    resumed,
    lingering,
    metrics,
    groups,
    setup,
    pauseAfterStart,
    code: end.code,
  };
}

/** A paused run of three executor kinds: its metrics while paused, and its sub-metrics' counts after resuming. */
async function pausedExecutors(command: string[]) {
  const run = await startRun(command, ['-q', '--paused', '--linger', executors]);
  await statusIs(run.base, { status: 4, 'vus-max': 5 });
  const held = await until(async () => {
    const m = await metricsById(run.base);
    return m.has('vus_max') ? m : undefined;
  });
  await patchStatus(run.base, { paused: false });
  await statusIs(run.base, { status: 9 });
  const after = await metricsById(run.base);
  run.kill('SIGINT');
  const count = (id: string) => (after.get(id)?.attributes['sample'] as { count: number } | undefined)?.count;
  return {
    held,
    counts: {
      rate: count('done{scenario:rate}'),
      ramp: count('done{scenario:ramp}'),
      each: count('done{scenario:each}'),
    },
    dropped: after.has('dropped_iterations'),
    code: (await run.ended).code,
  };
}

const attrs = (a: Answer) => (a.body as { data: { attributes: Record<string, unknown> } }).data.attributes;

describe.skipIf(!K6)('REST API agreement with real k6', () => {
  it('answers /v1/status, /v1/metrics, /v1/groups and /v1/setup alike through --paused and --linger', async () => {
    const [k6, node] = await Promise.all([observe([K6!]), observe(NODE_RUNTIME)]);
    expect(node.code).toBe(k6.code);

    // Paused: the same document, key order included.
    expect(node.paused.body).toEqual(k6.paused.body);
    expect(Object.keys(attrs(node.paused))).toEqual(Object.keys(attrs(k6.paused)));
    expect(node.paused.type).toBe(k6.paused.type);
    for (const id of ['ticks', 'vus_max'])
      expect(node.pausedMetrics.get(id), id).toEqual(k6.pausedMetrics.get(id));
    expect(node.pausedMetrics.has('iterations')).toBe(false);
    expect(k6.pausedMetrics.has('iterations')).toBe(false);

    // k6's refusals: status codes and documents (the JSON parser's own words aside).
    for (const [i, r] of node.refusals.entries())
      expect(r.status, `refusal ${i}`).toBe(k6.refusals[i]!.status);
    expect(node.refusals.slice(0, 2).map((r) => r.body)).toEqual(k6.refusals.slice(0, 2).map((r) => r.body));
    expect((node.refusals[2]!.body as { errors: { title: string }[] }).errors[0]!.title).toBe('Invalid data');
    expect(node.resumed.status).toBe(k6.resumed.status);
    expect(attrs(node.resumed)['paused']).toBe(false);
    expect(node.pauseAfterStart.body).toEqual(k6.pauseAfterStart.body);

    // Lingering after the test: the status, the metrics' shapes and counts, groups and setup data alike.
    expect(node.lingering.body).toEqual(k6.lingering.body);
    const both = ['checks', 'group_duration', 'iteration_duration', 'iterations', 'ticks', 'vus', 'vus_max'];
    for (const id of both) {
      const [n, k] = [node.metrics.get(id)?.attributes, k6.metrics.get(id)?.attributes];
      expect(n, id).toBeDefined();
      expect(k, id).toBeDefined();
      expect({ ...n, sample: Object.keys(n!['sample'] as object).sort() }, id).toEqual({
        ...k,
        sample: Object.keys(k!['sample'] as object).sort(),
      });
    }
    for (const id of ['iterations', 'ticks'])
      expect((node.metrics.get(id)!.attributes['sample'] as { count: number }).count, id).toBe(
        (k6.metrics.get(id)!.attributes['sample'] as { count: number }).count,
      );
    expect(node.metrics.get('checks')!.attributes['sample']).toEqual(
      k6.metrics.get('checks')!.attributes['sample'],
    );
    expect(node.groups.body).toEqual(k6.groups.body);
    expect(node.setup.body).toEqual(k6.setup.body);
  });

  it('holds every executor kind while paused and runs their schedules after resuming, as k6', async () => {
    const [k6, node] = await Promise.all([pausedExecutors([K6!]), pausedExecutors(NODE_RUNTIME)]);
    expect(node.code).toBe(k6.code);
    // The same metrics while paused (k6 also samples vus at VU init: runtime-differences.md), at zero.
    const ids = (m: Metrics) => [...m.keys()].filter((id) => id !== 'vus').sort();
    expect(ids(node.held)).toEqual(ids(k6.held));
    for (const id of ids(k6.held)) expect(node.held.get(id), id).toEqual(k6.held.get(id));
    expect(node.counts.each).toBe(k6.counts.each);
    expect(Math.abs(node.counts.rate! - k6.counts.rate!)).toBeLessThanOrEqual(1);
    expect(Math.abs(node.counts.ramp! - k6.counts.ramp!)).toBeLessThanOrEqual(1);
    expect([node.dropped, k6.dropped]).toEqual([false, false]);
  });
});
