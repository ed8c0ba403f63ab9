/**
 * Calls into the script outside iterations: setup and teardown (with their timeouts) and
 * handleSummary, whose returned map goes to stdout, stderr or files as in k6.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { VU } from './vu.ts';
import { runInVu } from './vu-context.ts';

/** Thrown when setup or teardown outlive their timeout (k6 exit codes 100 and 101). */
export class LifecycleTimeoutError extends Error {}

/** Calls the VU's exported `name` with `arg`, awaiting a promise, bounded by `timeout_ms`. */
export async function callExport(vu: VU, name: string, arg: unknown, timeout_ms: number): Promise<unknown> {
  const fn = vu.exports[name] as (a: unknown) => unknown;
  let timer: NodeJS.Timeout | undefined;
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
  }
}

/** Where handleSummary output goes. */
export interface SummaryWriters {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Writes handleSummary's map: 'stdout', 'stderr' or a file path (relative to the working directory). */
export function writeSummaryOutputs(result: unknown, w: SummaryWriters): void {
  if (result === undefined || result === null) return;
  if (typeof result !== 'object')
    throw new Error('handleSummary() must return an object {stdout|stderr|path: content}');
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
      const path = resolve(key);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
  }
}
