/**
 * Turns a k6 script (an esbuild bundle in dist/, a plain .js or a .ts scenario) into CommonJS
 * code that the runtime can evaluate once per VU. esbuild bundles the script with every
 * `k6`/`k6/*` import left external, then converts the ES module to CommonJS so that `require`
 * is ours: that is where `k6/*` specifiers resolve to the runtime's modules. A prebuilt scenario
 * with its CommonJS sidecar (prebuilt.ts) is read as it is, and esbuild is not even loaded.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { esmToAsyncBody } from './esm-init.ts';
import { importMetaPlugin } from './import-meta.ts';
import { ScriptLoadError } from './load-error.ts';
import { readSidecar } from './prebuilt.ts';
import { type RemoteModules, remoteModules, remoteModulesPlugin } from './remote.ts';

/** What a script imports from one k6 module: named imports and properties read off its default/namespace. */
export interface ModuleImports {
  names: Set<string>;
  /** Only `require`d, maybe on a path never taken: a module the runtime lacks fails where it is required, as in k6. */
  requiredOnly?: boolean;
}

/** A script ready to evaluate: CommonJS code and the k6 modules (with names) it imports. */
export interface BundledScript {
  path: string;
  code: string;
  imports: Map<string, ModuleImports>;
  /** The source map of `code` (JSON), when esbuild produced one. */
  map?: string;
  /**
   * The init context awaits (top-level `await`): `code` is the body of an async function
   * (esm-init.ts) instead of CommonJS.
   */
  asyncInit?: boolean;
  /** The local files bundled (absolute paths; the script alone for a prebuilt bundle), for archives. */
  files?: string[];
}

const IMPORT_RE = /^import\s+(.+?)\s+from\s*["']([^"']+)["'];?\s*$/gm;
const BARE_IMPORT_RE = /^import\s*["']([^"']+)["'];?\s*$/gm;
/** `require("k6/...")` (esbuild's `__require` in an ESM bundle): a module a script loads only on some path. */
const REQUIRE_RE = /(?<![\w$.])(?:__)?require\(\s*["'](k6(?:\/[^"']+)?)["']\s*\)/g;

/** Finds the k6 imports of an ESM bundle (esbuild prints one import statement per line at the top). */
export function scanImports(esm: string): Map<string, ModuleImports> {
  const out = new Map<string, ModuleImports>();
  const entry = (spec: string): ModuleImports => {
    let e = out.get(spec);
    if (!e) {
      e = { names: new Set() };
      out.set(spec, e);
    }
    return e;
  };
  const code = esm.replace(/^\s*\/\/.*$/gm, '');
  for (const m of esm.matchAll(BARE_IMPORT_RE)) entry(m[1]!);
  for (const m of esm.matchAll(IMPORT_RE)) {
    const clause = m[1]!;
    const spec = m[2]!;
    const e = entry(spec);
    const locals: string[] = [];
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) {
      for (const part of braces[1]!.split(',')) {
        const [imported, local] = part.trim().split(/\s+as\s+/);
        if (!imported) continue;
        if (imported !== 'default') e.names.add(imported.replace(/^["']|["']$/g, ''));
        else if (local) locals.push(local);
      }
    }
    const outside = clause.replace(/\{[^}]*\}/, '').trim();
    const star = /\*\s+as\s+([\w$]+)/.exec(outside);
    if (star) locals.push(star[1]!);
    const def = /^([\w$]+)/.exec(outside);
    if (def && !star) locals.push(def[1]!);
    // Members read off a default or namespace import (`http.get`) must exist too. Line comments
    // (esbuild's `// lib/kserve/grpc.ts` markers) are skipped, and so are path-like neighbours.
    for (const local of locals) {
      const re = new RegExp(`(?<![\\w$./-])${local.replace(/\$/g, '\\$')}\\.([A-Za-z_$][\\w$]*)`, 'g');
      for (const mm of code.matchAll(re)) e.names.add(mm[1]!);
    }
  }
  for (const m of code.matchAll(REQUIRE_RE))
    if (!out.has(m[1]!)) out.set(m[1]!, { names: new Set(), requiredOnly: true });
  return out;
}

/** How a script becomes the CommonJS the runtime evaluates; build.ts makes dist/ sidecars with it too. */
export const SCRIPT_CJS_OPTIONS = {
  bundle: true,
  format: 'cjs',
  platform: 'neutral',
  target: 'es2022',
  external: ['k6', 'k6/*'],
  mainFields: ['module', 'main'],
  sourcemap: 'external',
} as const satisfies BuildOptions;

/** Bundles the script at `path` and returns CommonJS code plus its k6 imports; `remote` holds its remote modules. */
export async function bundleScript(
  path: string,
  remote: RemoteModules = remoteModules(),
): Promise<BundledScript> {
  if (!existsSync(path))
    throw new ScriptLoadError(`script not found: ${path} (give the path of a k6 script, e.g. dist/mnist.js)`);
  const prebuilt = readSidecar(path);
  if (prebuilt) return { path, code: prebuilt.code, imports: scanImports(prebuilt.esm), map: prebuilt.map };
  const { build } = await import('esbuild');
  let esm: string;
  let files: string[] = [path];
  try {
    const result = await build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      external: ['k6', 'k6/*'],
      mainFields: ['module', 'main'],
      logLevel: 'silent',
      absWorkingDir: dirname(path),
      metafile: true,
      plugins: [remoteModulesPlugin(remote)],
    });
    esm = result.outputFiles[0]!.text;
    files = Object.keys(result.metafile.inputs)
      .filter((f) => !f.includes(':'))
      .map((f) => resolve(dirname(path), f));
  } catch (err) {
    const first = (
      err as {
        errors?: { text: string; pluginName?: string; location?: { file: string; line: number } }[];
      }
    ).errors?.[0];
    // A remote module's failure is its own line, naming the URL (remote.ts).
    if (first?.pluginName === 'k6-remote-modules') throw new ScriptLoadError(first.text);
    const where = first?.location ? ` (${first.location.file}:${first.location.line})` : '';
    throw new ScriptLoadError(`cannot load ${path}: ${first ? first.text + where : (err as Error).message}`);
  }
  const imports = scanImports(esm);
  // The same bundle again, straight from the sources, so its source map leads back to them (and
  // through a dist/ bundle's own .map to the TypeScript it was built from): CommonJS, or an ES module
  // when the init context awaits, which CommonJS cannot hold.
  const again = async (format: 'cjs' | 'esm') => {
    const result = await build({
      ...SCRIPT_CJS_OPTIONS,
      format,
      entryPoints: [path],
      write: false,
      logLevel: 'silent',
      absWorkingDir: dirname(path),
      outfile: path,
      allowOverwrite: true,
      plugins: [remoteModulesPlugin(remote), importMetaPlugin()],
    });
    const code = result.outputFiles.find((f) => !f.path.endsWith('.map'))!.text;
    const map = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text;
    return map === undefined ? { code } : { code, map };
  };
  try {
    return { path, imports, files, ...(await again('cjs')) };
  } catch (err) {
    const first = (err as { errors?: { text: string }[] }).errors?.[0];
    if (first?.text.startsWith('Top-level await')) {
      const { code, map } = await again('esm');
      return {
        path,
        imports,
        files,
        code: await esmToAsyncBody(code, path),
        asyncInit: true,
        ...(map ? { map } : {}),
      };
    }
    throw new ScriptLoadError(`cannot load ${path}: ${first ? first.text : (err as Error).message}`);
  }
}
