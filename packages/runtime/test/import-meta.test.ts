import { describe, expect, it } from 'vitest';
import { resolveSpecifier, rewriteImportMeta } from '../src/loader/import-meta.ts';

describe("k6's import.meta", () => {
  it('resolves as k6 does: relative and absolute paths, file and https URLs; refuses the rest with k6 words', () => {
    const base = 'file:///s/dir/script.js';
    expect(resolveSpecifier(base, './a b.js')).toBe('file:///s/dir/a%20b.js');
    expect(resolveSpecifier(base, '../up.js')).toBe('file:///s/up.js');
    expect(resolveSpecifier(base, '/abs.js')).toBe('file:///abs.js');
    expect(resolveSpecifier(base, 'https://example.com/x.js')).toBe('https://example.com/x.js');
    expect(() => resolveSpecifier(base, 'k6/http')).toThrow(
      `The moduleSpecifier "k6/http" couldn't be recognised as something k6 supports.`,
    );
    expect(() => resolveSpecifier(base, 'http://example.com/x.js')).toThrow(
      'only supported schemes for imports are file and https, http://example.com/x.js has `http`',
    );
    expect(() => resolveSpecifier(base, '')).toThrow('local or remote path required');
  });

  it('rewrites import.meta in place, keeping every column, and leaves strings alone in JavaScript', async () => {
    const js = "const a = import.meta.resolve('./x');\nconst s = 'import.meta';\n";
    const out = await rewriteImportMeta(js, '/s/m.js');
    const lines = out.split('\n');
    expect(lines[0]).toBe("const a = __k6_meta().resolve('./x');");
    expect(lines[1]).toBe("const s = 'import.meta';");
    expect(out).toContain('function __k6_meta() { return __k6ImportMeta("file:///s/m.js"); }');
    // TypeScript does not parse as JavaScript: its text is rewritten.
    const ts = 'const u: string = import.meta.resolve("./y");\n';
    expect((await rewriteImportMeta(ts, '/s/m.ts')).split('\n')[0]).toBe(
      'const u: string = __k6_meta().resolve("./y");',
    );
    expect(await rewriteImportMeta('const x = 1;\n', '/s/m.js')).toBe('const x = 1;\n');
  });
});
