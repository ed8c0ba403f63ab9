/** k6's reading of a boolean K6_* variable (Go's strconv.ParseBool), which `k6-triton run` follows. */
import { describe, expect, it } from 'vitest';
import { envBool } from '../../cli/run.ts';

describe('envBool', () => {
  it("reads Go's true and false spellings, and unset as undefined", () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(envBool({ X: v }, 'X')).toBe(true);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(envBool({ X: v }, 'X')).toBe(false);
    expect(envBool({}, 'X')).toBeUndefined();
  });

  it('refuses any other value in k6 words, naming the variable', () => {
    for (const v of ['', 'yes', 'on', 'tRuE']) expect(() => envBool({ X: v }, 'X')).toThrow(`env var 'X'`);
  });
});
