/**
 * `k6-triton inspect` against real k6's `inspect`: the same bytes, with and without
 * `--execution-requirements`, for scripts using the shortcuts (vus and iterations, stages) and scenarios of
 * several executors (durations in Go's form, every executor field, total duration and max VUs).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findK6 } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const { bin: K6, looked } = findK6();
if (!K6) console.log(`inspect agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

const SCRIPTS: Record<string, string> = {
  'shortcuts.js': "export const options = { vus: 2, iterations: 5, setupTimeout: '90s' };",
  'stages.js':
    "export const options = { stages: [{ duration: '1m', target: 5 }, { duration: 30, target: 0 }], thresholds: { http_req_duration: ['p(95)<500'] } };",
  'scenarios.js': `export const options = { scenarios: {
  a: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '2m', preAllocatedVUs: 4, maxVUs: 8, startTime: '10s' },
  b: { executor: 'per-vu-iterations', vus: 3, iterations: 2, exec: 'other', tags: { k: 'v' }, env: { X: '1' } },
  c: { executor: 'ramping-arrival-rate', startRate: 1, stages: [{ target: 5, duration: '30s' }], preAllocatedVUs: 2 },
  d: { executor: 'constant-vus', vus: 2, duration: '45s', gracefulStop: '5s' },
} };
export function other() {}`,
};

function exec(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: ROOT, timeout: 45_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!K6)('inspect agrees with real k6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-inspect-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, options] of Object.entries(SCRIPTS)) {
    it(`prints the same options for ${name}, with and without --execution-requirements`, async () => {
      const path = join(dir, name);
      writeFileSync(path, `${options}\nexport default function () {}\n`);
      for (const extra of [[], ['--execution-requirements']]) {
        const [k, n] = await Promise.all([
          exec(K6 ?? '', ['inspect', ...extra, path]),
          exec(process.execPath, [join(ROOT, 'bin/k6-triton.js'), 'inspect', ...extra, path]),
        ]);
        expect(k.code, k.stderr).toBe(0);
        expect(n.code, n.stderr).toBe(0);
        expect(n.stdout, extra.join(' ')).toBe(k.stdout);
      }
    }, 60_000);
  }
});
