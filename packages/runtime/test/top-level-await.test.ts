/** Top-level await in the init context: the ESM bundle's rewrite (esm-init.ts) and a run that adds VUs mid-test. */
import { describe, expect, it } from 'vitest';
import { esmToAsyncBody } from '../src/loader/esm-init.ts';
import { ESM_INIT_HELPERS } from '../src/loader/esm-init.ts';
import { runScript } from './run-script.ts';

const BUNDLE = [
  '// a.js',
  'import http, { get as g, post } from "k6/http";',
  'import * as k6 from "k6";',
  'import "k6/experimental/streams";',
  'var value = await Promise.resolve(41);',
  'function a_default() { return [http.name, g(), post(), k6.name, value + 1]; }',
  'export {',
  '  a_default as default,',
  '  value',
  '};',
  '',
].join('\n');

type Body = (exports: object, require: (spec: string) => unknown) => Promise<void>;

describe('esmToAsyncBody', () => {
  it('turns k6 imports into requires and the export clause into getters, keeping every line', async () => {
    const body = await esmToAsyncBody(BUNDLE, 'a.js');
    expect(body.split('\n')).toHaveLength(BUNDLE.split('\n').length);
    expect(body).not.toMatch(/^\s*(import|export)\b/m);
    const required: string[] = [];
    const modules: Record<string, object> = {
      'k6/http': { default: { name: 'http' }, get: () => 'get', post: () => 'post' },
      k6: { name: 'k6' },
      'k6/experimental/streams': {},
    };
    const AsyncFunction = (async () => {}).constructor as new (...a: string[]) => Body;
    const fn = new AsyncFunction('exports', 'require', `"use strict"; ${ESM_INIT_HELPERS}\n${body}`);
    const exports: Record<string, unknown> = {};
    await fn(exports, (spec) => {
      required.push(spec);
      return modules[spec];
    });
    expect(required).toEqual(['k6/http', 'k6/http', 'k6', 'k6/experimental/streams']);
    expect(Object.keys(exports).sort()).toEqual(['default', 'value']);
    expect((exports['default'] as () => unknown[])()).toEqual(['http', 'get', 'post', 'k6', 42]);
  });

  it('refuses an export form esbuild does not write, naming the script', async () => {
    await expect(esmToAsyncBody('export const x = await 1;\n', 'b.js')).rejects.toThrow(
      'cannot load b.js: unexpected ExportNamedDeclaration in the bundle',
    );
  });
});

describe('a script whose init context awaits', () => {
  it('runs VUs an arrival-rate executor adds mid-test only after their init finished', async () => {
    const r = await runScript('top-level-await.js');
    expect(r.exitCode, r.log).toBe(0);
    const m = r.summaryData!.metrics;
    expect(m['vus_max']!.values['value']).toBeGreaterThan(1);
    expect(m['checks']!.values['passes']).toBe(m['iterations']!.values['count']);
    expect(m['checks']!.values['fails']).toBe(0);
    expect(r.log).not.toContain('ERRO');
  });
});
