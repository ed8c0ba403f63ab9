/**
 * Runs a runtime (`k6-triton run` or real k6) as a separate process with its REST API on a free
 * 127.0.0.1 port, and talks to that API: the test process only sends requests (a server in the test
 * process beside a blocking child would deadlock).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));

/** The Node runtime's command: node bin/k6-triton.js. */
export const NODE_RUNTIME = [process.execPath, bin];

/** How a started run ended. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A run in progress with its API at `base`. */
export interface ApiRun {
  base: string;
  /** What it printed so far. */
  output(): { stdout: string; stderr: string };
  kill(signal: NodeJS.Signals): void;
  ended: Promise<Ended>;
}

/** A port free on 127.0.0.1 now (the OS's ephemeral pick, released for the run to bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** How a run is started: extra environment, the port (default: a free one), flag or K6_ADDRESS. */
export interface StartOptions {
  env?: Record<string, string>;
  port?: number;
  via?: 'flag' | 'env';
}

/** Starts `command run --address 127.0.0.1:<port> ...args`; killed after 60 s so a hung run fails its test. */
export async function startRun(command: string[], args: string[], opts: StartOptions = {}): Promise<ApiRun> {
  const port = opts.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const [exe, ...pre] = command;
  const viaEnv = opts.via === 'env';
  const child = spawn(exe!, [...pre, 'run', ...(viaEnv ? [] : ['--address', address]), ...args], {
    stdio: 'pipe',
    env: { ...process.env, ...opts.env, ...(viaEnv ? { K6_ADDRESS: address } : {}) },
  });
  const out = { stdout: '', stderr: '' };
  for (const fd of ['stdout', 'stderr'] as const)
    child[fd].on('data', (d) => {
      out[fd] += d;
    });
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const ended = new Promise<Ended>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, ...out });
    }),
  );
  return {
    base: `http://127.0.0.1:${port}`,
    output: () => ({ ...out }),
    kill: (signal) => child.kill(signal),
    ended,
  };
}

/** An API answer: status code, content type and the body (parsed when JSON). */
export interface Answer {
  status: number;
  type: string | null;
  body: unknown;
}

/** One request to the API. */
export async function call(base: string, path: string, method = 'GET', body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: `ok`, `404 page not found`.
  }
  return { status: res.status, type: res.headers.get('content-type'), body: parsed };
}

/** Polls `probe` every 100 ms until it gives a value (connection errors count as not yet); throws after `limit_ms`. */
export async function until<T>(probe: () => Promise<T | undefined>, limit_ms = 30_000): Promise<T> {
  const end = Date.now() + limit_ms;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch {
      // The server is not listening yet.
    }
    if (Date.now() > end) throw new Error(`gave up after ${limit_ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The attributes of GET /v1/status. */
export async function status(base: string): Promise<Record<string, unknown>> {
  const r = await call(base, '/v1/status');
  return (r.body as { data: { attributes: Record<string, unknown> } }).data.attributes;
}

/** Waits until GET /v1/status matches `want` (every key given). */
export function statusIs(base: string, want: Record<string, unknown>, limit_ms?: number) {
  return until(async () => {
    const s = await status(base);
    return Object.entries(want).every(([k, v]) => s[k] === v) ? s : undefined;
  }, limit_ms);
}

/** `PATCH /v1/status` with these attributes. */
export function patchStatus(base: string, attributes: Record<string, unknown>): Promise<Answer> {
  return call(base, '/v1/status', 'PATCH', { data: { attributes } });
}

/** The /v1/metrics entries by id. */
export async function metricsById(
  base: string,
): Promise<Map<string, { attributes: Record<string, unknown> }>> {
  const r = await call(base, '/v1/metrics');
  const list = (r.body as { data: { id: string; attributes: Record<string, unknown> }[] }).data;
  return new Map(list.map((m) => [m.id, m]));
}

/** The test script both suites run: 2 VUs share 6 iterations with a group, a check, a counter and setup data. */
export const PAUSED_SCRIPT = `import { Counter } from 'k6/metrics';
import { check, group, sleep } from 'k6';
const ticks = new Counter('ticks');
export const options = { vus: 2, iterations: 6, thresholds: { ticks: ['count>=6'] } };
export function setup() { return { from: 'setup' }; }
export default function () {
  group('g1', () => { ticks.add(1); check(1, { one: (x) => x === 1 }); });
  sleep(0.05);
}
`;

/** Three executor kinds, each counting its iterations in a sub-metric (their thresholds always hold). */
export const EXECUTORS_SCRIPT = `import { Counter } from 'k6/metrics';
import { sleep } from 'k6';
const done = new Counter('done');
export const options = {
  scenarios: {
    rate: { executor: 'constant-arrival-rate', rate: 20, timeUnit: '1s', duration: '1s', preAllocatedVUs: 2 },
    ramp: { executor: 'ramping-vus', startVUs: 1, stages: [{ duration: '1s', target: 1 }], gracefulRampDown: '0s', exec: 'slow' },
    each: { executor: 'per-vu-iterations', vus: 2, iterations: 3 },
  },
  thresholds: { 'done{scenario:rate}': ['count>=0'], 'done{scenario:ramp}': ['count>=0'], 'done{scenario:each}': ['count>=0'] },
};
export default function () { done.add(1); }
export function slow() { done.add(1); sleep(0.3); }
`;

/** A script that runs for a while (constant-vus, 1 VU, 20 s) so a test can act on it while it runs. */
export const LONG_SCRIPT = `import { sleep } from 'k6';
export const options = { vus: 1, duration: '20s' };
export default function () { sleep(0.1); }
`;
