/**
 * Running an archive: whether a test file is one (k6 looks at the content, or `--type`), and the archive
 * extracted to a temporary folder, ready for runTest (its main script, its options and environment).
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withoutNulls } from './metadata.ts';
import { extractTo, readArchive } from './tar-io.ts';

/** Whether the file at `path` is a tar (ustar magic at byte 257), which k6 takes for an archive. */
export function isArchiveFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const magic = Buffer.alloc(5);
    return readSync(fd, magic, 0, 5, 257) === 5 && magic.toString('latin1') === 'ustar';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** An archive ready to run: the extracted main script, the archive's options and environment. */
export interface OpenedArchive {
  script: string;
  /** The folder the archive's trees were extracted to (RunTestOptions.archive.dir). */
  dir: string;
  options: Record<string, unknown>;
  env: Record<string, string>;
  /** Removes the extracted folder. */
  close: () => void;
}

/** Reads and extracts the archive at `path`; the error names the file when it is not k6's archive. */
export async function openArchive(path: string): Promise<OpenedArchive> {
  let contents: Awaited<ReturnType<typeof readArchive>>;
  try {
    contents = await readArchive(path);
  } catch (err) {
    throw new Error(`could not load test archive bundle '${path}': ${(err as Error).message}`);
  }
  const type = contents.metadata['type'];
  if (type !== 'js') throw new Error(`archive '${path}' has an unsupported test type '${String(type)}'`);
  const dir = mkdtempSync(join(tmpdir(), 'k6t-archive-'));
  const script = extractTo(contents, dir);
  return {
    script,
    dir,
    options: (withoutNulls(contents.metadata['options'] ?? {}) as Record<string, unknown>) ?? {},
    env: (contents.metadata['env'] ?? {}) as Record<string, string>,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
