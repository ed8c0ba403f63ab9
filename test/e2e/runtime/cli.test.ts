/** `k6-triton run` as a process: k6's flags override the script's options; exports and outputs are written. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptPath } from '../../../packages/runtime/test/run-script.ts';
import { logText } from '../../../packages/runtime/test/logfmt.ts';

const bin = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'k6t-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const opts = { timeout: 60_000, env: { ...process.env, ...env } };
    execFile(process.execPath, [bin, 'run', ...args], opts, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('k6-triton run', () => {
  it('applies -u, -i and -e over the script options and writes --summary-export and --out csv', async () => {
    const exp = join(dir, 'export.json');
    const csv = join(dir, 'points.csv');
    const r = await run([
      '-u',
      '2',
      '-i',
      '5',
      '-e',
      'WHO=cli',
      '--summary-export',
      exp,
      '-o',
      `csv=${csv}`,
      scriptPath('cli-flags.js'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('* default: 5 iterations shared among 2 VUs');
    expect(r.stdout).toContain('✓ env from -e');
    const data = JSON.parse(readFileSync(exp, 'utf8'));
    expect(data.metrics.iterations.count).toBe(5);
    expect(data.metrics.vus_max.value).toBe(2);
    expect(data.root_group.checks['env from -e']).toMatchObject({ passes: 5, fails: 0 });
    expect(
      readFileSync(csv, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('iterations,')),
    ).toHaveLength(5);
  });

  it('rejects an unknown output with a one-line error and exit code 104', async () => {
    const r = await run(['-q', '-o', 'influxdb=http://x', scriptPath('cli-flags.js')]);
    expect(r.code).toBe(104);
    expect(logText(r.stderr)).toContain(
      'k6 API output "influxdb" is not supported by the Node runtime; run with k6',
    );
  });

  it('reads K6_ITERATIONS like -i and skips thresholds with --no-thresholds', async () => {
    const exp = join(dir, 'env-export.json');
    const r = await run(
      ['-q', '--no-thresholds', '--summary-export', exp, scriptPath('thresholds-fail.js')],
      {
        K6_ITERATIONS: '3',
      },
    );
    expect(r.code).toBe(0);
    const data = JSON.parse(readFileSync(exp, 'utf8'));
    expect(data.metrics.iterations.count).toBe(3);
    expect(data.metrics.waiting_time.thresholds).toBeUndefined();
  });

  it('reads K6_NO_THRESHOLDS as k6 does: true skips thresholds, false keeps them, anything else exits 255', async () => {
    const script = scriptPath('thresholds-fail.js');
    const asked = await run(['-q', '-i', '1', script], { K6_NO_THRESHOLDS: 'true' });
    const kept = await run(['-q', '-i', '1', script], { K6_NO_THRESHOLDS: 'false' });
    const bad = await run(['-q', '-i', '1', script], { K6_NO_THRESHOLDS: 'maybe' });
    expect([asked.code, kept.code, bad.code], `${asked.stderr}${kept.stderr}${bad.stderr}`).toEqual([
      0, 99, 255,
    ]);
    expect(bad.stderr).toContain(
      `env var 'K6_NO_THRESHOLDS' is not a valid boolean value: strconv.ParseBool: parsing "maybe": invalid syntax`,
    );
  });
});
