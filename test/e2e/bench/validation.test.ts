/**
 * What a bench validates: each VU's first WARMUP_CHECKS warm-up responses, then one in VALIDATE_EVERY
 * measured ones. With --validate-every 0 the run's check count is exactly VUs × WARMUP_CHECKS, under the
 * Node runtime and, when present, real k6; report.md says so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WARMUP_CHECKS } from '../../../scenarios/kit/run-plan.ts';
import { findK6 } from '../agreement/harness.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

const { bin: K6 } = findK6();
const RUNTIMES = K6 ? ['node', 'k6'] : ['node'];
const VUS = 2;

describe('validation', () => {
  it.each(RUNTIMES)(
    "checks each VU's first warm-up responses and no measured one with --validate-every 0 (%s)",
    { timeout: 120_000 },
    async (runtime) => {
      const results = resultsDir();
      const run = await runCli(
        [
          'bench',
          'mnist',
          ...QUICK,
          // Two seconds of warm-up give each VU far more than WARMUP_CHECKS requests on the embedded MNIST.
          ...['--warmup', '2s', '--step-duration', '1s', '--concurrency', String(VUS)],
          ...['--validate-every', '0', '--runtime', runtime, '--results-dir', results],
        ],
        { P95_MS: '60000', P99_MS: '60000', ...(K6 ? { K6_BIN: K6 } : {}) },
      );
      expect(run.code, run.stderr).toBe(0);
      const dir = runFolder(results, 'mnist');
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      const checks = summary.k6.root_group.checks as { name: string; fails: number; passes: number }[];
      const outputs = checks.find((c) => c.name === 'outputs match the model');
      expect(outputs).toMatchObject({ fails: 0, passes: VUS * WARMUP_CHECKS });
      expect(summary.report.results[0].requests).toBeGreaterThan(0);
      // Per level: no measured response's outputs checked, none invalid (warm-up checks are not the level's).
      expect(summary.report.results[0]).toMatchObject({ responses_checked: 0, responses_invalid: 0 });
      const report = readFileSync(join(dir, 'report.md'), 'utf8');
      expect(report).toContain(
        `Validation: every response's status and content type; the outputs (names, shapes, datatypes) of each VU's first ${WARMUP_CHECKS} warm-up responses and of no measured response.`,
      );
      expect(report).toMatch(/- c2: [\d,]+ responses, outputs of 0 checked, 0 invalid/);
    },
  );
});
