/**
 * A loaded script: compiled once, evaluated once per VU (k6's per-VU init context) by calling
 * the compiled wrapper with that VU's `require`, `module` and `console`. Globals k6 scripts use
 * (__VU, __ITER, __ENV, open) are getters on globalThis that read the current VU from the async
 * context, so they stay right although VUs interleave on one event loop.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { runInThisContext } from 'node:vm';
import { k6Console } from '../log.ts';
import { VU } from '../vu.ts';
import { maybeCurrentVu, runInVu, type VuState } from '../vu-context.ts';
import { bundleScript, ScriptLoadError } from './bundle.ts';
import { resolveK6Modules } from './k6-modules.ts';
import { registerSourceMap } from './source-map.ts';

type Wrapper = (
  exports: object,
  require: (spec: string) => unknown,
  module: { exports: object },
  __filename: string,
  __dirname: string,
  console: typeof k6Console,
) => void;

/** The VU whose code runs now, as the runtime's VU class (k6 globals need its run). */
function vuOrNull(): VU | null {
  const s = maybeCurrentVu();
  return s instanceof VU ? s : null;
}

/**
 * k6's open(): only in the init context, paths relative to the script; the file is read once
 * per test run and every VU gets the same string or ArrayBuffer (held in memory once).
 */
export function k6Open(path: string, mode?: string): string | ArrayBuffer {
  const vu = vuOrNull();
  if (!vu) throw new Error('open() called outside a VU');
  if (!vu.inInit)
    throw new Error('The "open()" function is only available in the init stage (i.e. the global scope)');
  if (mode !== undefined && mode !== 'b' && mode !== 'r')
    throw new Error(`open(): mode must be 'b' or omitted, got "${mode}"`);
  const abs = resolve(dirname(vu.run.scriptPath), String(path));
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

const getVu = () => vuOrNull()?.idInTest ?? 0;
const getIter = () => Math.max(0, vuOrNull()?.iterationInScenario ?? 0);
const getEnv = () => vuOrNull()?.env ?? {};

/** A global the runtime owns; assigning it (other code sharing the process) replaces it with a plain value. */
function owned(name: string, get: () => unknown): PropertyDescriptor {
  return {
    configurable: true,
    get,
    set(value: unknown) {
      Object.defineProperty(globalThis, name, { configurable: true, writable: true, value });
    },
  };
}

/** Defines __VU, __ITER, __ENV and open on globalThis; again if something replaced them since. */
export function installGlobals(): void {
  const has = (name: string, get: () => unknown) =>
    Object.getOwnPropertyDescriptor(globalThis, name)?.get === get;
  if (has('__VU', getVu) && has('__ITER', getIter) && has('__ENV', getEnv) && globalThis.open === k6Open)
    return;
  Object.defineProperties(globalThis, {
    __VU: owned('__VU', getVu),
    __ITER: owned('__ITER', getIter),
    __ENV: owned('__ENV', getEnv),
    open: { configurable: true, writable: true, value: k6Open },
  });
}

/** A compiled script plus the k6 modules it imports. */
export class Program {
  constructor(
    readonly path: string,
    readonly wrapper: Wrapper,
    readonly modules: Map<string, Record<string, unknown>>,
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

  /** Evaluates the init context for `vu` and returns the module's exports. */
  instantiate(vu: VU): Record<string, unknown> {
    const module = { exports: {} as Record<string, unknown> };
    const require = (spec: string): unknown => {
      const m = this.modules.get(spec);
      if (!m) throw new ScriptLoadError(`cannot find module "${spec}"`);
      return m;
    };
    vu.inInit = true;
    try {
      runInVu(vu, () =>
        this.wrapper(module.exports, require, module, this.path, dirname(this.path), k6Console),
      );
    } finally {
      vu.inInit = false;
    }
    vu.exports = module.exports;
    return module.exports;
  }
}

/** Bundles, checks and compiles the script at `path`. */
export async function loadProgram(path: string): Promise<Program> {
  installGlobals();
  const abs = resolve(path);
  const bundled = await bundleScript(abs);
  const modules = await resolveK6Modules(bundled.imports, dirname(abs));
  let wrapper: Wrapper;
  try {
    wrapper = runInThisContext(
      `(function (exports, require, module, __filename, __dirname, console) {${bundled.code}\n})`,
      { filename: abs },
    ) as Wrapper;
  } catch (err) {
    throw new ScriptLoadError(`cannot compile ${abs}: ${(err as Error).message}`);
  }
  if (bundled.map) registerSourceMap(abs, bundled.map);
  return new Program(abs, wrapper, modules);
}
