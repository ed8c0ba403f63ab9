/** The `k6` module: check, group, sleep, fail, randomSeed, with k6's semantics and metrics. */
import { NAME_WITH_SEPARATOR } from '../groups.ts';
import { currentRuntimeVu } from '../vu.ts';
import { GoError } from './go-error.ts';

type Checker = ((value: unknown) => unknown) | unknown;

/**
 * Runs each named check against `value`, emits one `checks` sample per check (tag `check`) and
 * counts it in the current group; returns true when all pass.
 */
export function check(
  value: unknown,
  sets: Record<string, Checker>,
  tags?: Record<string, unknown>,
): boolean {
  const vu = currentRuntimeVu();
  if (sets === undefined || sets === null) throw new GoError('no checks provided to `check`');
  const checks = vu.run.registry.get('checks')!;
  const base = vu.tags();
  let all = true;
  for (const name of Object.keys(sets)) {
    if (name.includes('::')) throw new GoError(NAME_WITH_SEPARATOR);
    const c = sets[name];
    if (isAsyncFunction(c)) throw new GoError(ASYNC_CHECK);
    // A check that throws counts as failed, then its error ends the check() call, as in k6.
    let thrown: { err: unknown } | null = null;
    let ok = false;
    try {
      ok = Boolean(typeof c === 'function' ? (c as (v: unknown) => unknown)(value) : c);
    } catch (err) {
      thrown = { err };
    }
    const stats = vu.group.check(name);
    if (ok) stats.passes++;
    else {
      stats.fails++;
      all = false;
    }
    const t: Record<string, string> = { ...base, check: name };
    if (tags) for (const k of Object.keys(tags)) t[k] = String(tags[k]);
    if (!vu.retired) vu.run.pipeline.add(checks, ok ? 1 : 0, t);
    if (thrown) throw thrown.err;
  }
  return all;
}

const ASYNC_CHECK =
  'the built-in check() does not support async functions as arguments. Use the JavaScript utils library as a ' +
  'replacement. Refer to https://grafana.com/docs/k6/latest/javascript-api/jslib/utils/check/ for more info';

const isAsyncFunction = (f: unknown): boolean =>
  typeof f === 'function' && Object.prototype.toString.call(f) === '[object AsyncFunction]';

/**
 * Runs fn inside group `name` (nested groups get path ::a::b), emits group_duration and returns
 * fn's result; an async fn keeps the group until its promise settles.
 */
export function group<T>(name: string, fn: () => T): T {
  const vu = currentRuntimeVu();
  if (typeof fn !== 'function') throw new GoError('group() requires a callback as a second argument');
  if (String(name).includes('::')) throw new GoError(NAME_WITH_SEPARATOR);
  const parent = vu.group;
  // k6 keeps an empty name at the root in the root (path ""); elsewhere it nests as any name.
  const g = name === '' && parent.parent === null ? parent : parent.group(String(name));
  vu.setGroup(g);
  const start = performance.now();
  const finish = () => {
    const tags = vu.tags();
    vu.setGroup(parent);
    if (!vu.retired)
      vu.run.pipeline.add(vu.run.registry.get('group_duration')!, performance.now() - start, tags);
  };
  let result: T;
  try {
    result = fn();
  } catch (err) {
    finish();
    throw err;
  }
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    return (result as unknown as Promise<unknown>).then(
      (v) => {
        finish();
        return v;
      },
      (err) => {
        finish();
        throw err;
      },
    ) as T;
  }
  finish();
  return result;
}

/**
 * Pauses the VU for `seconds`. Awaiting it waits; a bare call holds the iteration open until the
 * time has passed (see docs/runtime-design.md: one event loop cannot block synchronously).
 */
export function sleep(seconds: number): PromiseLike<void> {
  return currentRuntimeVu().sleep(seconds);
}

/** Throws k6's GoError with `message`, ending the iteration as k6's fail() does. */
export function fail(message?: string): never {
  throw new GoError(message === undefined ? '' : String(message));
}

/** Seeds Math.random for this process (k6 seeds it per VU; one event loop shares one generator). */
export function randomSeed(seed: number): void {
  let s = Math.floor(Number(seed)) >>> 0 || 1;
  Math.random = () => {
    // xorshift32: deterministic, fast, good enough for test-data choices.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

export default { check, group, sleep, fail, randomSeed };
