// handleSummary writing BIG_FILE (10,000 bytes, for a full disk) and UNDER_A_FILE (a path whose folder is a file).
export const options = { iterations: 1 };
export default function () {}
export function handleSummary() {
  return { stdout: 'summary on stdout\n', [__ENV.BIG_FILE]: 'x'.repeat(10000), [__ENV.UNDER_A_FILE]: '{}' };
}
