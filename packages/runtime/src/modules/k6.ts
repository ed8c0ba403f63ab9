/** The `k6` module: check, group, sleep, fail, randomSeed, with k6's semantics and metrics. */
import { currentRuntimeVu } from '../vu.ts';

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
  const checks = vu.run.registry.get('checks')!;
  const base = vu.tags();
  let all = true;
  for (const name of Object.keys(sets)) {
    const c = sets[name];
    const ok = Boolean(typeof c === 'function' ? (c as (v: unknown) => unknown)(value) : c);
    const stats = vu.group.check(name);
    if (ok) stats.passes++;
    else {
      stats.fails++;
      all = false;
    }
    const t: Record<string, string> = { ...base, check: name };
    if (tags) for (const k of Object.keys(tags)) t[k] = String(tags[k]);
    if (!vu.retired) vu.run.pipeline.add(checks, ok ? 1 : 0, t);
  }
  return all;
}

/**
 * Runs fn inside group `name` (nested groups get path ::a::b), emits group_duration and returns
 * fn's result; an async fn keeps the group until its promise settles.
 */
export function group<T>(name: string, fn: () => T): T {
  const vu = currentRuntimeVu();
  if (typeof name !== 'string' || name === '') throw new Error('group() needs a non-empty name');
  const parent = vu.group;
  const g = parent.group(name);
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

/** Throws an error with `message`, ending the iteration as k6's fail() does. */
export function fail(message?: string): never {
  throw new Error(message ?? '');
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
