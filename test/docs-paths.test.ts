/**
 * The docs match the tree. Every repository path a README or a page of docs/ names in backticks exists:
 * a path with a slash (`scenarios/kit/run-plan.ts`, `test/e2e/tools/`) is read from the repository root or from
 * the README's folder; a bare module name (`markdown.ts`) must be a file under the README's folder or at
 * the root (`build.ts`; the root README and the docs/ pages may abbreviate any file of the repository).
 * Generated folders (results/, dist/) and spans with placeholders (`results/<model>/<run-id>/`) are not
 * paths of the tree. And every relative Markdown link of those pages leads to a file that exists, and to a
 * heading of it when the link names one (`docs/benchmarks.md#settings`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Not part of the tree a clone has, or written by runs and builds (.gitignore). */
const SKIP_DIRS = new Set(['.git', 'node_modules', 'dist', 'results', 'coverage', 'build']);
/** Generated folders below the top level, git-ignored too. */
const GENERATED = ['payloads/cache'];
/** A span that is a plain relative path: no spaces, placeholders, globs, flags or URLs. */
const PATH_LIKE = /^[\w@-][\w.@-]*(\/[\w.@-]+)*\/?$/;
/** Bare names with these extensions are modules or scripts of the tree, not files a run writes. */
const MODULE_NAME = /^[\w@-][\w.@-]*\.(ts|js|mjs|cjs|py|proto|sh)$/;

/** Every file under `dir` (relative to ROOT), skipping generated folders. */
function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name) || GENERATED.includes(dir ? `${dir}/${entry.name}` : entry.name)) continue;
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
/** The pages of docs/: written for the reader at the root, so their paths are the root's. */
const DOC_PAGES = FILES.filter((f) => /^docs\/[^/]+\.md$/.test(f));
const PAGES = [...READMES, ...DOC_PAGES];
const TOP_LEVEL = new Set(FILES.map((f) => f.split('/')[0]!));

/** The backticked spans of a markdown text that name repository paths. */
function namedPaths(markdown: string): string[] {
  const spans = new Set([...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim()));
  return [...spans].filter((s) => PATH_LIKE.test(s) && (s.includes('/') || MODULE_NAME.test(s)));
}

/** The folder a page's paths are read from: its own for a README, the root for a docs/ page. */
function pathFolder(page: string): string {
  if (DOC_PAGES.includes(page)) return '';
  return dirname(page) === '.' ? '' : dirname(page);
}

/** The paths a markdown text read from `folder` names that the tree does not have. */
function missingPaths(markdown: string, folder: string): string[] {
  const here = new Set(readdirSync(join(ROOT, folder)));
  const missing: string[] = [];
  for (const span of namedPaths(markdown)) {
    if (span.includes('/')) {
      const first = span.split('/')[0]!;
      // `k6/http`, `v2/models/stats`: module names and URL paths, not paths of this tree.
      if (SKIP_DIRS.has(first) || !(TOP_LEVEL.has(first) || here.has(first))) continue;
      if (GENERATED.some((dir) => span === dir || span.startsWith(`${dir}/`))) continue;
      if (!existsSync(join(ROOT, span)) && !existsSync(join(ROOT, folder, span))) missing.push(span);
    } else {
      // A module of the folder (at any depth), or a file at the root (`build.ts`).
      const prefix = folder ? `${folder}/` : '';
      const found =
        existsSync(join(ROOT, span)) ||
        FILES.some((f) => f.startsWith(prefix) && f.split('/').at(-1) === span);
      if (!found) missing.push(span);
    }
  }
  return missing;
}

/** The text outside fenced code blocks (a `# comment` in a shell block is not a heading). */
function outsideFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const m of outsideFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const text = m[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    anchors.add(
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

/** The relative links of a page (`[text](target)`) whose file or heading does not exist. */
function brokenLinks(markdown: string, page: string): string[] {
  const broken: string[] = [];
  for (const m of outsideFences(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
    const [file = '', anchor] = target.split('#');
    const path = file ? normalize(join(dirname(page), file)) : page;
    if (!existsSync(join(ROOT, path))) {
      broken.push(target);
      continue;
    }
    if (anchor === undefined || !path.endsWith('.md')) continue;
    if (!headingAnchors(readFileSync(join(ROOT, path), 'utf8')).has(anchor)) broken.push(target);
  }
  return broken;
}

describe('docs paths', () => {
  it('finds the READMEs, including the root one and those of runtime/ and report/, and the docs/ pages', () => {
    expect(READMES).toEqual(
      expect.arrayContaining(['README.md', 'packages/runtime/README.md', 'report/README.md']),
    );
    expect(DOC_PAGES).toEqual(expect.arrayContaining(['docs/benchmarks.md', 'docs/how-it-measures.md']));
  });

  it('reads a span as a path only when it looks like one', () => {
    expect(
      namedPaths('`scenarios/kit/run-plan.ts`, `markdown.ts`, `results/<model>/`, `p(95)<500`, `make test`'),
    ).toEqual(['scenarios/kit/run-plan.ts', 'markdown.ts']);
  });

  it('reports a named path or module the tree lacks, and not one it has', () => {
    const text =
      '`models/catalog.ts`, `models/nothing-here.ts`, `build.ts`, `no-such-module.ts`, `k6/http`, `payloads/cache/x/`';
    expect(missingPaths(text, '')).toEqual(['models/nothing-here.ts', 'no-such-module.ts']);
  });

  it('reports a link to a missing file or heading, and not a good one', () => {
    const text = [
      '[a](../thresholds/README.md) [b](benchmarks.md#settings) [c](https://example.com/x)',
      '[d](missing.md) [e](benchmarks.md#no-such-heading) [f](#exit-codes)',
    ].join('\n');
    expect(brokenLinks(text, 'docs/ci-gates-and-compare.md')).toEqual([
      'missing.md',
      'benchmarks.md#no-such-heading',
    ]);
  });

  it('makes anchors as GitHub does, ignoring fenced code', () => {
    const page =
      "# The load generator's own cost\n## `perf_analyzer.csv` columns\n```sh\n# not a heading\n```\n";
    expect([...headingAnchors(page)]).toEqual(['the-load-generators-own-cost', 'perf_analyzercsv-columns']);
  });

  it.each(PAGES)('every path %s names exists', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(missingPaths(text, pathFolder(page)), `${page} names paths the tree does not have`).toEqual([]);
  });

  it.each(PAGES)('every relative link of %s leads to a file and heading that exist', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(brokenLinks(text, page), `${page} links to files or headings the tree does not have`).toEqual([]);
  });
});
