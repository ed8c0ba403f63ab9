// handleSummary with two files (BIG_FILE: 10,000 bytes, SMALL_FILE: a little JSON) and stdout, for a full disk.
export const options = { iterations: 1 };
export default function () {}
export function handleSummary() {
  return {
    stdout: 'summary on stdout\n',
    [__ENV.BIG_FILE]: 'x'.repeat(10000),
    [__ENV.SMALL_FILE]: '{"ok":true}',
  };
}
