/**
 * Remote modules, as k6's loader has them: `https://` imports are fetched when the script loads (first with
 * `?_k6=1`, then without, as k6 does), relative imports inside a remote module resolve against its URL,
 * `http://` and other schemes are refused with k6's words, and so are the old `github.com/…` and
 * `cdnjs.com/…` shorthands k6 dropped. Fetched sources are kept in memory for the run (k6 keeps no cache
 * across runs either); an archive's `https/<host>/<path>` tree is read first, so an archive runs offline.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { trustedRoots } from '../transport/tls-client.ts';
import { resolveSpecifier, rewriteImportMeta } from './import-meta.ts';
import { ScriptLoadError } from './load-error.ts';

/** One load's remote modules: what was fetched (URL → source), and an archive's folder to read first. */
export interface RemoteModules {
  /** Sources by URL, filled as modules load; an archive writes them under https/<host>/<path>. */
  sources: Map<string, string>;
  /** A folder holding an archive's trees (`https/<host>/<path>`), read before the network. */
  archiveDir?: string;
}

/** A new, empty store for one load. */
export function remoteModules(archiveDir?: string): RemoteModules {
  return archiveDir ? { sources: new Map(), archiveDir } : { sources: new Map() };
}

const NAMESPACE = 'k6-remote';

/** k6's refusal of the shorthands it dropped, else undefined. */
function shorthandRefusal(spec: string): string | undefined {
  for (const host of ['cdnjs.com', 'github.com'])
    if (spec.startsWith(host))
      return `${host} 'special' urls are no longer supported - please use real ones. You can get yours by going to ${host === 'github.com' ? 'github' : 'cdnjs'} and copy-pasting the full url to the actual ${host === 'github.com' ? 'raw ' : ''}JavaScript file`;
  return undefined;
}

/** Where an archive keeps a remote module: https/<host><path> (k6's layout). */
export function archivePath(url: string): string {
  const u = new URL(url);
  return join('https', u.host, decodeURIComponent(u.pathname));
}

/** The module's source from an archive's tree, or undefined when the archive lacks it. */
function fromArchive(dir: string, url: string): string | undefined {
  try {
    return readFileSync(join(dir, archivePath(url)), 'utf8');
  } catch {
    return undefined;
  }
}

/** GET `url` with the roots Go would trust (SSL_CERT_FILE/SSL_CERT_DIR, else Node's bundle and NODE_EXTRA_CA_CERTS). */
async function get(url: string): Promise<string> {
  const { Agent, request } = await import('undici');
  const ca = trustedRoots();
  const dispatcher = new Agent({ connect: ca ? { ca } : {}, connectTimeout: 60_000 });
  try {
    const res = await request(url, { dispatcher, headersTimeout: 60_000, bodyTimeout: 60_000 });
    const text = await res.body.text();
    if (res.statusCode === 404) throw new Error(`not found: ${url}`);
    if (res.statusCode !== 200) throw new Error(`wrong status code (${res.statusCode}) for: ${url}`);
    return text;
  } finally {
    void dispatcher.close();
  }
}

/** Why a fetch failed, in one line (undici wraps the socket's error as the cause). */
function reason(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
}

/** Fetches a remote module as k6 does: with `?_k6=1` first, then as written. */
export async function fetchModule(url: string, original = url): Promise<string> {
  const marked = new URL(url);
  marked.search = marked.search ? `${marked.search}&_k6=1` : '?_k6=1';
  try {
    return await get(marked.href);
  } catch {
    try {
      return await get(url);
    } catch (err) {
      // k6's message, then what to do about it: one line.
      throw new ScriptLoadError(
        `The moduleSpecifier "${original}" couldn't be retrieved from the resolved url "${url}". Error : "${reason(err)}" (make the URL reachable from this machine, or run an archive made where it is: k6-triton archive)`,
      );
    }
  }
}

/** The URL a specifier names from a remote module at `base` (or a local file when base is undefined). */
function resolveRemote(spec: string, base: string | undefined): string {
  const refusal = shorthandRefusal(spec);
  if (refusal) throw new ScriptLoadError(refusal);
  const url = resolveSpecifier(base ?? 'file:///', spec);
  if (base === undefined || url.startsWith('https:')) return url;
  throw new ScriptLoadError(`origin (${base}) not allowed to load local file: ${spec}`);
}

/** The esbuild plugin that loads remote modules into the bundle (see the file's comment). */
export function remoteModulesPlugin(store: RemoteModules): Plugin {
  return {
    name: 'k6-remote-modules',
    setup(build) {
      const fail = (err: unknown) => ({ errors: [{ text: (err as Error).message }] });
      // Any URL-like specifier, and the dropped shorthands, from any module.
      build.onResolve({ filter: /^([a-zA-Z][\w+.-]*:\/\/|cdnjs\.com|github\.com)/ }, (args) => {
        if (args.path.startsWith('file://')) return undefined;
        try {
          return { path: resolveRemote(args.path, undefined), namespace: NAMESPACE };
        } catch (err) {
          return fail(err);
        }
      });
      // Inside a remote module: k6 modules stay external, paths resolve against the module's URL.
      build.onResolve({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        if (/^k6(\/|$)/.test(args.path)) return { path: args.path, external: true };
        try {
          return { path: resolveRemote(args.path, args.importer), namespace: NAMESPACE };
        } catch (err) {
          return fail(err);
        }
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async (args) => {
        let source = store.sources.get(args.path);
        if (source === undefined && store.archiveDir) source = fromArchive(store.archiveDir, args.path);
        try {
          source ??= await fetchModule(args.path);
        } catch (err) {
          return fail(err);
        }
        store.sources.set(args.path, source);
        // k6's import.meta, resolving against the module's URL (import-meta.ts).
        const contents = source.includes('import.meta')
          ? await rewriteImportMeta(source, args.path, args.path)
          : source;
        return { contents, loader: 'js' };
      });
    },
  };
}
