import { describe, expect, it } from 'vitest';
import { consoleValue } from '../src/console-format.ts';
import { markThrows, recordThrown, thrownFrames } from '../src/loader/thrown.ts';
import { runScript } from './run-script.ts';
import { logEntries } from './logfmt.ts';

describe("console output in k6's format", () => {
  it('prints values as k6 v2.2.0 prints them', () => {
    // Each expectation is what real k6 v2.2.0 logged for the same console.log argument.
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const cases: [unknown, string][] = [
      [{ a: 1, b: 'x', c: [1, 2], d: { e: null } }, '{ a: 1, b: "x", c: [ 1, 2 ], d: { e: null } }'],
      ['text', 'text'],
      [undefined, 'undefined'],
      [null, 'null'],
      [[1, 'a', { b: 2 }], '[ 1, "a", { b: 2 } ]'],
      [new Error('boom'), 'Error: boom'],
      [function foo() {}, '[object Function]'],
      [new Map([[1, 2]]), '{}'],
      [new Date(0), '"1970-01-01T00:00:00.000Z"'],
      [/re/g, '{}'],
      [10n, '10'],
      [-0, '0'],
      [new Uint8Array([1, 2]), 'Uint8Array(2) [ 1, 2 ]'],
      [new ArrayBuffer(2), 'ArrayBuffer { [Uint8Contents]: <00 00>, byteLength: 2 }'],
      [cyclic, '{ a: 1, self: [Circular] }'],
      [{ u: undefined, f() {} }, '{ u: null, f: [object Function] }'],
      [[], '[]'],
    ];
    for (const [value, text] of cases) expect(consoleValue(value)).toBe(text);
  });
});

describe('stack traces of thrown values that are not Errors', () => {
  it('wraps throw statements whose value may not be an Error, leaving `new ...Error(...)` and lines alone', async () => {
    const code = "function f(x) {\n  if (x) throw 'no';\n  throw new Error('e');\n}\nthrow f;";
    const out = await markThrows(code, 'x.js');
    expect(out).toBe(
      "function f(x) {\n  if (x) throw __k6tThrown('no');\n  throw new Error('e');\n}\nthrow __k6tThrown(f);",
    );
    const plain = 'throw new TypeError("t");';
    expect(await markThrows(plain, 'x.js')).toBe(plain);
  });

  it('keeps `throw a, b` one value: the wrapper gets the sequence, which throws b', async () => {
    const out = await markThrows('throw n++, "last";', 'x.js');
    expect(out).toBe('throw __k6tThrown((n++, "last"));');
  });

  it('records where a value was thrown', () => {
    const where = () => recordThrown('recorded here');
    where();
    expect(thrownFrames('recorded here')).toMatch(/at where \(.*console-format\.test\.ts:\d+:\d+\)/);
    expect(thrownFrames('never thrown')).toBeUndefined();
  });

  it("logs a thrown string or object with the script's frames, as k6 does", async () => {
    const r = await runScript('thrown-values.js');
    expect(r.exitCode).toBe(0);
    const errors = logEntries(r.log).filter((e) => e.level === 'error');
    expect(errors.map((e) => e.msg)).toEqual([
      expect.stringMatching(/^a plain string\n\s+at fail \(.*scripts\/thrown-values\.js:4:\d+\)/),
      expect.stringMatching(/^\[object Object\]\n\s+at fail \(.*scripts\/thrown-values\.js:5:\d+\)/),
    ]);
    expect(errors[0]!.fields['hint']).toBe('script exception');
    expect(logEntries(r.log)).toContainEqual({
      level: 'info',
      msg: 'caught 42 { e: 42, list: [ 1, "two" ] }',
      fields: { source: 'console' },
    });
  });
});
