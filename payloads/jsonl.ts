/**
 * JSON-lines dataset files (prompt datasets, conversation datasets): one object a line, blank lines skipped,
 * and every error one line naming the file, the line and the fix.
 */

/** A line's one-line error for `why`. */
export type LineFail = (why: string) => Error;

/**
 * Calls `visit` with each non-blank line's object and that line's `fail` (`<file> line <n>: <why>; <fix>`); a
 * line that is not JSON, or not an object, fails with the same words in every dataset.
 */
export function eachJsonLine(
  text: string,
  file: string,
  fix: string,
  visit: (row: Record<string, unknown>, fail: LineFail) => void,
): void {
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const fail: LineFail = (why) => new Error(`${file} line ${i + 1}: ${why}; ${fix}`);
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch {
      throw fail('not JSON');
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw fail('not a JSON object');
    visit(row as Record<string, unknown>, fail);
  });
}
