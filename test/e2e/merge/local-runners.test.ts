/**
 * Issue 14 without a cluster: the manifests `k6-triton k8s` writes, run as k6-operator would run them
 * (./k6-operator.ts): N runner processes, each with its execution segment, against one embedded server
 * on 127.0.0.1, then `k6-triton merge` over their `--out json` files. Checked: the merged request count
 * is the sum of the runners'; merged p50/p95/p99 are the pooled raw samples' (nearest rank, within the
 * histogram's 3 significant digits); each runner ran k6's share of the VUs; and the merged verdict is that
 * of a single-process run (the same TestRun at parallelism 1) of the same load. Under the Node runtime
 * always, under real k6 when K6_BIN or ../shared/tools/bin/k6 exists.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { toYaml } from '../../../cli/k8s.ts';
import { k8sInput } from '../../../measure/k8s/inputs.ts';
import { benchManifests, type K8sObject, type ManifestInput } from '../../../measure/k8s/manifests.ts';
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';
import { findK6 } from '../agreement/harness.ts';
import { startForwardingProxy } from '../bench/forwarding-proxy.ts';
import { type LocalRunner, localRunner, materialize } from '../../merge/k6-operator.ts';

const ROOT = join(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'bin/k6-triton.js');
/** Runners, and a level they cannot split evenly: k6 gives the first runner the extra VU. */
const RUNNERS = 3;
const VUS = 4;
const LEVEL = `c${VUS}`;
/** p95 under 60 s is met and p99 under 1 us is missed by any real request: a verdict no jitter can flip. */
const SETTINGS = {
  CONCURRENCY: String(VUS),
  STEP_DURATION: '2s',
  WARMUP_DURATION: '0s',
  P95_MS: '60000',
  P99_MS: '0.001',
};

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 runners skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);

type Runtime = 'node' | 'k6';

/** Only what a runner needs from this process's environment: the runner env is the TestRun's. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'K6_REF_CACHE'];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
}

/** A finished process: its exit code (0, or 99 for crossed thresholds) and what it logged. */
interface Exit {
  code: number;
  stderr: string;
}

/** Runs a command to its exit (0 or 99, k6's code for crossed thresholds; anything else throws). */
function run(command: string, args: string[], env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 || code === 99
        ? resolve({ code, stderr })
        : reject(new Error(`${command} ${args.join(' ')}: exit ${code}: ${stderr}`)),
    );
  });
}

/** Starts one runner under a runtime: `k6 <args>` or `node bin/k6-triton.js <args>`. */
function start(runtime: Runtime, runner: LocalRunner, extraEnv: Record<string, string> = {}): Promise<Exit> {
  const env = { ...runner.env, ...extraEnv };
  return runtime === 'k6'
    ? run(k6.bin!, runner.args, env)
    : run(process.execPath, [CLI, ...runner.args], env);
}

/** What one runner's NDJSON holds: the level's request durations (ms) and its largest vus_max. */
function readRunner(path: string): { durations_ms: number[]; vusMax: number } {
  const durations_ms: number[] = [];
  let vusMax = 0;
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (!text.includes('"Point"')) continue;
    const line = JSON.parse(text);
    if (line.metric === 'http_req_duration' && line.data.tags?.scenario === LEVEL)
      durations_ms.push(line.data.value);
    if (line.metric === 'vus_max') vusMax = Math.max(vusMax, line.data.value);
  }
  return { durations_ms, vusMax };
}

/** k6's percentile of sorted values: linear between the closest ranks. */
function k6Percentile(sorted: readonly number[], p: number): number {
  const i = (p / 100) * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  return lo + (sorted[Math.ceil(i)]! - lo) * (i - Math.floor(i));
}

/** k6's share of `value` for segment i of N equal segments: index k of every N goes to segment k. */
function share(value: number, i: number, n: number): number {
  return Math.floor(value / n) + (i < value % n ? 1 : 0);
}

/** The budget verdicts of a level, in a comparable order. */
/**
 * A level's budgets as missed or not: a pooled level's windows are not one process's, so its stability (and
 * with it met against inconclusive) may differ; a miss may not.
 */
