/**
 * A loaded script: compiled once, evaluated once per VU (k6's per-VU init context) by calling
 * the compiled wrapper with that VU's `require`, `module` and `console`. The k6 globals (__VU, __ITER,
 * __ENV, open) are variables of the VU's own closure around the script, which the VU updates as its
 * iteration and scenario change, so they stay right although VUs interleave on one event loop; the
 * script's own declarations of those names shadow them, as they would shadow globals.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { runInThisContext } from 'node:vm';
import { k6Console } from '../log.ts';
import type { VU } from '../vu.ts';
import { bindToVu, runInVu, type VuState } from '../vu-context.ts';
import {
  awaitSyncCalls,
  needsAwaitSync,
  parseBundle,
  readsAsyncForms,
  SyncRefusedError,
} from './await-sync.ts';
import {
  BLOCKING_MODULES,
  type BlockingReason,
  blockingRefusal,
  VU_MODE_ENV,
  type VuMode,
} from '../blocking/mode.ts';
import { anonymizePath } from '../archive/anonymize.ts';
import { bundleScript } from './bundle.ts';
import { type RemoteModules, remoteModules } from './remote.ts';
import { ScriptLoadError } from './load-error.ts';
import { ESM_INIT_HELPERS } from './esm-init.ts';
import { IMPORT_META_FN, importMetaFactory } from './import-meta.ts';
import type { MetricType } from '../metrics/registry.ts';
import { k6Crypto } from '../webcrypto.ts';
import { resolveK6Modules } from './k6-modules.ts';
import { registerSourceMap } from './source-map.ts';
import { markThrows, recordThrown, THROWN_FN } from './thrown.ts';

type ScriptFn = (
  exports: object,
  require: (spec: string) => unknown,
  module: { exports: object },
  __filename: string,
  __dirname: string,
  console: typeof k6Console,
) => unknown;

/** What a VU's closure around the script starts from, and the hook that keeps it current. */
interface ScriptScope {
  vu: number;
  env: Record<string, string>;
  open: (path: string, mode?: string) => string | ArrayBuffer;
  /** The global timers: the VU's k6/timers when the script uses them (k6's semantics), else Node's. */
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout' | 'setInterval' | 'clearInterval'>;
  /** The global `crypto` (webcrypto.ts). */
  crypto: typeof k6Crypto;
  /** A module's `import.meta`, by its file URL (loader/import-meta.ts). */
  importMeta: ReturnType<typeof importMetaFactory>;
  /** Records where a value that is not an Error is thrown (loader/thrown.ts). */
  thrown: (v: unknown) => unknown;
  /** Receives the setter the VU calls when its iteration or environment changes. */
  track: (update: (iteration: number, env: Record<string, string>) => void) => void;
}

type Wrapper = (scope: ScriptScope) => ScriptFn;

/** A script that names the global timers gets k6's (modules/timers.ts). */
const TIMER_GLOBALS_RE = /\bset(?:Timeout|Interval)\b/;

/**
 * k6's open(): only in the init context, paths relative to the script; the file is read once
 * per test run and every VU gets the same string or ArrayBuffer (held in memory once).
 */
export function k6Open(vu: VU, path: string, mode?: string): string | ArrayBuffer {
  if (!vu.inInit)
    throw new Error('The "open()" function is only available in the init stage (i.e. the global scope)');
  if (mode !== undefined && mode !== 'b' && mode !== 'r')
    throw new Error(`open(): mode must be 'b' or omitted, got "${mode}"`);
  const name = String(path);
  const abs =
    vu.run.fileRoot && isAbsolute(name)
      ? join(vu.run.fileRoot, anonymizePath(name))
      : resolve(dirname(vu.run.scriptPath), name);
  let entry = vu.run.openCache.get(abs);
  if (!entry) {
    entry = {};
    vu.run.openCache.set(abs, entry);
  }
  if (mode === 'b') {
    if (!entry.binary) {
      const buf = readFileSync(abs);
      entry.binary = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    }
    return entry.binary;
  }
  entry.text ??= readFileSync(abs, 'utf8');
  return entry.text;
}

/**
 * The script wrapped in a closure of k6 globals (see ScriptScope). The prefix stays on the script's first
 * line, so generated line numbers (stack traces, source maps) are the bundle's own.
 */
