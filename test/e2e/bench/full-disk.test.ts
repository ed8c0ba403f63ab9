/**
 * `bench` with its results folder on a real small filesystem (tmpfs of 4, 12 and 48 KB): every size runs
 * out of space somewhere (the runtime's k6-summary.json or levels.json, or the bench's own files). The
 * bench exits 94 (EXIT.RESULTS_NOT_WRITTEN) with its last lines naming each file not written and the errno,
 * and leaves only whole files: no temporary names, no half JSON, the measured level in any summary.json.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { mountTmpfs, type Tmpfs, tmpfsRefused } from '../../tmpfs.ts';
import { runCli } from './run-cli.ts';

const SIZES = ['4k', '12k', '48k'];

/** Every file under `dir`, as paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe.skipIf(tmpfsRefused)('bench on a full disk', () => {
  const disks = new Map<string, Tmpfs>();
  beforeAll(() => {
    for (const size of SIZES) disks.set(size, mountTmpfs(`size=${size}`));
  });
  afterAll(() => {
    for (const disk of disks.values()) disk.unmount();
  });

  it.each(SIZES)(
    'a %s results folder: exit 94, the files not written named last, the rest whole',
    async (size) => {
      const { dir } = disks.get(size)!;
      const r = await runCli([
        'bench',
        'mnist',
        '--concurrency',
        '1',
        '--step-duration',
        '1s',
        '--warmup',
        '0.5s',
        '--count',
        '2',
        '--runtime',
        'node',
        '--no-progress',
        '--results-dir',
        dir,
      ]);
      const lines = r.stderr.trimEnd().split('\n');
      const notWritten = lines.filter((l) => l.startsWith('k6-triton: could not write '));
      expect(r.code, r.stderr).toBe(EXIT.RESULTS_NOT_WRITTEN);
      // Said at the end of the output, not lost in the middle of it.
      expect(notWritten.length).toBeGreaterThan(0);
      expect(lines.slice(-notWritten.length)).toEqual(notWritten);
      const folder = join(dir, 'mnist');
      const file = new RegExp(`^k6-triton: could not write ${folder}/[^/]+/[\\w.-]+: `);
      for (const line of notWritten) expect(line).toMatch(file);
      expect(notWritten.some((l) => l.endsWith(': ENOSPC (no space left on device)'))).toBe(true);
      expect(r.stderr).not.toMatch(/JSON|SyntaxError|^\s+at /m);
      for (const path of filesUnder(dir)) {
        expect(path).not.toMatch(/\.(tmp|partial)$/);
        expect(statSync(path).size, path).toBeGreaterThan(0);
        if (!path.endsWith('.json')) continue;
        const json = JSON.parse(readFileSync(path, 'utf8'));
        // A summary.json that was written holds the level measured.
        if (path.endsWith('/summary.json'))
          expect(json.report.results.map((l: { name: string }) => l.name)).toEqual(['c1']);
      }
    },
  );
});
