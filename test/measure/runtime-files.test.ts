/**
 * The runtime's k6-summary.json and levels.json read back after a run: a file cut short (real k6 on a full
 * disk) or missing after a run that wrote its summary is named as not written, never a JSON parse error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRuntimeFiles } from '../../measure/core/runtime-files.ts';
import { takeNotWritten } from '../../report/not-written.ts';
import { EXIT } from '../../measure/core/exit-codes.ts';
import { tempDirs } from '../temp-dirs.ts';

describe('readRuntimeFiles', () => {
  const newDir = tempDirs('k6t-runtime-files-');
  afterEach(() => takeNotWritten());
  const files = (dir: string) => ({
    summary: join(dir, 'k6-summary.json'),
    levels: join(dir, 'levels.json'),
  });

  it('reads both files whole', () => {
    const paths = files(newDir());
    writeFileSync(paths.summary, '{"metrics":{}}');
    writeFileSync(paths.levels, '[{"name":"c1"}]');
    expect(readRuntimeFiles(paths, EXIT.OK)).toEqual({
      summary: { metrics: {} },
      levels: [{ name: 'c1' }],
      levelsLost: false,
    });
    expect(takeNotWritten()).toEqual([]);
  });

  it('names a file cut at the disk end and removes it; the other file is still read', () => {
    takeNotWritten();
    const paths = files(newDir());
    writeFileSync(paths.summary, '{"metrics":{"http_reqs":{"ty');
    writeFileSync(paths.levels, '[]');
    expect(readRuntimeFiles(paths, EXIT.OK)).toEqual({ levels: [], levelsLost: false });
    expect(takeNotWritten()).toEqual([
      `could not write ${paths.summary}: the runtime wrote 28 bytes of it, not whole JSON; removed (its error above says why)`,
    ]);
    expect(existsSync(paths.summary)).toBe(false);
  });

  it('names a file missing after a run that went to its end', () => {
    takeNotWritten();
    const paths = files(newDir());
    writeFileSync(paths.summary, '{"metrics":{}}');
    expect(readRuntimeFiles(paths, EXIT.THRESHOLDS_FAILED)).toEqual({
      summary: { metrics: {} },
      levelsLost: true,
    });
    expect(takeNotWritten()).toEqual([
      `could not write ${paths.levels}: the runtime did not write it (its error above says why)`,
    ]);
  });

  it('says nothing of files a run that ended before its summary never wrote', () => {
    takeNotWritten();
    const paths = files(newDir());
    expect(readRuntimeFiles(paths, EXIT.SCRIPT_EXCEPTION)).toEqual({ levelsLost: false });
    expect(takeNotWritten()).toEqual([]);
  });
});