function wrapperSource(code: string, asyncInit: boolean): string {
  const prefix = [
    '(function (__k6) {',
    'let __VU = __k6.vu, __ITER = 0, __ENV = __k6.env; const open = __k6.open;',
    'const { setTimeout, clearTimeout, setInterval, clearInterval } = __k6.timers; const crypto = __k6.crypto;',
    `const ${THROWN_FN} = __k6.thrown;`,
    `const ${IMPORT_META_FN} = __k6.importMeta;`,
    '__k6.track(function (iteration, env) { __ITER = iteration; __ENV = env; });',
    // k6 runs scripts as ES modules, strict code (CommonJS modules too); an init context that awaits
    // (esm-init.ts) is an async function's body.
    asyncInit
      ? `return async function (exports, require, module, __filename, __dirname, console) { "use strict"; ${ESM_INIT_HELPERS}`
      : 'return function (exports, require, module, __filename, __dirname, console) { "use strict";',
  ].join(' ');
  return `${prefix}${code}\n}; })`;
}

/** What a VU thread needs to compile the script as the engine did (blocking mode, blocking/). */
export interface ThreadSource {
  path: string;
  /** The wrapped script (wrapperSource). */
  wrapped: string;
  asyncInit: boolean;
  imports: [string, { names: string[]; requiredOnly?: boolean }][];
  map?: string;
}

/** A run in blocking VU mode: why, and the source its VU threads compile. */
export interface BlockingPlan {
  reason: BlockingReason;
  source: ThreadSource;
}

/** Compiles a wrapped script (wrapperSource) under the script's file name. */
export function compileWrapped(wrapped: string, path: string): Wrapper {
  try {
    return runInThisContext(wrapped, { filename: path }) as Wrapper;
  } catch (err) {
    throw new ScriptLoadError(`cannot compile ${path}: ${(err as Error).message}`);
  }
}

/** A compiled script plus the k6 modules it imports. */
export class Program {
  /** Set when the VUs run in blocking mode (each on its own thread, blocking/). */
  blocking: BlockingPlan | null = null;
  /** The local files the script was bundled from (absolute paths), for archives. */
  files: string[] = [];

  constructor(
    readonly path: string,
    readonly wrapper: Wrapper,
    readonly modules: Map<string, Record<string, unknown>>,
    /** The init context awaits (top-level `await`): instantiate() returns a promise. */
    readonly asyncInit = false,
  ) {}

  /** Waits modules ask the engine to honour at the end of every iteration (grpc streams). */
  iterationHooks(): ((vu: VuState) => Promise<void>)[] {
    const hooks: ((vu: VuState) => Promise<void>)[] = [];
    for (const ns of this.modules.values()) {
      if (typeof ns['waitForStreams'] === 'function')
        hooks.push(ns['waitForStreams'] as (vu: VuState) => Promise<void>);
    }
    return hooks;
  }

  /** Metrics an extension module registers when it loads (xk6-sse's sse_event), so thresholds can name them. */
  moduleMetrics(): [string, MetricType][] {
    const out: [string, MetricType][] = [];
    for (const ns of this.modules.values())
      out.push(...((ns['MODULE_METRICS'] as [string, MetricType][] | undefined) ?? []));
    return out;
  }

  /**
   * Evaluates the init context for `vu` and returns the module's exports, or a promise of them when the
   * init context awaits; the VU stays in its init context (open() allowed) until that promise settles.
   */
  instantiate(vu: VU): Record<string, unknown> | Promise<Record<string, unknown>> {
    const module = { exports: {} as Record<string, unknown> };
    // The VU's own copy of each k6 module, bound to it (k6 too gives each VU its module instances).
    const seen = new Map<unknown, unknown>();
    const modules = new Map<string, unknown>();
    for (const [spec, ns] of this.modules) modules.set(spec, bindToVu(ns, vu, seen));
    const require = (spec: string): unknown => {
      const m = modules.get(spec);
      if (!m) throw new ScriptLoadError(`cannot find module "${spec}"`);
      return m;
    };
    const script = this.wrapper({
      vu: vu.idInTest,
      env: vu.env,
      open: (path, mode) => k6Open(vu, path, mode),
      timers: (modules.get('k6/timers') as ScriptScope['timers'] | undefined) ?? globalThis,
      crypto: k6Crypto,
      thrown: recordThrown,
      importMeta: importMetaFactory(),
      track: (update) => vu.trackScriptGlobals(update),
    });
    const done = () => {
      vu.inInit = false;
      vu.exports = module.exports;
      return module.exports;
    };
    vu.inInit = true;
    let result: unknown;
    try {
      result = runInVu(vu, () =>
        script(module.exports, require, module, this.path, dirname(this.path), k6Console),
      );
    } catch (err) {
      vu.inInit = false;
      throw err;
    }
    if (!this.asyncInit) return done();
    return (result as Promise<void>).then(done, (err: unknown) => {
      vu.inInit = false;
      throw err;
    });
  }
}

