/**
 * k6's blocking `sleep()` where the loader can keep it: the pass of await-sync.ts's transform that
 * makes each function holding a bare `sleep()` async, awaits the sleep, and awaits the calls of that
 * function up to the exported functions, as for a synchronous k6/http call. Unlike those calls, a
 * sleep needs no refusal: where a function on the way cannot become async (a callback other than
 * group()'s, a getter, setter, constructor or generator, a function used as a value, or one called from
 * the init context), neither it nor the functions it calls are made async, and their sleeps stay bare
 * (the iteration still lasts the sleep; the code after it runs at once).
 */
import type { Node } from 'acorn';

/** An acorn node, as await-sync.ts walks them. */
type AnyNode = Node & Record<string, unknown>;

/** A function of the bundle, as await-sync.ts records it. */
export interface SleepFn {
  node: AnyNode;
  name?: string;
  member?: string;
  isAsync: boolean;
  kind: string;
}

/** A call of the bundle and the function it sits in (null: the init context). */
export interface SleepCall<F extends SleepFn = SleepFn> {
  node: AnyNode;
  fn: F | null;
}

/** What the pass reads from await-sync.ts's walk of the bundle, and the sets it extends. */
export interface SleepGraph<F extends SleepFn> {
  calls: SleepCall<F>[];
  /** Calls by the name (`f()`) or member (`o.f()`) they call, as await-sync.ts resolves them. */
  byName: Map<string, SleepCall<F>[]>;
  byMember: Map<string, SleepCall<F>[]>;
  /** Identifier and member reads that are not calls. */
  valueRefs: Array<{ name: string; node: AnyNode; parent: AnyNode }>;
  memberRefs: Array<{ name: string; node: AnyNode }>;
  /** Is this a call of k6's sleep()? */
  isSleep: (c: SleepCall<F>) => boolean;
  /** The group() call whose callback `n` is, else null. */
  groupCall: (n: AnyNode) => SleepCall<F> | null;
  /** A read of `ref` that is esbuild's export getter (`default: () => main`): the engine's own call. */
  isExportGetter: (ref: { node: AnyNode; parent: AnyNode }) => boolean;
  /** Is this member read one of a k6 module's (`http.get`)? */
  isModuleMember: (n: AnyNode) => boolean;
  /** Functions already made async (synchronous calls) and the calls already awaited; extended here. */
  made: Set<F>;
  awaited: Set<AnyNode>;
}

/** Makes the functions that hold a bare sleep() async where every path allows it (see the file's comment). */
export function awaitBareSleeps<F extends SleepFn>(g: SleepGraph<F>): void {
  const asyncNow = (f: F) => f.isAsync || g.made.has(f);
  const candidates = new Set<F>();
  const bad = new Set<F>();
  /** For each candidate, the calls that reach it (each must be awaited in an async function). */
  const callers = new Map<F, SleepCall<F>[]>();
  const queue: F[] = [];
  const consider = (f: F) => {
    if (asyncNow(f) || candidates.has(f)) return;
    candidates.add(f);
    queue.push(f);
  };
  for (const c of g.calls) if (g.isSleep(c) && c.fn) consider(c.fn);

  while (queue.length > 0) {
    const f = queue.shift()!;
    const reaching: SleepCall<F>[] = [];
    let usable = f.kind === 'function';
    if (f.name) {
      reaching.push(...(g.byName.get(f.name) ?? []));
      for (const r of g.valueRefs) {
        if (r.name !== f.name || g.isExportGetter(r)) continue;
        const group = g.groupCall(r.node);
        if (group) reaching.push(group);
        else usable = false;
      }
    } else if (f.member) {
      reaching.push(...(g.byMember.get(f.member) ?? []));
      if (g.memberRefs.some((r) => r.name === f.member && !g.isModuleMember(r.node))) usable = false;
    } else {
      const group = g.groupCall(f.node);
      const direct = g.calls.find((c) => c.node['callee'] === f.node);
      if (group) reaching.push(group);
      else if (direct) reaching.push(direct);
      else usable = false;
    }
    callers.set(f, reaching);
    if (!usable) bad.add(f);
    for (const c of reaching) {
      if (!c.fn) bad.add(f);
      else consider(c.fn);
    }
  }

  // A function that cannot become async cannot await what it calls: those stay as they are too.
  const spread = [...bad];
  while (spread.length > 0) {
    const caller = spread.pop()!;
    for (const [f, reaching] of callers) {
      if (bad.has(f) || !reaching.some((c) => c.fn === caller)) continue;
      bad.add(f);
      spread.push(f);
    }
  }
  for (const f of candidates) if (!bad.has(f)) g.made.add(f);
  for (const [f, reaching] of callers)
    if (!bad.has(f)) for (const c of reaching) if (c.fn && asyncNow(c.fn)) g.awaited.add(c.node);
  for (const c of g.calls) if (g.isSleep(c) && c.fn && asyncNow(c.fn)) g.awaited.add(c.node);
}
