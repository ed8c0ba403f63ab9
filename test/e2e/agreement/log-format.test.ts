/**
 * k6's log lines into a pipe, under real k6 and the Node runtime: logrus's logfmt (`time="..." level=info
 * msg="..." source=console`) with Go's quoting, byte for byte but for the time. With --no-color, as the harness
 * runs both; without a terminal k6 writes the same.
 */
import { describe, expect, it } from 'vitest';
import { findK6, runBoth } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`log format agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** The log lines of a run, the time field dropped (the runs are seconds apart). */
const lines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('time='))
    .map((l) => l.replace(/^time="[^"]+" /, ''));

describe.skipIf(!K6)('log lines: agreement with real k6', () => {
  it('console lines are the same logfmt lines, quoting and all', async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'log-lines.js');
    expect([k.code, n.code]).toEqual([0, 0]);
    const expected = lines(k.stderr);
    expect(expected).toHaveLength(6);
    expect(lines(n.stderr)).toEqual(expected);
  });
});
