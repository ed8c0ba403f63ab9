/**
 * Summary files not written, under real k6 and the Node runtime: the same exit code (the run's: 0), the
 * same stdout, and the same error, in k6's words, for a file on a full disk (a 4 KB tmpfs) and for paths
 * whose folder is a file (a handleSummary file and --summary-export). Where k6 leaves the file cut at the
 * disk's end, the Node runtime leaves none.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs, tmpfsRefused } from '../../tmpfs.ts';
import { findK6, script } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const k6 = findK6();
const skip = !k6.bin ? `no k6 (looked at ${k6.looked.join(', ')})` : tmpfsRefused;
if (!k6.bin) console.warn(`skipped: summary files under k6: ${skip}`);

/** Runs `k6 run` (or `k6-triton run`) on the script with files in `dir`; the run's code, stdout and error text. */
function run(program: string[], dir: string): Promise<{ code: number; stdout: string; failures: string[] }> {
  const notADir = join(dir, 'a-file');
  writeFileSync(notADir, '');
  const env = {
    ...process.env,
    BIG_FILE: join(dir, 'k6-summary.json'),
    UNDER_A_FILE: join(notADir, 'levels.json'),
  };
  const args = [...program.slice(1), 'run', '-q', '--summary-export', join(notADir, 'export.json')];
  return new Promise((resolve) => {
    execFile(
      program[0]!,
      [...args, script('summary-files.js')],
      { cwd: ROOT, env },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
        // k6 logs the error as logfmt (error="..."), the Node runtime as its console line; the quoted text is the same.
        const quoted = /error=("(?:[^"\\]|\\.)*")/.exec(stderr)?.[1];
        const text = quoted ? (JSON.parse(quoted) as string) : '';
        // k6 lists the files in its map's (random) order: compared as a set.
        const failures = text
          .split('\n\t- ')
          .slice(1)
          .map((f) => f.replaceAll(dir, '<dir>'))
          .sort();
        resolve({ code, stdout, failures: [text.split('\n')[0]!, ...failures] });
      },
    );
  });
}

describe.skipIf(skip)('summary files not written: real k6 and the Node runtime', () => {
  let k6Disk: Tmpfs;
  let nodeDisk: Tmpfs;
  beforeAll(() => {
    k6Disk = mountTmpfs('size=4k');
    nodeDisk = mountTmpfs('size=4k');
  });
  afterAll(() => {
    k6Disk?.unmount();
    nodeDisk?.unmount();
  });

  it("give the same exit code, stdout and error; k6's cut file is none under the Node runtime", async () => {
    const real = await run([k6.bin!], k6Disk.dir);
    const node = await run([process.execPath, join(ROOT, 'bin/k6-triton.js')], nodeDisk.dir);
    expect(real.failures).toEqual([
      'Could not save some summary information:',
      "could not open '<dir>/a-file/export.json': open <dir>/a-file/export.json: not a directory",
      "could not open '<dir>/a-file/levels.json': open <dir>/a-file/levels.json: not a directory",
      "error saving summary to '<dir>/k6-summary.json' after 4096 bytes: write <dir>/k6-summary.json: no space left on device",
    ]);
    expect(node).toEqual(real);
    expect(statSync(join(k6Disk.dir, 'k6-summary.json')).size).toBe(4096);
    expect(existsSync(join(nodeDisk.dir, 'k6-summary.json'))).toBe(false);
  });
});
