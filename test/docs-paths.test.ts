/**
 * The docs match the tree: every repository path a README names in backticks exists. A path with a
 * slash (`lib/scenario/run-plan.ts`, `test/tools/`) is read from the repository root or from the
 * README's folder; a bare module name (`markdown.ts`) must be a file under the README's folder or at
 * the root (`build.ts`; the root README may abbreviate any file of the repository). Generated folders (results/, dist/) and
 * spans with placeholders (`results/<model>/<run-id>/`) are not paths of the tree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Not part of the tree a clone has, or written by runs. */
const SKIP_DIRS = new Set(['.git', 'node_modules', 'dist', 'results', 'coverage']);
/** A span that is a plain relative path: no spaces, placeholders, globs, flags or URLs. */
const PATH_LIKE = /^[\w@-][\w.@-]*(\/[\w.@-]+)*\/?$/;
/** Bare names with these extensions are modules or scripts of the tree, not files a run writes. */
const MODULE_NAME = /^[\w@-][\w.@-]*\.(ts|js|mjs|cjs|py|proto|sh)$/;

/** Every file under `dir` (relative to ROOT), skipping generated folders. */
function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

const FILES = walk('');
const READMES = FILES.filter((f) => f === 'README.md' || f.endsWith('/README.md'));
// results/ holds runs' output, skipped above, and one tracked README.
if (existsSync(join(ROOT, 'results/README.md'))) READMES.push('results/README.md');
const TOP_LEVEL = new Set(FILES.map((f) => f.split('/')[0]!));

/** The backticked spans of a markdown text that name repository paths. */
function namedPaths(markdown: string): string[] {
  const spans = new Set([...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim()));
  return [...spans].filter((s) => PATH_LIKE.test(s) && (s.includes('/') || MODULE_NAME.test(s)));
}

/** The paths a README names that the tree does not have. */
function missingPaths(readme: string): string[] {
  const folder = dirname(readme) === '.' ? '' : dirname(readme);
  const here = new Set(readdirSync(join(ROOT, folder)));
  const missing: string[] = [];
  for (const span of namedPaths(readFileSync(join(ROOT, readme), 'utf8'))) {
    if (span.includes('/')) {
      const first = span.split('/')[0]!;
      // `k6/http`, `v2/models/stats`: module names and URL paths, not paths of this tree.
      if (SKIP_DIRS.has(first) || !(TOP_LEVEL.has(first) || here.has(first))) continue;
      if (!existsSync(join(ROOT, span)) && !existsSync(join(ROOT, folder, span))) missing.push(span);
    } else {
      // A module of the README's folder (at any depth), or a file at the root (`build.ts`).
      const prefix = folder ? `${folder}/` : '';
      const found =
        existsSync(join(ROOT, span)) ||
        FILES.some((f) => f.startsWith(prefix) && f.split('/').at(-1) === span);
      if (!found) missing.push(span);
    }
  }
  return missing;
}

describe('README paths', () => {
  it('finds the READMEs, including the root one and those of runtime/ and report/', () => {
    expect(READMES).toEqual(expect.arrayContaining(['README.md', 'runtime/README.md', 'report/README.md']));
  });

  it('reads a span as a path only when it looks like one', () => {
    expect(
      namedPaths('`lib/scenario/run-plan.ts`, `markdown.ts`, `results/<model>/`, `p(95)<500`, `make test`'),
    ).toEqual(['lib/scenario/run-plan.ts', 'markdown.ts']);
  });

  it.each(READMES)('every path %s names exists', (readme) => {
    expect(missingPaths(readme), `${readme} names paths the tree does not have`).toEqual([]);
  });
});
