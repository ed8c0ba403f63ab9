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
    /** The system call that failed: open before any byte, write, fdatasync or rename after. */
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

/** Runs a step whose own failure is not the error to report (a clean-up, or a folder the open then needs). */
function bestEffort(step: () => void): void {
  try {
    step();
  } catch {
    // The write's own error names the file and the errno.
  }
}

/** Writes `data` to `path` whole (temporary name, flush, rename), creating its folder; throws a WriteError. */
export function writeWholeSync(path: string, data: string | Uint8Array): void {
  // A folder that cannot be made shows in the open below, which names the file (as k6's own error does).
  bestEffort(() => mkdirSync(dirname(path), { recursive: true }));
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
    step = 'fdatasync';
    fdatasyncSync(fd);
    closeSync(fd);
    fd = undefined;
    step = 'rename';
    renameSync(temporary, path);
  } catch (error) {
    const open = fd;
    if (open !== undefined) bestEffort(() => closeSync(open));
    if (step !== 'open') bestEffort(() => unlinkSync(temporary));
    throw writeError(path, error, step, written);
  }
}
