/**
 * The import graph of the source tree, read from the files as text: each file's imports (static, dynamic with a
 * literal, `export ... from`), relative ones resolved to repository paths and workspace packages
 * (`@k6-triton/<name>`) to the package's folder. What the layer tests judge.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Workspace package name -> the folder its name resolves to (a deep import `name/x` is `folder/x`). */
export const WORKSPACE: Record<string, string> = {
  '@k6-triton/lib': 'lib',
  '@k6-triton/runtime': 'packages/runtime',
  '@k6-triton/server': 'packages/server',
};

/** One import of one file. */
export interface Import {
  /** The importing file, repository-relative. */
  from: string;
  /** As written. */
  specifier: string;
  /** Repository-relative target for relative and workspace imports; undefined for npm, node: and k6 modules. */
  target?: string;
  line: number;
}

const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1|(?:^|[\n;])\s*import\s*(['"])([^'"]+)\3|\bimport\s*\(\s*(['"])([^'"]+)\5\s*\)/g;

/** Every tracked TypeScript/JavaScript source file (tests included), repository-relative. */
export function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'));
}

/** Where a specifier leads, repository-relative, or undefined when it names an outside module. */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return posix.normalize(posix.join(posix.dirname(from), specifier));
  for (const [name, folder] of Object.entries(WORKSPACE)) {
    if (specifier === name) return `${folder}/`;
    if (specifier.startsWith(`${name}/`)) return `${folder}/${specifier.slice(name.length + 1)}`;
  }
  return undefined;
}

/** The imports of one file. Comments are blanked first so that an example in a doc comment is not an import. */
export function importsOf(file: string): Import[] {
  const text = readFileSync(posix.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) =>
    c.replace(/[^\n]/g, ' '),
  );
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = (m[2] ?? m[4] ?? m[6])!;
    const line = text.slice(0, m.index + m[0].length).split('\n').length;
    out.push({ from: file, specifier, target: resolveSpecifier(file, specifier), line });
  }
  return out;
}

/** Every import of every source file. */
export function importGraph(files = sourceFiles()): Import[] {
  return files.flatMap(importsOf);
}

/** Strongly connected groups of more than one file (Tarjan), each sorted: the import circles. */
export function circles(edges: readonly Import[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!e.target) continue;
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.target);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}
