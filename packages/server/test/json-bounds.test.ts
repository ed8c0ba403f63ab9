/** The JSON bounds check over raw bytes (src/json-bounds.ts): what it counts, what it skips. */
import { describe, expect, it } from 'vitest';
import { checkJsonBounds } from '../src/json-bounds.ts';

const ALWAYS = { uncheckedBytes: 0 };
const refusal = (text: string, bounds = {}) => {
  try {
    checkJsonBounds(Buffer.from(text), { ...ALWAYS, ...bounds });
    return undefined;
  } catch (err) {
    return `${(err as { httpStatus: number }).httpStatus} ${(err as Error).message}`;
  }
};

describe('checkJsonBounds', () => {
  it('refuses nesting past the depth with 400, at any point of the text', () => {
    expect(refusal('[[[1]]]', { maxDepth: 3 })).toBeUndefined();
    expect(refusal('[[[[1]]]]', { maxDepth: 3 })).toBe(
      "400 request JSON nests deeper than the server's limit of 3 levels",
    );
    expect(refusal('{"a":[{"b":[1]}]}', { maxDepth: 3 })).toMatch(/^400 .*limit of 3 levels/);
    // Unclosed: refused as soon as the depth is passed, before the end.
    expect(refusal('['.repeat(1000), { maxDepth: 128 })).toMatch(/limit of 128 levels/);
  });

  it('does not count brackets, braces or commas inside strings, escaped quotes included', () => {
    const text = `{"a":"[[[[{{{{,,,,","b":"x\\"[[[[\\\\","c":[1]}`;
    expect(JSON.parse(text).b).toBe('x"[[[[\\');
    expect(refusal(text, { maxDepth: 2, maxElements: 2, maxContainers: 2 })).toBeUndefined();
    expect(refusal(text, { maxDepth: 1 })).toMatch(/limit of 1 levels/);
  });

  it('refuses more elements or containers than allowed', () => {
    expect(refusal('[1,2,3]', { maxElements: 2 })).toBeUndefined();
    expect(refusal('[1,2,3,4]', { maxElements: 2 })).toBe(
      "400 request JSON holds more elements than the server's limit of 2",
    );
    expect(refusal('[[],[],[]]', { maxContainers: 3 })).toBe(
      "400 request JSON holds more arrays and objects than the server's limit of 3",
    );
  });

  it('leaves bodies up to uncheckedBytes unread', () => {
    const deep = '['.repeat(200);
    expect(() => checkJsonBounds(Buffer.from(deep), { uncheckedBytes: 200 })).not.toThrow();
    expect(() => checkJsonBounds(Buffer.from(deep), { uncheckedBytes: 199 })).toThrow(/128 levels/);
  });
});