const verdicts = (level: LevelResult) =>
  level.budgets
    .map((b) => ({ metric: b.metric, expr: b.expr, missed: b.state === 'missed' }))
    .sort((a, b) => a.expr.localeCompare(b.expr));

describe('local runners with execution segments, merged', () => {
  let server: EmbeddedServer;
  let input: ManifestInput;

  beforeAll(async () => {
    server = await startEmbedded();
    input = await k8sInput({
      model: 'mnist',
      settings: { ...SETTINGS, TRITON_URL: server.url },
      parallelism: RUNNERS,
      runnerImage: 'grafana/k6:latest',
      toolImage: 'k6-triton:test',
      resources: { cpu: '1', memory: '1Gi' },
      resultsSize: '1Gi',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The manifests as `k6-triton k8s` prints them, read back from the YAML. */
  function manifests(parallelism: number): K8sObject[] {
    const yaml = toYaml(benchManifests({ ...input, parallelism }));
    return parseAllDocuments(yaml).map((d) => d.toJS() as K8sObject);
  }

  async function check(runtime: Runtime): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), `k6-triton-runners-${runtime}-`));

    // N runners together, each with its segment, as the TestRun at --parallelism N starts them.
    const objects = manifests(RUNNERS);
    const mounts = materialize(objects, join(dir, 'cluster'));
    const runners = Array.from({ length: RUNNERS }, (_, i) => localRunner(objects, i + 1, mounts));
    const point = (i: number) => (i === 0 ? '0' : i === RUNNERS ? '1' : `${i}/${RUNNERS}`);
    expect(runners.map((r) => r.args.find((a) => a.startsWith('--execution-segment=')))).toEqual(
      runners.map((_, i) => `--execution-segment=${point(i)}:${point(i + 1)}`),
    );
    const exits = await Promise.all(runners.map((r) => start(runtime, r)));
    // A warning (level=warning, from k6 and the runtime alike) means the manifests lack something a runner looks for.
    for (const exit of exits) expect(exit.stderr).not.toMatch(/level=warning/);
    const files = runners.map((r) => join(mounts.get('/results')!, `${r.name}.json`));
    const perRunner = files.map(readRunner);

    // `k6-triton merge` with the run's settings as the runners had them (their env, minus the pod name).
    const { K6_TRITON_RUNNER: _, ...settings } = runners[0]!.env;
    const mergedDir = join(dir, 'merged');
    const { code: mergeCode } = await run(
      process.execPath,
      [CLI, 'merge', '--model', 'mnist', '--out-dir', mergedDir, ...files],
      settings,
    );
    const merged = (
      JSON.parse(readFileSync(join(mergedDir, 'summary.json'), 'utf8')) as { report: RunReport }
    ).report;

    // The same TestRun at parallelism 1: one process, no segment, the same load.
    const single = manifests(1);
    const singleRunner = localRunner(single, 1, materialize(single, join(dir, 'single')));
    expect(singleRunner.args.some((a) => a.startsWith('--execution-segment'))).toBe(false);
    const levelsFile = join(dir, 'single-levels.json');
    const { code: singleCode } = await start(runtime, singleRunner, { LEVELS_JSON: levelsFile });
    const singleLevels = JSON.parse(readFileSync(levelsFile, 'utf8')) as LevelResult[];

    // Each runner ran its share of the level's VUs, plus its share of the one-VU statistics probe.
    expect(perRunner.map((r) => r.vusMax)).toEqual(
      perRunner.map((_, i) => share(VUS, i, RUNNERS) + share(1, i, RUNNERS)),
    );
    expect(perRunner.every((r) => r.durations_ms.length > 0)).toBe(true);

    const level = merged.results.find((r) => r.name === LEVEL)!;
    expect(merged.results.map((r) => r.name)).toEqual([LEVEL]);
    const pooled = perRunner.flatMap((r) => r.durations_ms).sort((a, b) => a - b);
    expect(level.requests).toBe(perRunner.reduce((n, r) => n + r.durations_ms.length, 0));
    expect(level.requests).toBe(pooled.length);
    for (const p of [50, 95, 99] as const) {
      const expected_us = k6Percentile(pooled, p) * 1000;
      // k6's rule over the pooled values (trends keep them up to 100,000); the samples' JSON rounds them.
      expect(Math.abs(level.latency_us[`p${p}`] - expected_us) / expected_us).toBeLessThanOrEqual(1e-3);
    }

    const singleLevel = singleLevels.find((r) => r.name === LEVEL)!;
    expect(verdicts(level)).toEqual(verdicts(singleLevel));
    expect(verdicts(level).map((v) => v.missed)).toContain(true);
    expect(verdicts(level).map((v) => v.missed)).toContain(false);
    expect(mergeCode).toBe(singleCode);
    expect(merged.verdict_ok).toBe(false);
    const ms = (us: number) => (us / 1000).toFixed(2);
    console.log(
      `${runtime}: ${LEVEL} over ${RUNNERS} runners: requests ${perRunner.map((r) => r.durations_ms.length).join('+')}=${level.requests}, vus_max ${perRunner.map((r) => r.vusMax).join(',')}; merged p50/p95/p99 ${ms(level.latency_us.p50)}/${ms(level.latency_us.p95)}/${ms(level.latency_us.p99)} ms, exit ${mergeCode}; single process ${singleLevel.requests} requests, exit ${singleCode}`,
    );
  }

  it('Node-runtime runners, one segment each, merge into the pooled counts, percentiles and verdict', async () => {
    await check('node');
  }, 180_000);

  it.skipIf(!k6.bin)(
    'real k6 runners, one segment each, merge into the pooled counts, percentiles and verdict',
    async () => {
      await check('k6');
    },
    180_000,
  );
});

