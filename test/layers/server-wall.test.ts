/**
 * The wall around the embedded server, read from the import statements of the source tree: the server imports
 * nothing of the tool but the bottom layer (lib/), and the tool reaches the server only through its entry.
 * Server tests may reach inside it. Every path is in WALL, so the check follows the server when it moves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Where the server lives, its entry, what it may import, and the tests allowed inside it (repository paths). */
const WALL = {
  server: 'server',
  entry: 'packages/server/src/index.ts',
  mayImport: ['lib'],
  serverTests: ['test/server', 'test/e2e/server'],
} as const;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'build', 'results', '.git']);
const SOURCE = /\.(ts|js|mjs)$/;
/** import/export ... from '...', import '...', import('...') with a literal specifier. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Repository-relative paths of every source file, with forward slashes. */
function sourceFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (SOURCE.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The repository paths a file's relative imports resolve to (bare and node: imports are packages). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) continue;
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return out;
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);

/** Every import that crosses the wall the wrong way, as "file -> import". */
function wallBreaches(files: string[], read: (file: string) => string[] = importsOf): string[] {
  const breaches: string[] = [];
  for (const file of files) {
    const isServer = inside(file, WALL.server);
    const isServerTest = WALL.serverTests.some((dir) => inside(file, dir));
    for (const target of read(file)) {
      const bad = isServer
        ? !inside(target, WALL.server) && !WALL.mayImport.some((dir) => inside(target, dir))
        : !isServerTest && inside(target, WALL.server) && target !== WALL.entry;
      if (bad) breaches.push(`${file} -> ${target}`);
    }
  }
  return breaches;
}

describe('the server wall', () => {
  const files = sourceFiles();

  it('finds the server and the tool in the tree', () => {
    expect(files).toContain(WALL.entry);
    expect(files.some((f) => inside(f, 'cli'))).toBe(true);
  });

  it('has the server import only itself and lib/, and the tool import the server only through its entry', () => {
    expect(wallBreaches(files)).toEqual([]);
  });

  it('flags a server file importing the tool and tool code importing a server internal', () => {
    const fake: Record<string, string[]> = {
      [`${WALL.server}/a.ts`]: ['models/catalog.ts', `${WALL.mayImport[0]}/x.ts`, `${WALL.server}/b.ts`],
      'cli/c.ts': [`${WALL.server}/b.ts`, WALL.entry],
      [`${WALL.serverTests[0]}/d.test.ts`]: [`${WALL.server}/b.ts`],
    };
    expect(wallBreaches(Object.keys(fake), (f) => fake[f]!)).toEqual([
      `${WALL.server}/a.ts -> models/catalog.ts`,
      `cli/c.ts -> ${WALL.server}/b.ts`,
    ]);
  });
});
