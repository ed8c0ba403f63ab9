/**
 * The result files a command could not write, kept for the end of its output: cli/execute.ts prints them
 * last, one line each, and exits 94 (EXIT.RESULTS_NOT_WRITTEN; precedence in exitAfterWrites), so a full
 * disk is neither lost in the middle of a long run's output nor hidden behind a verdict.
 */
import { WriteError, writeWholeSync } from '@k6-triton/runtime';

const lines: string[] = [];

/**
 * Records that `path` was not written, with why: a sentence, or the error that stopped it (its first
 * line); returns the line recorded.
 */
export function noteNotWritten(path: string, why: string | Error): string {
  const line =
    why instanceof WriteError
      ? why.message
      : `could not write ${path}: ${typeof why === 'string' ? why : (why.message.split('\n')[0] ?? why.name)}`;
  lines.push(line);
  return line;
}

/**
 * Writes a result file whole (packages/runtime/src/write-whole.ts), `data` or what `render` returns; a write or a
 * renderer that fails leaves the file unwritten and recorded. Returns undefined when written, else the line.
 */
export async function writeResult(
  path: string,
  data: string | Uint8Array | (() => string | Uint8Array | Promise<string | Uint8Array>),
): Promise<string | undefined> {
  try {
    writeWholeSync(path, typeof data === 'function' ? await data() : data);
    return undefined;
  } catch (error) {
    return noteNotWritten(path, error as Error);
  }
}

/** The lines recorded so far (each "could not write <file>: <why>"), emptied. */
export function takeNotWritten(): string[] {
  return lines.splice(0);
}