describe('runners behind an authenticating gateway, headers from the Secret', () => {
  const TOKEN = 'Bearer k8s-runner-token-5e1f';

  /** The manifests of a one-runner bench of mnist through `gateway`, with `settings` for its headers. */
  async function gatedManifests(gateway: string, settings: Record<string, string>): Promise<K8sObject[]> {
    const input = await k8sInput({
      model: 'mnist',
      settings: { ...SETTINGS, CONCURRENCY: '1', P99_MS: '60000', TRITON_URL: gateway, ...settings },
      parallelism: 1,
      runnerImage: 'grafana/k6:latest',
      toolImage: 'k6-triton:test',
      resources: { cpu: '1', memory: '1Gi' },
      resultsSize: '1Gi',
    });
    return parseAllDocuments(toYaml(benchManifests(input))).map((d) => d.toJS() as K8sObject);
  }

  for (const runtime of ['node', 'k6'] as const) {
    it.skipIf(runtime === 'k6' && !k6.bin)(
      `${runtime}: a runner sends the --headers-file token it reads from the Secret; without it the gateway refuses`,
      async () => {
        const server = await startEmbedded();
        // An authenticating gateway: 401 unless both headers are there.
        const wanted = { authorization: TOKEN, 'x-tenant': 'blue' };
        let refused = 0;
        let admittedPosts = 0;
        const gateway = await startForwardingProxy(server.url, {
          refuse: (req) => {
            if (Object.entries(wanted).some(([name, value]) => req.headers[name] !== value)) {
              refused++;
              return 401;
            }
            if (req.method === 'POST') admittedPosts++;
            return undefined;
          },
        });
        try {
          const dir = mkdtempSync(join(tmpdir(), `k6-triton-gated-${runtime}-`));
          const file = join(dir, 'auth.txt');
          writeFileSync(file, `Authorization: ${TOKEN}\nX-Tenant: blue\n`);
          const objects = await gatedManifests(gateway.url, { HEADERS_FILE: file });
          expect(JSON.stringify(objects.filter((o) => o.kind !== 'Secret'))).not.toContain(TOKEN);
          const runner = localRunner(objects, 1, materialize(objects, join(dir, 'cluster')));
          expect(await start(runtime, runner)).toMatchObject({ code: 0 });
          expect(refused).toBe(0);
          expect(admittedPosts).toBeGreaterThan(0);

          // The same bench without headers: the gateway refuses it, so the check above can fail.
          const bare = await gatedManifests(gateway.url, {});
          const bareRunner = localRunner(bare, 1, materialize(bare, join(dir, 'bare')));
          await expect(start(runtime, bareRunner)).rejects.toThrow(/exit/);
          expect(refused).toBeGreaterThan(0);
        } finally {
          await gateway.close();
          await server.stop();
        }
      },
      180_000,
    );
  }
});
