/**
 * Stack traces for thrown values that are not Errors (`throw 'boom'`), which k6 prints with their
 * source-mapped frames and V8 records none for: the loader wraps such throw statements' values in
 * `__k6tThrown(...)` (inserted within the line, so lines keep their numbers), which records the
 * stack where the value was thrown; the iteration's error log reads it back.
 */
import { type AnyNode, parseBundle } from './await-sync.ts';

/** Throw statements whose value is not written as `new ...Error(...)`: only these need wrapping. */
const MAYBE_NOT_ERROR = /\bthrow\s+(?!new\s+[\w$.]*Error\s*\()/;
/** The name the wrapper gives the recording function (program.ts). */
export const THROWN_FN = '__k6tThrown';

/** Where each recorded value was last thrown (bounded: a script may throw many distinct strings). */
const stacks = new Map<unknown, string>();
const objectStacks = new WeakMap<object, string>();
const MAX_STACKS = 256;

/** Records where a non-Error value is thrown and returns it unchanged (Errors carry their own stack). */
export function recordThrown(v: unknown): unknown {
  if (v instanceof Error) return v;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, recordThrown);
  const frames = (holder.stack ?? '').split('\n').slice(1).join('\n');
  if (v !== null && (typeof v === 'object' || typeof v === 'function')) objectStacks.set(v, frames);
  else {
    if (stacks.size >= MAX_STACKS) stacks.clear();
    stacks.set(v, frames);
  }
  return v;
}

/** The frames recorded where `v` was last thrown, or undefined. */
export function thrownFrames(v: unknown): string | undefined {
  return v !== null && (typeof v === 'object' || typeof v === 'function')
    ? objectStacks.get(v)
    : stacks.get(v);
}

/** The bundle with each throw statement's value that may not be an Error wrapped in __k6tThrown(...). */
export async function markThrows(code: string, path: string): Promise<string> {
  if (!MAYBE_NOT_ERROR.test(code)) return code;
  const ast = await parseBundle(code, path);
  const args: AnyNode[] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    if (!n || typeof n !== 'object' || typeof (n as AnyNode).type !== 'string') return;
    const node = n as AnyNode;
    if (node.type === 'ThrowStatement') {
      const arg = node['argument'] as AnyNode;
      if (arg.type !== 'NewExpression') args.push(arg);
    }
    for (const key of Object.keys(node)) if (key !== 'type') visit(node[key]);
  };
  visit(ast);
  let out = '';
  let at = 0;
  for (const a of args.sort((x, y) => x.start - y.start)) {
    if (a.start < at) continue; // a throw inside another's value: the outer one is wrapped
    // `throw a, b` throws b: a sequence stays one argument, in parentheses.
    const value = code.slice(a.start, a.end);
    out += `${code.slice(at, a.start)}${THROWN_FN}(${a.type === 'SequenceExpression' ? `(${value})` : value})`;
    at = a.end;
  }
  return out + code.slice(at);
}
