/**
 * The wall around the runtime: runtime/ and wire/ import nothing of the tool but lib/, and the tool
 * reaches the runtime only through its entry. Read from the import statements of every source file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the wall stands; paths relative to the repository root, folders ending in '/'. */
const RUNTIME_WALL = {
  /** The runtime's own source. */
  inside: ['runtime/', 'wire/'],
  /** What the runtime may import besides itself (and packages, node:). */
  mayImport: ['lib/'],
  /** The one module the tool imports the runtime through. */
  entry: 'packages/runtime/src/index.ts',
  /** The runtime's own tests and benches: they exercise its internals. */
  own: [
    'test/runtime/',
    'test/wire/',
    'test/e2e/runtime/',
    'test/e2e/agreement/',
    'test/e2e/kserve/clients-runtime.test.ts',
    'bench/runtime/',
    // This file's fixtures are import statements in strings.
    'test/layers/',
  ],
  /**
   * Crossings known and left to another part of the redesign, each with why; the test fails when one is
   * gone, so the list only shrinks.
   */
  pending: {
    'packages/server/src/grpc/model-infer.ts -> packages/runtime/src/wire/grpc-frame.ts':
      "gRPC message framing, shared by the server's ModelInfer and the runtime's client: leaves wire/ with the server's wall",
  } as Record<string, string>,
  /** Not source. */
  skip: ['node_modules/', 'dist/', 'build/', 'results/', '.git/'],
};

const SOURCE = /\.(ts|js|mjs|cjs)$/;
/** Static imports and re-exports (`from '...'`, `import '...'`) and dynamic `import('...')`. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

function sourceFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!RUNTIME_WALL.skip.includes(`${path}/`) && !e.name.startsWith('.')) out.push(...sourceFiles(path));
    } else if (SOURCE.test(e.name)) out.push(path);
  }
  return out;
}

/** The repository paths a file's relative imports resolve to. */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) out.push(relative(ROOT, resolve(ROOT, dirname(file), spec)));
  }
  return out;
}

const under = (path: string, prefixes: readonly string[]) =>
  prefixes.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));

/** Every import that crosses the wall the wrong way, as "file -> imported". */
function wallBreaches(files: ReadonlyArray<{ file: string; text: string }>): string[] {
  const breaches: string[] = [];
  for (const { file, text } of files) {
    const inside = under(file, RUNTIME_WALL.inside);
    if (!inside && under(file, RUNTIME_WALL.own)) continue;
    for (const target of importsOf(file, text)) {
      const targetInside = under(target, RUNTIME_WALL.inside);
      const ok = inside
        ? targetInside || under(target, RUNTIME_WALL.mayImport)
        : !targetInside || target === RUNTIME_WALL.entry;
      if (!ok && !(`${file} -> ${target}` in RUNTIME_WALL.pending)) breaches.push(`${file} -> ${target}`);
    }
  }
  return breaches;
}

describe('the runtime wall', () => {
  it('holds in this repository: runtime/ and wire/ import only themselves and lib/, the tool only the entry', () => {
    const files = sourceFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(files.some((f) => f.file === RUNTIME_WALL.entry)).toBe(true);
    expect(wallBreaches(files)).toEqual([]);
  });

  it('lists as pending only crossings that still exist', () => {
    for (const crossing of Object.keys(RUNTIME_WALL.pending)) {
      const [file, target] = crossing.split(' -> ') as [string, string];
      expect(importsOf(file, readFileSync(join(ROOT, file), 'utf8')), crossing).toContain(target);
    }
  });

  it('reports the runtime importing the tool and the tool importing a runtime internal', () => {
    const breaches = wallBreaches([
      {
        file: 'runtime/modules/x.ts',
        text: "import { a } from '../../measure/a.ts';\nimport b from '../../lib/b.ts';",
      },
      {
        file: 'wire/y.ts',
        text: "export { c } from '../../packages/runtime/test/c.ts';\nconst d = await import('../cli/d.ts');",
      },
      {
        file: 'cli/z.ts',
        text: "import { EXIT } from '../../packages/runtime/test/exit-codes.ts';\nimport { runTest } from '../../packages/runtime/test/index.ts';",
      },
      { file: 'measure/w.ts', text: "import '../../packages/runtime/test/wire/hpack.ts';" },
      { file: 'test/runtime/t.test.ts', text: "import { VU } from '../../packages/runtime/src/vu.ts';" },
    ]);
    expect(breaches).toEqual([
      'runtime/modules/x.ts -> measure/a.ts',
      'wire/y.ts -> cli/d.ts',
      'cli/z.ts -> packages/runtime/src/exit-codes.ts',
      'measure/w.ts -> packages/runtime/src/wire/hpack.ts',
    ]);
  });
});
