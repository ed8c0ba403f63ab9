/**
 * Agreement on JavaScript and k6 API semantics that scripts and the libraries they vendor rely on
 * (issue 37): each script runs under real k6 and the Node runtime, and its checks, exit code and log
 * lines must be the same. Real k6 comes from K6_BIN or ../shared/tools/bin/k6; without it the suite is
 * skipped, saying so.
 */
import { describe, expect, it } from 'vitest';
import { checkCounts, findK6, groupTree, type Outcome, runBoth } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`semantics agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** The check counts of a run, which must all pass. */
function passingChecks(o: Outcome): Record<string, [number, number]> {
  const c = checkCounts(o.summary?.root_group);
  expect(Object.keys(c).length, o.stderr).toBeGreaterThan(0);
  for (const [name, [, fails]] of Object.entries(c)) expect(fails, `${name}\n${o.stderr}`).toBe(0);
  return c;
}

describe.skipIf(!K6)('semantics agree with real k6', () => {
  const k6 = K6 ?? '';

  it('`throw a, b` throws b, having evaluated a', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'throw-sequence.js');
    expect(n.code, n.stderr).toBe(k.code);
    expect(passingChecks(n)).toEqual(passingChecks(k));
  });

  it('scripts are strict code, as ES modules are in k6 (CommonJS modules too)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'untyped/strict-mode.js');
    expect(n.code, n.stderr).toBe(k.code);
    expect(Object.keys(passingChecks(k))).toHaveLength(5);
    expect(passingChecks(n)).toEqual(passingChecks(k));
  });

  it('a write to a SharedArray or its items throws a TypeError', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'untyped/shared-array-frozen.js');
    expect(n.code, n.stderr).toBe(k.code);
    expect(Object.keys(passingChecks(k))).toHaveLength(8);
    expect(passingChecks(n)).toEqual(passingChecks(k));
  });

  it('import.meta.resolve() resolves against the calling module, as in k6', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'import-meta.js');
    expect(n.code, n.stderr).toBe(k.code);
    const want = passingChecks(k);
    expect(Object.keys(want)).toContain(
      '::a bare name: The moduleSpecifier "k6/http" couldn\'t be recognised as something k6 supports.',
    );
    expect(
      Object.keys(want).some(
        (c) => c.startsWith('::lib: file:///') && c.endsWith('/scripts/lib/beside-lib.json'),
      ),
    ).toBe(true);
    expect(passingChecks(n)).toEqual(want);
  });

  it('exec.test.fail() marks the test failed, lets it run on and exits 110 (over a crossed threshold)', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'test-fail.js');
    expect(k.code, k.stderr).toBe(110);
    expect(n.code, n.stderr).toBe(k.code);
    expect(passingChecks(n)).toEqual(passingChecks(k));
    for (const o of [k, n]) {
      expect(o.stderr).toContain('test marked as failed: soft failure');
      expect(o.stderr).toContain('test run was marked as failed');
      expect(o.stderr).not.toContain('have been crossed');
    }
  });

  it('http.url`...` returns the same object: name, url, clean_url, clean() and getURL()', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'http-url.js');
    expect(n.code, n.stderr).toBe(k.code);
    const want = passingChecks(k);
    expect(Object.keys(want)).toHaveLength(11);
    expect(Object.keys(want)).toContain('::credentials own keys name,url,clean_url,clean,getURL');
    expect(passingChecks(n)).toEqual(want);
  });

  it("checks recorded through new Rate('checks') are listed and counted in the summary", async () => {
    const { k6: k, node: n } = await runBoth(k6, 'rate-checks.js');
    expect(n.code, n.stderr).toBe(k.code);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    for (const o of [k, n]) {
      expect(o.stdout).toMatch(/checks_total\.+: 16\s/);
      expect(o.stdout).toMatch(/checks_succeeded\.+: 81\.25% 13 out of 16/);
      expect(o.stdout).toContain('✓ recorded through the Rate');
      expect(o.stdout).toContain('✗ a Rate check in a group');
    }
  });

  it("group(''), check() and fail() at their edges: the same groups, checks and errors", async () => {
    const { k6: k, node: n } = await runBoth(k6, 'check-group-fail.js');
    expect(n.code, n.stderr).toBe(k.code);
    const want = checkCounts(k.summary?.root_group);
    expect(want['::in an empty group in an empty group']).toEqual([1, 0]);
    expect(Object.keys(want)).toContain("::fail('custom') -> GoError: custom");
    expect(checkCounts(n.summary?.root_group)).toEqual(want);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
  });

  it('code after a bare sleep() runs after it, wherever the loader can keep the order', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'sleep-order.js');
    expect(n.code, n.stderr).toBe(k.code);
    const want = passingChecks(k);
    expect(Object.keys(want)).toHaveLength(6);
    expect(Object.keys(want).every((c) => !c.endsWith(': false'))).toBe(true);
    expect(passingChecks(n)).toEqual(want);
  });
});
