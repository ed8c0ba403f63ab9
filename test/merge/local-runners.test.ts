/**
 * Two Node-runtime runner processes against one embedded server (127.0.0.1), each writing `--out json`,
 * then `merge`: the merged request counts equal the sum of the runners' samples, the merged p95/p99 equal
 * the pooled samples' (nearest rank, within the histogram's 0.1%), and the verdict is the pooled one.
 * Without execution segments in the Node runtime each runner runs the whole plan, so the server sees the
 * load twice; the merge arithmetic is what is under test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScenarios } from '../../build.ts';
import { type EmbeddedServer, startEmbedded } from '../../cli/bench/embedded.ts';
import { runMerge } from '../../cli/merge/run.ts';
import { ensurePayloads } from '../../payloads/index.ts';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bin/k6-triton.js');
const LEVELS = ['c1', 'c2'];
const ENV = { CONCURRENCY: '1,2', STEP_DURATION: '1s', WARMUP_DURATION: '0s' };

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 || code === 99 ? resolve(code) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

/** Durations (ms) per level from one runner's NDJSON. */
function durations(path: string): Record<string, number[]> {
  const out: Record<string, number[]> = Object.fromEntries(LEVELS.map((l) => [l, []]));
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (!text.includes('"http_req_duration"')) continue;
    const line = JSON.parse(text);
    const scenario = line.data?.tags?.scenario;
    if (line.type === 'Point' && scenario in out) out[scenario]!.push(line.data.value);
  }
  return out;
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

describe('merge of local runners', () => {
  let server: EmbeddedServer;
  beforeAll(async () => {
    server = await startEmbedded();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('two Node-runtime runners merge into the pooled counts, percentiles and verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-triton-runners-'));
    const [bundle] = await buildScenarios([join(ROOT, 'scenarios/mnist.ts')]);
    const set = await ensurePayloads({ model: 'mnist', count: 2 });
    const files = [0, 1].map((i) => join(dir, `runner-${i}.json`));
    const env = {
      ...ENV,
      TRITON_URL: server.url,
      TRITON_GRPC_URL: server.grpcUrl,
      PAYLOAD: set.manifestPath,
    };
    const envArgs = Object.entries({ ...env, THRESHOLDS: join(ROOT, 'thresholds/mnist.json') }).flatMap(
      ([k, v]) => ['-e', `${k}=${v}`],
    );
    await Promise.all(
      files.map((file) => run(['run', '--quiet', bundle!, ...envArgs, '--out', `json=${file}`])),
    );

    const outcome = await runMerge({ model: 'mnist', files, env, dir: join(dir, 'merged') });
    const perRunner = files.map(durations);
    expect(outcome.report.results.map((r) => r.name)).toEqual(LEVELS);
    for (const level of outcome.report.results) {
      const pooled = perRunner.flatMap((d) => d[level.name]!);
      expect(perRunner.every((d) => d[level.name]!.length > 0)).toBe(true);
      expect(level.requests).toBe(pooled.length);
      for (const p of [95, 99] as const) {
        const expected_us = nearestRank(pooled, p) * 1000;
        expect(Math.abs(level.latency_us[`p${p}`] - expected_us) / expected_us).toBeLessThanOrEqual(1e-3);
      }
      // The verdict on the pool: mnist's budget is p95 < 20 ms and p99 < 50 ms (errors are 0 here).
      const poolOk = nearestRank(pooled, 95) < 20 && nearestRank(pooled, 99) < 50 && level.errors === 0;
      expect(level.budgets.every((b) => b.ok)).toBe(poolOk);
    }
  });
});
