/**
 * k6's REST API on the Node runtime (`k6-triton run --address`): --paused waits until PATCH /v1/status
 * resumes the run, k6's refusals, stopping from the API (exit 103), --linger, and a taken port. Every run is
 * a separate process; the test only sends requests.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '@k6-triton/runtime';
import {
  call,
  EXECUTORS_SCRIPT,
  freePort,
  LONG_SCRIPT,
  metricsById,
  NODE_RUNTIME,
  PAUSED_SCRIPT,
  patchStatus,
  startRun,
  status,
  statusIs,
  until,
} from './rest-api-run.ts';
import { logEntries } from '../../../packages/runtime/test/logfmt.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-restapi-'));
const paused = join(dir, 'paused.js');
const long = join(dir, 'long.js');
const executors = join(dir, 'executors.js');
writeFileSync(executors, EXECUTORS_SCRIPT);
writeFileSync(paused, PAUSED_SCRIPT);
writeFileSync(long, LONG_SCRIPT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exported = (name: string) =>
  JSON.parse(readFileSync(join(dir, name), 'utf8')) as { metrics: Record<string, Record<string, number>> };

describe('k6-triton run --paused --address', () => {
  it('runs no iteration until PATCH /v1/status resumes it, then runs them all', async () => {
    const run = await startRun(NODE_RUNTIME, [
      '-q',
      '--paused',
      '--summary-export',
      join(dir, 'p.json'),
      paused,
    ]);
    const s = await statusIs(run.base, { status: 4, paused: true });
    expect(s).toEqual({
      status: 4,
      paused: true,
      vus: 0,
      'vus-max': 2,
      stopped: false,
      running: false,
      tainted: false,
    });
    // Paused a while: still no iteration, no setup() (k6 waits before it).
    await new Promise((r) => setTimeout(r, 700));
    expect(await status(run.base)).toMatchObject({ status: 4, paused: true });
    const before = await metricsById(run.base);
    expect(before.has('iterations')).toBe(false);
    expect(before.get('ticks')?.attributes).toEqual({
      type: 'counter',
      contains: 'default',
      tainted: null,
      sample: { count: 0, rate: 0 },
    });
    expect((await call(run.base, '/v1/setup')).body).toEqual({
      data: { type: 'setupData', id: 'default', attributes: {} },
    });
    // k6's refusals while paused.
    expect(await patchStatus(run.base, { paused: true })).toMatchObject({
      status: 500,
      body: { errors: [{ status: '500', title: 'Pause error', detail: 'execution is already paused' }] },
    });
    expect(await patchStatus(run.base, { vus: 3 })).toMatchObject({
      status: 500,
      body: {
        errors: [
          {
            status: '500',
            title: 'Execution config error',
            detail: 'live VU configuration updates are not supported',
          },
        ],
      },
    });
    const resumed = await patchStatus(run.base, { paused: false });
    expect(resumed.status).toBe(200);
    expect((resumed.body as { data: { attributes: { paused: boolean } } }).data.attributes.paused).toBe(
      false,
    );
    const end = await run.ended;
    expect(end.code).toBe(EXIT.OK);
    expect(exported('p.json').metrics['iterations']?.['count']).toBe(6);
    expect(exported('p.json').metrics['ticks']?.['count']).toBe(6);
  });

  it('holds every executor kind, whose schedules start on resume (no iteration dropped for the pause)', async () => {
    const run = await startRun(NODE_RUNTIME, [
      '-q',
      '--paused',
      '--summary-export',
      join(dir, 'x.json'),
      executors,
    ]);
    await statusIs(run.base, { status: 4, paused: true, 'vus-max': 5 });
    await new Promise((r) => setTimeout(r, 1200));
    const held = await metricsById(run.base);
    for (const sc of ['', '{scenario:rate}', '{scenario:ramp}', '{scenario:each}'])
      expect(held.get(`done${sc}`)?.attributes['sample'], sc).toEqual({ count: 0, rate: 0 });
    expect((await patchStatus(run.base, { paused: false })).status).toBe(200);
    expect((await run.ended).code).toBe(EXIT.OK);
    const m = exported('x.json').metrics;
    // k6 v2.2.0 gives 21, 4 and 6 for this script; 20 iterations per second for 1 s is the schedule.
    expect(m['done{scenario:rate}']?.['count']).toBeGreaterThanOrEqual(20);
    expect(m['done{scenario:rate}']?.['count']).toBeLessThanOrEqual(21);
    expect(m['done{scenario:ramp}']?.['count']).toBeGreaterThanOrEqual(3);
    expect(m['done{scenario:ramp}']?.['count']).toBeLessThanOrEqual(5);
    expect(m['done{scenario:each}']?.['count']).toBe(6);
    expect(m['dropped_iterations']).toBeUndefined();
  });

  it('reads K6_PAUSED as --paused', async () => {
    const run = await startRun(NODE_RUNTIME, ['-q', paused], { env: { K6_PAUSED: 'true' }, via: 'env' });
    await statusIs(run.base, { status: 4, paused: true });
    expect((await metricsById(run.base)).has('iterations')).toBe(false);
    run.kill('SIGINT');
    const end = await run.ended;
    // Stopped while paused: no iteration ran, k6's exit code for a signal.
    expect(end.code).toBe(EXIT.EXTERNAL_ABORT);
    expect(end.stdout).not.toMatch(/iterations\.+:/);
  });
});

describe('k6-triton run --address', () => {
  it('refuses pausing a started run as k6 does, shows live metrics, and stops on PATCH stopped (exit 103)', async () => {
    const run = await startRun(NODE_RUNTIME, ['-q', long]);
    await statusIs(run.base, { status: 7, running: true });
    const it = await until(async () => {
      const m = (await metricsById(run.base)).get('iterations');
      return m && (m.attributes['sample'] as { count: number }).count > 0 ? m : undefined;
    });
    expect(it.attributes).toMatchObject({ type: 'counter', contains: 'default', tainted: null });
    expect(Object.keys(it.attributes['sample'] as object).sort()).toEqual(['count', 'rate']);
    const one = await call(run.base, '/v1/metrics/iteration_duration');
    expect(one.status).toBe(200);
    expect(
      Object.keys((one.body as { data: { attributes: { sample: object } } }).data.attributes.sample),
    ).toEqual(['avg', 'max', 'med', 'min', 'p(90)', 'p(95)']);
    expect((await call(run.base, '/v1/metrics/nope')).body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'No metric with that ID was found' }],
    });
    expect((await patchStatus(run.base, { paused: true })).body).toEqual({
      errors: [
        {
          status: '500',
          title: 'Pause error',
          detail:
            "constant-vus executor 'default' doesn't support pause and resume operations after its start",
        },
      ],
    });
    const stopped = await patchStatus(run.base, { stopped: true });
    expect(stopped.status).toBe(200);
    expect((stopped.body as { data: { attributes: { stopped: boolean } } }).data.attributes.stopped).toBe(
      true,
    );
    const end = await run.ended;
    expect(end.code).toBe(EXIT.STOPPED_FROM_REST_API);
    expect(end.stderr).toContain('test run stopped from REST API');
  });

  it('exits 106 when the port the flag names is taken; K6_ADDRESS only warns', async () => {
    const port = await freePort();
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
    try {
      const flag = await (await startRun(NODE_RUNTIME, ['-q', paused], { port })).ended;
      expect(flag.code).toBe(EXIT.CANNOT_START_REST_API);
      const error = `listen tcp 127.0.0.1:${port}: bind: address already in use`;
      const entry = (level: string) => ({ level, msg: 'Error from API server', fields: { error } });
      expect(logEntries(flag.stderr)).toContainEqual(entry('error'));
      // K6_ADDRESS: k6 warns and runs the test.
      const env = await (await startRun(NODE_RUNTIME, ['-q', paused], { port, via: 'env' })).ended;
      expect(env.code).toBe(EXIT.OK);
      expect(logEntries(env.stderr)).toContainEqual(entry('warning'));
    } finally {
      taken.close();
    }
  });
});

describe('k6-triton run --linger', () => {
  it('keeps answering after teardown until SIGINT, then prints the summary (K6_LINGER as --linger)', async () => {
    const run = await startRun(NODE_RUNTIME, [paused], { env: { K6_LINGER: 'true' } });
    await until(async () => (run.output().stdout.includes('--linger was enabled') ? true : undefined));
    expect(run.output().stdout).not.toContain('TOTAL RESULTS');
    expect(await status(run.base)).toMatchObject({ status: 9, running: false, paused: false, vus: 0 });
    // Thresholds are evaluated every 2 s, as k6 does: then `tainted` gives the verdict (count>=6 holds).
    const ticks = await until(async () => {
      const m = (await metricsById(run.base)).get('ticks');
      return m?.attributes['tainted'] !== null ? m : undefined;
    });
    expect(ticks?.attributes['sample']).toMatchObject({ count: 6 });
    expect(ticks?.attributes['tainted']).toBe(false);
    expect(await call(run.base, '/ping')).toMatchObject({ status: 200, body: 'ok' });
    run.kill('SIGINT');
    const end = await run.ended;
    expect(end.code).toBe(EXIT.OK);
    expect(end.stdout).toContain('TOTAL RESULTS');
  });

  it('does not linger after a signal stopped the test, as k6', async () => {
    const run = await startRun(NODE_RUNTIME, ['--linger', long]);
    await statusIs(run.base, { status: 7 });
    run.kill('SIGINT');
    const end = await run.ended;
    expect(end.code).toBe(EXIT.EXTERNAL_ABORT);
    expect(end.stdout).not.toContain('--linger was enabled');
    expect(end.stdout).toContain('TOTAL RESULTS');
  });
});

describe('k6-triton run --workers 2 --address', () => {
  it('--paused holds both workers until one PATCH resumes them; status and metrics are the whole run', async () => {
    const run = await startRun(NODE_RUNTIME, [
      '--workers',
      '2',
      '--paused',
      '--linger',
      '--summary-export',
      join(dir, 'w2.json'),
      paused,
    ]);
    // The API answers once both workers are loaded: each worker initialized one of the 2 VUs.
    expect(await statusIs(run.base, { status: 4, paused: true })).toMatchObject({ vus: 0, 'vus-max': 2 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await metricsById(run.base)).get('ticks')?.attributes['sample']).toEqual({ count: 0, rate: 0 });
    expect((await patchStatus(run.base, { paused: false })).status).toBe(200);
    // Lingering after teardown: the first worker holds every worker's metrics, counted once.
    await until(async () => (run.output().stdout.includes('--linger was enabled') ? true : undefined));
    expect(await status(run.base)).toMatchObject({ status: 9, 'vus-max': 2 });
    const m = await metricsById(run.base);
    expect(m.get('ticks')?.attributes['sample']).toMatchObject({ count: 6 });
    expect(m.get('iterations')?.attributes['sample']).toMatchObject({ count: 6 });
    expect(m.get('checks')?.attributes['sample']).toEqual({ rate: 1 });
    expect((await call(run.base, '/v1/setup')).body).toMatchObject({
      data: { attributes: { data: { from: 'setup' } } },
    });
    const groups = (await call(run.base, '/v1/groups')).body as { data: { attributes: { name: string } }[] };
    expect(groups.data.map((g) => g.attributes.name)).toEqual(['', 'g1']);
    run.kill('SIGINT');
    const end = await run.ended;
    expect(end.code).toBe(EXIT.OK);
    expect(exported('w2.json').metrics['iterations']?.['count']).toBe(6);
  });

  it('sums both workers while running, refuses a pause as one run does, and stops both (exit 103)', async () => {
    const run = await startRun(NODE_RUNTIME, ['-q', '--workers', '2', '-u', '2', long]);
    expect(await statusIs(run.base, { status: 7, running: true })).toMatchObject({ vus: 2, 'vus-max': 2 });
    // Both workers' iterations: each VU iterates every 0.1 s, so both shares show within a few tenths.
    const its = await until(async () => {
      const m = await metricsById(run.base);
      const count = (m.get('iterations')?.attributes['sample'] as { count: number } | undefined)?.count ?? 0;
      return count >= 10 ? m : undefined;
    });
    expect(its.get('vus')?.attributes['sample']).toEqual({ value: 2 });
    expect((await patchStatus(run.base, { paused: true })).body).toMatchObject({
      errors: [
        {
          detail:
            "constant-vus executor 'default' doesn't support pause and resume operations after its start",
        },
      ],
    });
    expect((await patchStatus(run.base, { stopped: true })).status).toBe(200);
    const end = await run.ended;
    expect(end.code).toBe(EXIT.STOPPED_FROM_REST_API);
    expect(end.stderr.match(/test run stopped from REST API/g)).toHaveLength(1);
  });
});
