/**
 * Calls into the script outside iterations: setup and teardown (with their timeouts) and
 * handleSummary, whose returned map goes to stdout, stderr or files as in k6.
 */
import { Group } from './groups.ts';
import type { VU } from './vu.ts';
import { runInVu } from './vu-context.ts';
import { WriteError, writeWholeSync } from './write-whole.ts';

/** Thrown when setup or teardown outlive their timeout (k6 exit codes 100 and 101). */
export class LifecycleTimeoutError extends Error {}

/** Calls the VU's exported `name` with `arg`, awaiting a promise, bounded by `timeout_ms`. */
export async function callExport(vu: VU, name: string, arg: unknown, timeout_ms: number): Promise<unknown> {
  const fn = vu.exports[name] as (a: unknown) => unknown;
  let timer: NodeJS.Timeout | undefined;
  // k6 runs setup() and teardown() in groups of those names: their checks sit under ::setup and
  // ::teardown. The group joins the tree only once used, as k6's summary shows it.
  const root = vu.run.rootGroup;
  const group = name === 'setup' || name === 'teardown' ? new Group(name, `::${name}`, root) : null;
  if (group) vu.setGroup(group);
  const work = (async () => {
    const r = runInVu(vu, () => fn(arg));
    const v = await r;
    // A bare sleep() in setup/teardown still takes its time, as in k6.
    if (vu.sleepUntil_ms > performance.now()) await vu.waitUntil(vu.sleepUntil_ms);
    return v;
  })();
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new LifecycleTimeoutError(`${name}() execution timed out after ${timeout_ms / 1000} seconds`),
            ),
          timeout_ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    vu.sleepUntil_ms = 0;
    if (group) {
      if ((group.checks.size > 0 || group.groups.size > 0) && !root.groups.has(name))
        root.groups.set(name, group);
      vu.setGroup(root);
    }
  }
}

/**
 * setup()'s data as k6 hands it on, through Go's JSON: undefined members become null and a Date
 * becomes RFC 3339 in UTC with its zero fraction trimmed (`1970-01-01T00:00:00Z`).
 */
export function setupDataJson(data: unknown): string | undefined {
  if (data === undefined) return undefined;
  return JSON.stringify(data, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    if (raw instanceof Date)
      return raw.toISOString().replace(/\.(\d*?)0*Z$/, (_m, d: string) => (d ? `.${d}Z` : 'Z'));
    return value === undefined ? null : value;
  });
}

/** Where handleSummary output goes. */
export interface SummaryWriters {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/**
 * k6's words for one summary file not written ("could not open '<path>': open <path>: not a directory",
 * "error saving summary to '<path>' after 0 bytes: write <path>: no space left on device").
 */
export function summaryFileError(error: WriteError): string {
  const go = `${error.syscall} ${error.path}: ${error.description}`;
  return error.syscall === 'open'
    ? `could not open '${error.path}': ${go}`
    : `error saving summary to '${error.path}' after ${error.bytes} bytes: ${go}`;
}

/** k6's one error for the summary files not written, each on its own line under its heading. */
export function summaryFilesMessage(failures: readonly string[]): string {
  return `Could not save some summary information:${failures.map((f) => `\n\t- ${f}`).join('')}`;
}

/**
 * Writes a summary file whole (write-whole.ts): where k6 leaves a file cut at the disk's end, this leaves
 * none. Returns k6's words for the failure, or undefined when written.
 */
export function writeSummaryFile(path: string, content: string | Uint8Array): string | undefined {
  try {
    writeWholeSync(path, content);
    return undefined;
  } catch (error) {
    if (error instanceof WriteError) return summaryFileError(error);
    throw error;
  }
}

/**
 * Writes handleSummary's map: 'stdout', 'stderr' or a file path (relative to the working directory). As k6,
 * a file that cannot be written does not stop the others; returns the failures in k6's words.
 */
export function writeSummaryOutputs(result: unknown, w: SummaryWriters): string[] {
  if (result === undefined || result === null) return [];
  if (typeof result !== 'object')
    throw new Error('handleSummary() must return an object {stdout|stderr|path: content}');
  const failures: string[] = [];
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    const content =
      typeof value === 'string'
        ? value
        : value instanceof ArrayBuffer
          ? Buffer.from(value)
          : ArrayBuffer.isView(value)
            ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
            : String(value);
    if (key === 'stdout') w.stdout(content.toString());
    else if (key === 'stderr') w.stderr(content.toString());
    else {
      const failure = writeSummaryFile(key, content);
      if (failure) failures.push(failure);
    }
  }
  return failures;
}
