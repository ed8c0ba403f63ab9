/**
 * k6's `import.meta`: an object with only `resolve(specifier)`, which resolves a specifier the way
 * k6's loader does, against the module that calls it, to a URL string. esbuild's CommonJS output has
 * no per-module `import.meta`, so the bundle's plugin below rewrites each `import.meta` in a module to
 * `__k6_meta()` (the same length: lines and columns stay) and appends a function declaration that
 * returns the meta object of that module's file URL; the wrapper (program.ts) provides IMPORT_META_FN.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader, Plugin } from 'esbuild';
import type { AnyNode } from './await-sync.ts';

/** The scope's function that makes a module's meta object (program.ts binds it). */
export const IMPORT_META_FN = '__k6ImportMeta';
/** What `import.meta` becomes in a module: a call of the function appended to it (11 characters, as `import.meta`). */
const LOCAL_CALL = '__k6_meta()';

/** k6's loader.Resolve, for a module at `base` (a file URL): the resolved URL, or k6's error. */
export function resolveSpecifier(base: string, specifier: unknown): string {
  const spec = String(specifier);
  if (spec === '') throw new Error('local or remote path required');
  if (spec.startsWith('.') || spec.startsWith('/')) return new URL(spec, base).href;
  if (spec.includes('://')) {
    const u = new URL(spec);
    const scheme = u.protocol.slice(0, -1);
    if (scheme !== 'file' && scheme !== 'https')
      throw new Error(`only supported schemes for imports are file and https, ${spec} has \`${scheme}\``);
    return u.href;
  }
  throw new Error(
    `The moduleSpecifier ${JSON.stringify(spec)} couldn't be recognised as something k6 supports.`,
  );
}

/** The `import.meta` of the module at `url`: one object per module, with `resolve` only, as in k6. */
export function importMetaFactory(): (url: string) => { resolve: (specifier: unknown) => string } {
  const metas = new Map<string, { resolve: (specifier: unknown) => string }>();
  return (url) => {
    let meta = metas.get(url);
    if (!meta) {
      meta = { resolve: (specifier) => resolveSpecifier(url, specifier) };
      metas.set(url, meta);
    }
    return meta;
  };
}

const LOADERS: Record<string, Loader> = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
};

/** Where each `import.meta` is in JavaScript source (acorn), or null when it does not parse as JavaScript. */
async function metaRanges(text: string): Promise<[number, number][] | null> {
  const { parse } = await import('acorn');
  let ast: AnyNode;
  try {
    ast = parse(text, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowHashBang: true,
      allowAwaitOutsideFunction: true,
    }) as unknown as AnyNode;
  } catch {
    return null;
  }
  const out: [number, number][] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) for (const x of n) visit(x);
    else if (n && typeof n === 'object' && typeof (n as AnyNode).type === 'string') {
      const node = n as AnyNode;
      if (node.type === 'MetaProperty' && (node['meta'] as AnyNode)['name'] === 'import')
        out.push([node.start, node.end]);
      for (const key of Object.keys(node)) if (key !== 'type') visit(node[key]);
    }
  };
  visit(ast);
  return out;
}

/** The module's text with each `import.meta` made this module's meta object (see the file's comment); `url` names a remote module. */
export async function rewriteImportMeta(
  text: string,
  path: string,
  url = pathToFileURL(path).href,
): Promise<string> {
  // TypeScript does not parse as JavaScript: there, the text's own occurrences (strings and comments too).
  const ranges =
    (await metaRanges(text)) ??
    [...text.matchAll(/\bimport\.meta\b/g)].map((m): [number, number] => [m.index, m.index + m[0].length]);
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + LOCAL_CALL;
    at = end;
  }
  return `${out}${text.slice(at)}\n;function __k6_meta() { return ${IMPORT_META_FN}(${JSON.stringify(url)}); }\n`;
}

/** The esbuild plugin that gives each module k6's `import.meta` (files that name it only). */
export function importMetaPlugin(): Plugin {
  return {
    name: 'k6-import-meta',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        const loader = LOADERS[extname(args.path)];
        if (!loader || args.namespace !== 'file') return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        return { contents: await rewriteImportMeta(text, args.path), loader };
      });
    },
  };
}
