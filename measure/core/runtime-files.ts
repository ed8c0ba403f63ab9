/**
 * The two files the runtime's handleSummary writes into a run's folder (k6-summary.json, levels.json),
 * read back by the command. A file cut short (real k6 writes in place; it is removed) or missing after a
 * run that wrote its summary is a result not written: recorded for the end of the output
 * (report/not-written.ts), never a JSON parse error, and the command goes on writing what it can.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { noteNotWritten } from '../../report/not-written.ts';
import { EXIT } from './exit-codes.ts';

/** What a runtime file held: its JSON, or why there is none. */
type Read<T> = { value: T } | { missing: true } | { cut: number };

function readWhole<T>(path: string): Read<T> {
  if (!existsSync(path)) return { missing: true };
  const text = readFileSync(path, 'utf8');
  try {
    return { value: JSON.parse(text) as T };
  } catch {
    return { cut: Buffer.byteLength(text) };
  }
}

/** k6's exit codes of a run that went to its end (passed, or a threshold crossed): its summary was written. */
export const WHOLE_RUN_EXITS: ReadonlySet<number> = new Set([EXIT.OK, EXIT.THRESHOLDS_FAILED]);

/**
 * Reads the runtime's summary and levels files after a run that exited `exitCode`. A missing file counts
 * as not written when the run went to its end or wrote the other file (its handleSummary ran); a run that
 * ended before handleSummary (a script error) leaves both missing, which its own error explains.
 */
export function readRuntimeFiles<L>(
  paths: { summary: string; levels: string },
  exitCode: number,
): { summary?: unknown; levels?: L; levelsLost: boolean } {
  const summary = readWhole<unknown>(paths.summary);
  const levels = readWhole<L>(paths.levels);
  const ran = WHOLE_RUN_EXITS.has(exitCode) || !('missing' in summary) || !('missing' in levels);
  const lost = (path: string, read: Read<unknown>): boolean => {
    if ('cut' in read) {
      // Real k6 writes in place: what it left is not JSON, and the folder keeps only whole files.
      rmSync(path, { force: true });
      noteNotWritten(
        path,
        `the runtime wrote ${read.cut} bytes of it, not whole JSON; removed (its error above says why)`,
      );
    } else if ('missing' in read && ran)
      noteNotWritten(path, 'the runtime did not write it (its error above says why)');
    else return false;
    return true;
  };
  lost(paths.summary, summary);
  const levelsLost = lost(paths.levels, levels);
  return {
    ...('value' in summary ? { summary: summary.value } : {}),
    ...('value' in levels ? { levels: levels.value } : {}),
    levelsLost,
  };
}
