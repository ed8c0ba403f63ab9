/**
 * handleSummary's files and --summary-export on a real full disk (a 4 KB tmpfs): each written whole or not
 * at all, one error line in k6's words for those not written, the others still written, the exit code the
 * run's (as k6's: a summary file not written does not change it).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs, tmpfsRefused } from '../../../test/tmpfs.ts';
import { runScript } from './run-script.ts';
import { logEntries } from './logfmt.ts';

describe.skipIf(tmpfsRefused)('summary files on a full disk', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = mountTmpfs('size=4k');
  });
  afterAll(() => disk?.unmount());

  it("writes what fits, leaves no half file and logs k6's error for the rest", async () => {
    const big = join(disk.dir, 'k6-summary.json');
    const small = join(disk.dir, 'levels.json');
    const notADir = join(disk.dir, 'a-file');
    writeFileSync(notADir, '');
    const exported = join(notADir, 'export.json');
    const r = await runScript('handle-summary-files.js', {
      env: { BIG_FILE: big, SMALL_FILE: small },
      summaryExport: exported,
    });
    expect(r.exitCode).toBe(0);
    // handleSummary ran: its stdout, not the default summary.
    expect(r.stdout).toBe('summary on stdout\n');
    const errors = logEntries(r.log).filter((e) => e.level === 'error');
    expect(errors.map((e) => e.msg)).toEqual(['failed to handle the end-of-test summary']);
    const error = errors[0]!.fields['error']!;
    expect(error).toBe(
      [
        'Could not save some summary information:',
        `\t- error saving summary to '${big}' after 4096 bytes: write ${big}: no space left on device`,
        `\t- could not open '${exported}': open ${exported}: not a directory`,
      ].join('\n'),
    );
    expect(existsSync(big)).toBe(false);
    expect(JSON.parse(readFileSync(small, 'utf8'))).toEqual({ ok: true });
    expect(readdirSync(disk.dir).sort()).toEqual(['a-file', 'levels.json']);
  });
});
