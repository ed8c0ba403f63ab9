/**
 * The shape of the tree, held against its imports: layers that only import downwards, walls around the
 * workspace packages (reached from outside only through their entries), no import circles.
 */
import { describe, expect, it } from 'vitest';
import { circles, type Import, importGraph, WORKSPACE } from './imports.ts';

/**
 * The tool's layers, bottom first: a file imports its own folder or a lower layer, never a folder beside it
 * or above it. Data flows one way: catalog -> payloads -> scenario -> measurement -> reports -> commands.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['lib/'],
  ['packages/runtime/', 'packages/server/'],
  ['models/'],
  ['payloads/', 'report/'],
  ['scenarios/'],
  ['measure/'],
  ['cli/'],
  ['build.ts'],
  ['test/'],
  ['bench/', 'bin/'],
];

/** Workspace packages with walls: what each may import besides itself (by folder). */
const PACKAGES: Record<string, readonly string[]> = {
  'packages/runtime/': ['lib/'],
  'packages/server/': ['lib/'],
};

/** The folder (layer entry) a path belongs to, with its layer number. */
function placeOf(path: string): { folder: string; layer: number } | undefined {
  for (const [layer, folders] of LAYERS.entries()) {
    for (const folder of folders) if (path === folder || path.startsWith(folder)) return { folder, layer };
  }
  return undefined;
}

const packageOf = (path: string): string | undefined => Object.keys(PACKAGES).find((p) => path.startsWith(p));
const isTest = (path: string): boolean => /(^|\/)test\//.test(path);
/** Benchmarks time a package's hot paths (bench/runtime: its transports and modules) from inside. */
const isBench = (path: string): boolean => path.startsWith('bench/');
const at = (e: Import): string => `${e.from}:${e.line} imports '${e.specifier}'`;

const graph = importGraph();
const local = graph.filter((e) => e.target !== undefined);

describe('the layers of the tree', () => {
  it('reads the imports it judges (a broken reader would pass everything)', () => {
    expect(local.length).toBeGreaterThan(1000);
    expect(graph.some((e) => e.from === 'cli/main.ts')).toBe(true);
  });

  it('product code imports only its own folder or a layer below', () => {
    const upward = local
      .filter((e) => !isTest(e.from))
      .filter((e) => {
        const from = placeOf(e.from);
        const to = placeOf(e.target!);
        if (!from || !to) return false;
        return from.folder !== to.folder && to.layer >= from.layer;
      })
      .map(at);
    expect(upward).toEqual([]);
  });

  it('a workspace package imports only itself and the packages below it', () => {
    const leaks = local
      .filter((e) => packageOf(e.from) && !isTest(e.from))
      .filter((e) => {
        const own = packageOf(e.from)!;
        return !e.target!.startsWith(own) && !PACKAGES[own]!.some((allowed) => e.target!.startsWith(allowed));
      })
      .map(at);
    expect(leaks).toEqual([]);
  });

  it("a workspace package's source reaches lib/ by its package name, not by a path out of its folder", () => {
    // Its tests may still borrow the tool's fixtures (the catalog's configs, a tmpfs helper): they are tests.
    const paths = local.filter(
      (e) =>
        packageOf(e.from) &&
        !isTest(e.from) &&
        e.specifier.startsWith('..') &&
        !e.target!.startsWith(packageOf(e.from)!),
    );
    expect(paths.map(at)).toEqual([]);
  });

  it('outside a package, code reaches it only through its entry (tests: its entry or its test helpers)', () => {
    const entries = Object.entries(WORKSPACE).filter(([, folder]) => folder.startsWith('packages/'));
    const inside = local.filter((e) => {
      const pkg = packageOf(e.target!);
      if (!pkg || e.from.startsWith(pkg) || isBench(e.from)) return false;
      if (isTest(e.from) && e.target!.startsWith(`${pkg}test/`)) return false;
      return !entries.some(([name, folder]) => `${folder}/` === pkg && e.specifier === name);
    });
    expect(inside.map(at)).toEqual([]);
  });

  it('lib/ runs inside k6: it imports k6 modules and its own files, no node: module and no npm package', () => {
    const outside = graph
      .filter((e) => e.from.startsWith('lib/') && !e.target && !/^k6(\/|$)/.test(e.specifier))
      .map(at);
    expect(outside).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(local)).toEqual([]);
  });

  it('finds a circle and an upward import when there is one (the checks can fail)', () => {
    const fake: Import[] = [
      { from: 'lib/a.ts', specifier: './b.ts', target: 'lib/b.ts', line: 1 },
      { from: 'lib/b.ts', specifier: './a.ts', target: 'lib/a.ts', line: 1 },
    ];
    expect(circles(fake)).toEqual([['lib/a.ts', 'lib/b.ts']]);
    expect(placeOf('lib/x.ts')!.layer).toBeLessThan(placeOf('models/catalog.ts')!.layer);
  });
});
