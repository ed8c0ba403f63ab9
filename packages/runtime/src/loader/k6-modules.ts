/**
 * Maps `k6` and `k6/*` specifiers to the runtime's modules and checks, at load time, that every
 * name a script imports exists: anything else fails with "k6 API <name> is not supported by the
 * Node runtime; run with k6". Protocol modules load only when a script imports them.
 */
import type { ModuleImports } from './bundle.ts';
import { ScriptLoadError } from './load-error.ts';
import { logLine } from '../log.ts';

type Namespace = Record<string, unknown>;

// Every module loads on demand: a script that does not import k6/net/grpc never loads grpc-js (the
// prebuilt runtime keeps each in its own chunk, see build.ts).
const LOADERS: Record<string, () => Promise<Namespace>> = {
  k6: () => import('../modules/k6.ts'),
  'k6/metrics': () => import('../modules/metrics.ts'),
  'k6/data': () => import('../modules/data.ts'),
  'k6/execution': () => import('../modules/execution.ts'),
  'k6/encoding': () => import('../modules/encoding.ts'),
  'k6/crypto': () => import('../modules/crypto.ts'),
  'k6/timers': () => import('../modules/timers.ts'),
  'k6/http': () => import('../modules/http.ts'),
  'k6/html': () => import('../modules/html.ts'),
  'k6/net/grpc': () => import('../modules/grpc.ts'),
  'k6/secrets': () => import('../modules/secrets.ts'),
  'k6/experimental/fs': () => import('../modules/fs.ts'),
  'k6/experimental/csv': () => import('../modules/csv.ts'),
  'k6/experimental/streams': () => import('../modules/streams.ts'),
  // xk6-sse's extension module (github.com/phymbert/xk6-sse), with its API.
  'k6/x/sse': () => import('../modules/sse.ts'),
  'k6/ws': () => import('../modules/ws.ts'),
  'k6/websockets': () => import('../modules/websockets.ts'),
  'k6/experimental/websockets': () => import('../modules/websockets.ts'),
};

/** k6's deprecated names that still load, with their successors: k6 warns when a script imports one. */
const DEPRECATED: Record<string, string> = { 'k6/experimental/websockets': 'k6/websockets' };

/** The message k6-triton gives for every k6 API it does not implement. */
export function unsupported(name: string): string {
  return `k6 API ${name} is not supported by the Node runtime; run with k6`;
}

/** Loads the k6 modules a script imports; returns specifier → CommonJS-style exports for `require`. */
export async function resolveK6Modules(
  imports: Map<string, ModuleImports>,
  scriptDir: string,
  options: { promiseForms?: boolean; blocking?: boolean } = {},
): Promise<Map<string, Namespace>> {
  const out = new Map<string, Namespace>();
  for (const [spec, used] of imports) {
    const load = LOADERS[spec];
    if (!load && used.requiredOnly) continue;
    if (!load) throw new ScriptLoadError(unsupported(spec));
    const successor = DEPRECATED[spec];
    if (successor)
      logLine(
        'WARN',
        `${spec} is deprecated and will be removed in a future release. Please use ${successor} instead.`,
      );
    let ns: Namespace;
    try {
      ns = await load();
    } catch (err) {
      throw new ScriptLoadError(`cannot load the runtime's ${spec} module: ${(err as Error).message}`);
    }
    const def = (ns['default'] ?? {}) as Namespace;
    // Functions a module can only refuse (k6/http's synchronous calls) fail now, with their own message,
    // unless the script reads asyncRequest too: then it picks the form at run time (as lib/scenario does).
    // A script whose bundle awaits them (await-sync.ts) gets their promise forms instead, and a blocking
    // VU (blocking/) its blocking forms.
    const refused =
      used.names.has('asyncRequest') || options.promiseForms || options.blocking
        ? []
        : ((ns['SYNC_HTTP_FUNCTIONS'] as string[] | undefined) ?? []);
    for (const name of used.names) {
      if (!(name in ns) && !(name in def)) throw new ScriptLoadError(unsupported(`${spec}.${name}`));
      if (refused.includes(name)) {
        try {
          (ns[name] as () => unknown)();
        } catch (err) {
          throw new ScriptLoadError((err as Error).message);
        }
      }
    }
    // k6 resolves Client.load() proto paths relative to the script.
    if (typeof ns['setProtoBaseDir'] === 'function')
      (ns['setProtoBaseDir'] as (d: string) => void)(scriptDir);
    const forms = options.promiseForms ? (ns['PROMISE_FORMS'] as Namespace | undefined) : undefined;
    if (forms) ns = { ...ns, ...forms, default: { ...def, ...forms } };
    // __esModule tells esbuild's interop that `default` is the default export.
    out.set(spec, Object.assign({ __esModule: true }, ns));
  }
  return out;
}
