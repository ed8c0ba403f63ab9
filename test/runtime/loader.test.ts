/** The loader's static view of a bundle's k6 imports (the load-time "not supported" check relies on it). */
import { describe, expect, it } from 'vitest';
import { scanImports } from '../../runtime/loader/bundle.ts';

describe('scanImports', () => {
  it('collects named imports and members read off default and namespace imports', () => {
    const esm = [
      'import http from "k6/http";',
      'import { check, sleep as nap } from "k6";',
      'import * as metrics from "k6/metrics";',
      'import exec, { test } from "k6/execution";',
      'import "k6/encoding";',
      '// lib/kserve/http.ts',
      'const r = await http.asyncRequest("GET", u); http.expectedStatuses(200);',
      'new metrics.Trend("x"); exec.vu.idInTest; re.exec(s); const url = "a/http.ts";',
    ].join('\n');
    const got = Object.fromEntries([...scanImports(esm)].map(([k, v]) => [k, [...v.names].sort()]));
    expect(got).toEqual({
      'k6/encoding': [],
      'k6/http': ['asyncRequest', 'expectedStatuses'],
      k6: ['check', 'sleep'],
      'k6/metrics': ['Trend'],
      'k6/execution': ['test', 'vu'],
    });
  });
});

describe('installGlobals', () => {
  it('lets other code assign the k6 globals, and installs them again for the next run', async () => {
    const { installGlobals } = await import('../../runtime/loader/program.ts');
    installGlobals();
    const g = globalThis as unknown as { __ENV: unknown; __VU: unknown };
    expect(g.__VU).toBe(0);
    g.__ENV = { FROM_TEST: '1' };
    expect(g.__ENV).toEqual({ FROM_TEST: '1' });
    installGlobals();
    expect(g.__ENV).toEqual({});
  });
});
