/** build.ts prunes earlier runtime builds: a day old and not among the newest three. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pruneBuilds } from '../../build.ts';

describe('pruneBuilds', () => {
  const root = mkdtempSync(join(tmpdir(), 'k6t-builds-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('removes day-old builds except the current one and the two before it', () => {
    const day = 24 * 3600 * 1000;
    const now = 10 * day;
    const names = [1, 2, 3, 4, 9.9].map((d) => `runtime-${Math.round(d * day)}-7`);
    for (const n of names) mkdirSync(join(root, n));
    writeFileSync(join(root, 'stamp.json'), '{}');
    const current = names[4]!;
    const removed = pruneBuilds(root, current, now);
    // Newest first besides the current: day 4 and day 3 kept; days 2 and 1 removed (a day old or more).
    expect(removed.sort()).toEqual([names[0], names[1]].sort());
    expect(names.map((n) => existsSync(join(root, n)))).toEqual([false, false, true, true, true]);
    expect(existsSync(join(root, 'stamp.json'))).toBe(true);
  });

  it('keeps builds younger than a day however many', () => {
    const own = join(root, 'fresh');
    mkdirSync(own);
    const now = Date.now();
    const fresh = [1, 2, 3, 4].map((m) => `runtime-${now - m * 60_000}-8`);
    for (const n of fresh) mkdirSync(join(own, n));
    expect(pruneBuilds(own, fresh[0]!, now)).toEqual([]);
  });
});
