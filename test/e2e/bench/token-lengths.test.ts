/**
 * Token lengths as the help offers them (`n | mean,stddev | min:max`) for every way a generative run is
 * started: `bench repeat --output-tokens 100,10`, and the scenario itself under `k6 run -e OUTPUT_TOKENS=100,10`
 * (real k6 when present, and the Node runtime's `k6-triton run`). A varying length gives requests with lengths
 * drawn from it: the requested output lengths differ, each within reach of the mean, and every stream brings
 * back exactly the tokens it asked for.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { bundleScenario } from '../../../measure/core/bundle.ts';
import { packagePath } from '../../../measure/core/paths.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import type { RunningServer } from '@k6-triton/server';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = referenceTool('k6', 'K6_BIN');

/** The level's requested output lengths vary around 100 (N(100, 10), seeded), and each came back whole. */
function checkDrawn(level: LevelResult): void {
  const g = level.genai!;
  const requested = g.requested_osl!;
  expect(level.requests).toBeGreaterThan(0);
  expect(requested.min).toBeLessThan(requested.max);
  expect(requested.min).toBeGreaterThanOrEqual(50);
  expect(requested.max).toBeLessThanOrEqual(150);
  expect(g.osl_mismatches).toBe(0);
}

describe('token lengths mean,stddev', () => {
  it('bench repeat --output-tokens 100,10 sends requests of drawn lengths', async () => {
    const results = resultsDir();
    const run = await runCli([
      ...['bench', 'repeat', '--runtime', 'node', '--concurrency', '2', '--output-tokens', '100,10'],
      ...['--step-duration', '2s', '--warmup', '1s', '--results-dir', results],
    ]);
    expect(run.stderr).not.toMatch(/invalid OUTPUT_TOKENS/);
    expect(run.code, run.stderr).toBe(EXIT.OK);
    const summary = JSON.parse(readFileSync(join(runFolder(results, 'repeat'), 'summary.json'), 'utf8'));
    checkDrawn(summary.report.results[0]);
  }, 120_000);

  it('bench refuses a malformed length with one line naming the setting and its forms (exit 1)', async () => {
    const run = await runCli(['bench', 'repeat', '--runtime', 'node', '--output-tokens', '100,x']);
    expect(run.code).toBe(EXIT.FAILED);
    expect(run.stderr).toContain(
      'invalid OUTPUT_TOKENS="100,x"; expected a length (200), mean,stddev (200,20) or a range min:max (100:300)',
    );
  });

  describe('k6 run scenarios/llm.ts -e OUTPUT_TOKENS=100,10', () => {
    let server: RunningServer;
    let bundle: string;
    beforeAll(async () => {
      server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1 });
      bundle = await bundleScenario(packagePath('scenarios', 'llm.ts'));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    /** Runs the bundle (asynchronously: the server answers from this process). */
    async function runScenario(program: string, args: string[]): Promise<LevelResult> {
      const out = resultsDir();
      const levels = join(out, 'levels.json');
      const env = {
        MODEL: 'repeat',
        TRITON_URL: `http://127.0.0.1:${server.httpPort}`,
        TRITON_GRPC_URL: `127.0.0.1:${server.grpcPort}`,
        OUTPUT_TOKENS: '100,10',
        CONCURRENCY: '2',
        STEP_DURATION: '2s',
        WARMUP_DURATION: '1s',
        LEVELS_JSON: levels,
        SUMMARY_JSON: join(out, 'summary.json'),
      };
      const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const child = spawn(program, [...args, 'run', '--quiet', ...flags, bundle], {
        env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const status = await new Promise<number | null>((done) => child.on('close', done));
      expect(stderr).not.toMatch(/invalid OUTPUT_TOKENS/);
      expect([EXIT.OK, EXIT.THRESHOLDS_FAILED], stderr).toContain(status);
      const [level] = JSON.parse(readFileSync(levels, 'utf8')) as LevelResult[];
      return level!;
    }

    it('under the Node runtime (k6-triton run)', async () => {
      checkDrawn(await runScenario(process.execPath, [packagePath('bin', 'k6-triton.js')]));
    }, 120_000);

    it.skipIf(!k6.path)(
      `under real k6 (${k6.skipReason || k6.path})`,
      async () => {
        checkDrawn(await runScenario(k6.path!, []));
      },
      120_000,
    );
  });
});
