/**
 * packages/runtime/src/write-whole.ts on real small filesystems (tmpfs): a file is written whole or not at all, the
 * error names the file and the errno, and nothing (no temporary file, no half file) is left behind.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteError, writeWholeSync } from '../src/write-whole.ts';
import { mountTmpfs, type Tmpfs, tmpfsRefused } from '../../../test/tmpfs.ts';

/** The error writeWholeSync threw, or a failure when it did not throw one. */
function thrown(write: () => void): WriteError {
  try {
    write();
  } catch (error) {
    if (error instanceof WriteError) return error;
    throw error;
  }
  throw new Error('expected a WriteError');
}

describe('writeWholeSync', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'k6t-whole-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('writes the file and leaves only it', () => {
    const path = join(scratch, 'summary.json');
    writeWholeSync(path, '{"a":1}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n');
    expect(readdirSync(scratch)).toEqual(['summary.json']);
  });

  it('names the file and ENOTDIR when its folder is a file', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    const path = join(file, 'report.md');
    const error = thrown(() => writeWholeSync(path, 'text'));
    expect(error.message).toBe(`could not write ${path}: ENOTDIR (not a directory)`);
    expect(error).toMatchObject({ path, code: 'ENOTDIR', syscall: 'open', bytes: 0 });
  });
});

describe.skipIf(tmpfsRefused)('writeWholeSync on a 4 KB tmpfs', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = mountTmpfs('size=4k');
  });
  afterAll(() => disk?.unmount());

  it('throws ENOSPC naming the file, and leaves no temporary or half file', () => {
    const path = join(disk.dir, 'k6-summary.json');
    const error = thrown(() => writeWholeSync(path, 'x'.repeat(10_000)));
    expect(error.message).toBe(`could not write ${path}: ENOSPC (no space left on device)`);
    expect(error).toMatchObject({ code: 'ENOSPC', syscall: 'write', bytes: 4096 });
    expect(readdirSync(disk.dir)).toEqual([]);
  });

  it('keeps the previous version of a file it could not replace', () => {
    const path = join(disk.dir, 'summary.json');
    writeWholeSync(path, '{"levels":["c1"]}\n');
    expect(thrown(() => writeWholeSync(path, 'y'.repeat(10_000))).code).toBe('ENOSPC');
    expect(readFileSync(path, 'utf8')).toBe('{"levels":["c1"]}\n');
    expect(readdirSync(disk.dir)).toEqual(['summary.json']);
  });
});

describe.skipIf(tmpfsRefused)('writeWholeSync on a read-only tmpfs', () => {
  let disk: Tmpfs;
  beforeAll(() => {
    disk = mountTmpfs('size=4k,ro');
  });
  afterAll(() => disk?.unmount());

  it('throws EROFS naming the file, before any byte', () => {
    const path = join(disk.dir, 'report.html');
    const error = thrown(() => writeWholeSync(path, '<html></html>'));
    expect(error.message).toBe(`could not write ${path}: EROFS (read-only file system)`);
    expect(error).toMatchObject({ code: 'EROFS', syscall: 'open', bytes: 0 });
    expect(readdirSync(disk.dir)).toEqual([]);
  });
});
