/**
 * Writes a file whole or not at all: into a temporary name in the same folder, flushed, then renamed over
 * the file. A full disk or a folder that refuses the file leaves no half file and no temporary one behind,
 * and the error names the file (not the temporary name) and the errno.
 */
import { closeSync, fdatasyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file that could not be written: which, the errno's code and text, and how far the write got. */
export class WriteError extends Error {
  constructor(
    readonly path: string,
    /** The errno's code (ENOSPC, EACCES, ...), or 'EIO' when the error carried none. */
    readonly code: string,
    /** The errno's text, as the C library says it ("no space left on device"). */
    readonly description: string,
    /** The system call that failed: mkdir and open before any byte, write, fsync or rename after. */
    readonly syscall: string,
    /** Bytes written before the failure. */
    readonly bytes: number,
  ) {
    super(`could not write ${path}: ${code} (${description})`);
    this.name = 'WriteError';
  }
}

let sequence = 0;

/** The temporary name of `path`: hidden, in the same folder (a rename never crosses filesystems). */
function temporaryName(path: string): string {
  sequence += 1;
  return join(dirname(path), `.${basename(path)}.${process.pid}-${sequence}.tmp`);
}

/** Node's system error as a WriteError naming `path`; its message reads "ENOSPC: no space left on device, write". */
function writeError(path: string, error: unknown, syscall: string, bytes: number): WriteError {
  const e = error as NodeJS.ErrnoException;
  const code = typeof e.code === 'string' ? e.code : 'EIO';
  const text = /^[A-Z0-9_]+: (.*?), \w+/.exec(e.message ?? '')?.[1] ?? e.message ?? String(error);
  return new WriteError(path, code, text, e.syscall ?? syscall, bytes);
}

/** Runs a clean-up whose own failure must not hide the error being reported. */
function bestEffort(cleanUp: () => void): void {
  try {
    cleanUp();
  } catch {
    // The temporary file stays; the write's error still names the file and the errno.
  }
}

/** Writes `data` to `path` whole (temporary name, flush, rename), creating its folder; throws a WriteError. */
export function writeWholeSync(path: string, data: string | Uint8Array): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw writeError(path, error, 'mkdir', 0);
  }
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const temporary = temporaryName(path);
  let fd: number | undefined;
  let written = 0;
  let step = 'open';
  try {
    fd = openSync(temporary, 'wx');
    step = 'write';
    while (written < bytes.byteLength) written += writeSync(fd, bytes, written);
    // A disk that accepted the bytes into its cache may still refuse them here (delayed allocation, NFS).
    step = 'fsync';
    fdatasyncSync(fd);
    closeSync(fd);
    fd = undefined;
    step = 'rename';
    renameSync(temporary, path);
  } catch (error) {
    // Best effort: the write's own error is the one to report.
    const open = fd;
    if (open !== undefined) bestEffort(() => closeSync(open));
    if (step !== 'open') bestEffort(() => unlinkSync(temporary));
    throw writeError(path, error, step, written);
  }
}