/**
 * Bundles, checks and compiles the script at `path`; `vuMode` forces a VU mode (default auto); `remote`
 * holds its remote modules (an archive's, or a new store that fetches them).
 */
export async function loadProgram(
  path: string,
  vuMode: VuMode = 'auto',
  remote: RemoteModules = remoteModules(),
): Promise<Program> {
  const abs = resolve(path);
  const bundled = await bundleScript(abs, remote);
  // The script's global timers are k6's (program scope below), so their module loads with the script's.
  if (TIMER_GLOBALS_RE.test(bundled.code) && !bundled.imports.has('k6/timers'))
    bundled.imports.set('k6/timers', { names: new Set() });
  let reason: BlockingReason | null = vuMode === 'blocking' ? { why: `${VU_MODE_ENV}=blocking` } : null;
  let awaitSync = !reason && needsAwaitSync(bundled.imports, bundled.code);
  // k6's sleep() blocks: code after a bare sleep() runs after it wherever the transform can keep that
  // (a blocking VU's sleep() blocks its thread).
  const sleeps = !reason && bundled.imports.get('k6')?.names.has('sleep') === true;
  // k6/ws's connect() has no asynchronous form: it is awaited whatever else the script does.
  if (!reason && (awaitSync || sleeps || bundled.imports.has('k6/ws'))) {
    // Parsed once: a refused transform is tried again without the synchronous calls.
    const ast = await parseBundle(bundled.code, abs);
    const transform = (sync: boolean) =>
      awaitSyncCalls(bundled.code, {
        ast,
        path: abs,
        grpc: sync && bundled.imports.has('k6/net/grpc'),
        http: sync,
        sleep: sleeps,
        responses: sync && bundled.imports.has('k6/http'),
        ...(bundled.map ? { map: bundled.map } : {}),
      });
    try {
      bundled.code = await transform(awaitSync);
    } catch (err) {
      if (err instanceof SyncRefusedError && awaitSync && readsAsyncForms(bundled.imports, bundled.code)) {
        // A script that reads the async forms keeps the synchronous calls the transform cannot await.
        awaitSync = false;
        bundled.code = await transform(false);
      } else {
        // Where the transform cannot keep k6's semantics, each VU gets a thread that blocks instead,
        // unless the script needs a module blocking VUs lack (then the refusal stands).
        const blockable =
          err instanceof SyncRefusedError &&
          vuMode === 'auto' &&
          [...bundled.imports.keys()].every((spec) => BLOCKING_MODULES.has(spec));
        if (!blockable) throw err;
        reason = { why: err.place };
      }
    }
  }
  if (reason)
    for (const spec of bundled.imports.keys())
      if (!BLOCKING_MODULES.has(spec)) throw blockingRefusal(spec, reason);
  bundled.code = await markThrows(bundled.code, abs);
  const modules = await resolveK6Modules(bundled.imports, dirname(abs), {
    promiseForms: awaitSync && reason === null,
    blocking: reason !== null,
  });
  const asyncInit = bundled.asyncInit ?? false;
  const wrapped = wrapperSource(bundled.code, asyncInit);
  const wrapper = compileWrapped(wrapped, abs);
  if (bundled.map) registerSourceMap(abs, bundled.map);
  const program = new Program(abs, wrapper, modules, asyncInit);
  program.files = bundled.files ?? [abs];
  if (reason) {
    const imports = [...bundled.imports].map(
      ([spec, used]) =>
        [spec, { names: [...used.names], ...(used.requiredOnly ? { requiredOnly: true } : {}) }] as [
          string,
          { names: string[]; requiredOnly?: boolean },
        ],
    );
    program.blocking = {
      reason,
      source: { path: abs, wrapped, asyncInit, imports, ...(bundled.map ? { map: bundled.map } : {}) },
    };
  }
  return program;
}
