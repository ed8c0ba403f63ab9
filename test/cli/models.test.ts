import { afterEach, describe, expect, it, vi } from 'vitest';
import { program } from '../../cli/main.ts';
import { CATALOG } from '../../models/index.ts';

describe('k6-triton models', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('prints every catalog id, one per line, for the Makefile and the CI script', async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    await program().parseAsync(['models'], { from: 'user' });
    expect(out.trimEnd().split('\n')).toEqual(Object.keys(CATALOG).sort());
    expect(out.split('\n')).toContain('mnist');
  });
});
