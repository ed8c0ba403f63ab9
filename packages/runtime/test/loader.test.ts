/** The loader's static view of a bundle's k6 imports (the load-time "not supported" check relies on it). */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scanImports } from '../src/loader/bundle.ts';
import { buildScenarios } from '../../../build.ts';
import { readSidecar, sidecarBanner } from '../src/loader/prebuilt.ts';
import { runTest } from '@k6-triton/runtime';
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

  it("marks a module only require()d (esbuild's __require in ESM) as such, so a runtime without it fails only there", () => {
    const esm = [
      'import http from "k6/http";',
      'const sse = __ENV.SSE ? __require("k6/x/sse") : undefined; const h = require("k6/http");',
      'x.require("k6/x/other");',
      '// require("k6/x/commented")',
    ].join('\n');
    const got = Object.fromEntries([...scanImports(esm)].map(([k, v]) => [k, v.requiredOnly ?? false]));
    expect(got).toEqual({ 'k6/http': false, 'k6/x/sse': true });
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

describe('a prebuilt bundle with its CommonJS sidecar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-sidecar-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = (counter: string) =>
    [
      "import { Counter } from 'k6/metrics';",
      `const c = new Counter('${counter}');`,
      'export const options = { iterations: 1 };',
      'export default function () { c.add(1); }',
    ].join('\n');
  const bundle = join(dir, 'bundle.js');
  const esm = script('from_esm');
  writeFileSync(bundle, esm);
  // The sidecar counts under another name, so the run shows which of the two was evaluated.
  const sidecar = [
    sidecarBanner(esm),
    '"use strict";',
    "const { Counter } = require('k6/metrics');",
    "const c = new Counter('from_sidecar');",
    'exports.options = { iterations: 1 };',
    'exports.default = function () { c.add(1); };',
  ].join('\n');
  writeFileSync(join(dir, 'bundle.cjs'), sidecar);
  const metricNames = async () => {
    const r = await runTest({
      script: bundle,
      quiet: true,
      noSummary: true,
      includeSystemEnv: false,
      stdout: () => {},
    });
    expect(r.exitCode).toBe(0);
    return Object.keys(r.summaryData?.metrics ?? {}).filter((m) => m.startsWith('from_'));
  };

  it('runs the sidecar made from this very bundle, and the bundle itself once the sidecar is stale', async () => {
    expect(await metricNames()).toEqual(['from_sidecar']);
    appendFileSync(bundle, '\n// edited after the build\n');
    expect(await metricNames()).toEqual(['from_esm']);
  });

  it('is what build.ts writes beside each scenario bundle', async () => {
    const [mnist] = await buildScenarios([
      fileURLToPath(new URL('../../../scenarios/mnist.ts', import.meta.url)),
    ]);
    const prebuilt = readSidecar(mnist!);
    expect(prebuilt?.code).toMatch(/modelTest\(/);
    expect(prebuilt?.map).toMatch(/"sources"/);
  });
});
