/** The loader's static view of a bundle's k6 imports (the load-time "not supported" check relies on it). */
import { describe, expect, it } from 'vitest';
import { scanImports } from '../../runtime/loader/bundle.ts';
import { checks, runScript, values } from './run-script.ts';

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

describe('VUs interleaving across awaits', () => {
  it('keep their own __VU, __ITER, __ENV, k6/execution values and tags after every await', async () => {
    const r = await runScript('vu-across-awaits.js');
    expect(r.exitCode).toBe(0);
    // 3 VUs x 4 iterations and 2 VUs x 2, three awaits each.
    const all = { passes: (12 + 4) * 3, fails: 0 };
    expect(checks(r)).toEqual({
      '__VU is the VU': all,
      '__ITER is the iteration': all,
      '__ENV is the scenario': all,
      'the VU tag is the VU': all,
    });
    expect(values(r, 'seen')['count']).toBe(48);
  });
});
