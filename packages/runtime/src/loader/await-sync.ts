/**
 * k6's synchronous calls on one event loop: a transform of the script's CommonJS bundle that awaits
 * every synchronous k6/http call (and gRPC `invoke`, and k6/ws's `connect`), makes the functions that contain one `async`, and
 * awaits every call of those functions in turn, up to the exported functions the engine calls (which
 * may be async). In a function made async, `sleep()` is awaited too, so code after it runs after the
 * sleep as in k6. The transform is sound only where every path from an exported function to a
 * synchronous call goes through plain calls; a function that would become async but is used any other
 * way (a callback to `forEach`, a timer, a getter, a constructor) is refused at load with a one-line
 * error naming it and its line. Edits only insert text within a line, so line numbers stay the bundle's.
 */
import type { Node } from 'acorn';
import { dirname } from 'node:path';
import { awaitBareSleeps } from './await-sleep.ts';
import { ScriptLoadError } from './load-error.ts';
import { SYNC_HTTP_FUNCTIONS } from '../modules/http-sync-names.ts';
import { SourceMapper } from './source-map.ts';
import { applyEdits } from './text-edits.ts';

const SYNC_HTTP = new Set(SYNC_HTTP_FUNCTIONS);

/** gRPC Client methods that are synchronous in k6 and promises here. */
const GRPC_AWAITED = new Set(['invoke', 'connect', 'healthCheck']);
/** k6/http Response methods that make a (synchronous in k6) request. */
const RESPONSE_AWAITED = new Set(['submitForm', 'clickLink']);

export type AnyNode = Node & Record<string, unknown>;

/** acorn's parse of a CommonJS bundle; a syntax error is the script's load error. */
export async function parseBundle(code: string, path: string): Promise<AnyNode> {
  const { parse } = await import('acorn');
  try {
    return parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowHashBang: true,
      // A script whose init context awaits is an async function's body (esm-init.ts).
      allowAwaitOutsideFunction: true,
    }) as unknown as AnyNode;
  } catch (err) {
    throw new ScriptLoadError(`cannot load ${path}: ${(err as Error).message}`);
  }
}

/** The transform's refusal: `place` says where and what ("script.js:6:35 a callback makes a synchronous call"). */
export class SyncRefusedError extends ScriptLoadError {
  constructor(
    message: string,
    readonly place: string,
  ) {
    super(message);
  }
}

interface Fn {
  node: AnyNode;
  /** The name a call reaches it by: a declaration's or variable's (`name`), or a method's (`member`). */
  name?: string;
  member?: string;
  /** Where a method's "async" goes: the start of its key. */
  keyStart?: number;
  isAsync: boolean;
  kind: 'function' | 'getter' | 'setter' | 'constructor' | 'generator' | 'method with a computed name';
}

interface Call {
  node: AnyNode;
  fn: Fn | null;
}

/** What the transform needs to know about the script's k6 imports. */
export interface AwaitSyncOptions {
  /** The script's path, for errors. */
  path: string;
  /** The bundle's source map (JSON), so that errors name the script's own line. */
  map?: string;
  /** Await gRPC clients' `.invoke()`, `.connect()` and `.healthCheck()` (the script imports k6/net/grpc). */
  grpc: boolean;
  /** Await k6/http's synchronous calls (default true; false when the script picks their form itself). */
  http?: boolean;
  /** Make k6's bare `sleep()` hold wherever the functions on its way can become async (await-sleep.ts). */
  sleep?: boolean;
  /** Await `.submitForm()` and `.clickLink()` calls (the script imports k6/http). */
  responses?: boolean;
  /** `code` already parsed (parseBundle), when the caller transforms it more than once; never modified. */
  ast?: AnyNode;
}

const isFunction = (n: AnyNode): boolean =>
  n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';

/** The callee of `(0, x.y)(...)`, esbuild's form for calling an imported binding. */
function unwrapCallee(n: AnyNode): AnyNode {
  if (n.type === 'SequenceExpression') {
    const list = n['expressions'] as AnyNode[];
    return list[list.length - 1]!;
  }
  return n;
}

/** `require("spec")` or `__toESM(require("spec"))`: the spec, else null. */
function requiredSpec(n: AnyNode | null | undefined): string | null {
  if (n?.type !== 'CallExpression') return null;
  const callee = n['callee'] as AnyNode;
  const args = n['arguments'] as AnyNode[];
  if (callee.type === 'Identifier' && callee['name'] === 'require') {
    const a = args[0];
    return a?.type === 'Literal' && typeof a['value'] === 'string' ? (a['value'] as string) : null;
  }
  return args.length > 0 ? requiredSpec(args[0]) : null;
}

function propertyName(n: AnyNode): string | null {
  if (n.type === 'Identifier') return n['name'] as string;
  if (n.type === 'Literal' && typeof n['value'] === 'string') return n['value'] as string;
  return null;
}

/**
 * Module bindings of the bundle: a local bound to a whole module (`require("k6/http")`) maps to its spec;
 * one destructured from it (`const { get } = require("k6/http")`, esm-init.ts's form) to [spec, name].
 */
type Locals = Map<string, string | [string, string]>;

/** `ns.name` or `ns.default.name` where ns is bound to a module, or a name destructured from one: [spec, name]. */
function moduleMember(callee: AnyNode, locals: Locals): [string, string] | null {
  if (callee.type === 'Identifier') {
    const named = locals.get(callee['name'] as string);
    return Array.isArray(named) ? named : null;
  }
  if (callee.type !== 'MemberExpression' || callee['computed']) return null;
  const name = propertyName(callee['property'] as AnyNode);
  let obj = callee['object'] as AnyNode;
  if (
    obj.type === 'MemberExpression' &&
    !obj['computed'] &&
    propertyName(obj['property'] as AnyNode) === 'default'
  )
    obj = obj['object'] as AnyNode;
  if (obj.type !== 'Identifier' || !name) return null;
  const spec = locals.get(obj['name'] as string);
  return typeof spec === 'string' ? [spec, name] : null;
}

/** `source:line:column` of a bundle offset: the script's own position through the map, else the bundle's. */
function positionOf(code: string, pos: number, options: AwaitSyncOptions): string {
  const line = code.slice(0, pos).split('\n').length;
  const column = pos - code.lastIndexOf('\n', pos - 1);
  try {
    if (options.map) {
      const o = new SourceMapper(JSON.parse(options.map), dirname(options.path)).original(line, column);
      if (o) return `${o.source}:${o.line}:${o.column}`;
    }
  } catch {
    // An unreadable map leaves the bundle's position.
  }
  return `${options.path}:${line}:${column}`;
}

/**
 * The CommonJS bundle with k6's synchronous calls awaited (see the file's comment), or the code as it
 * is when it makes none. Throws ScriptLoadError where the transform cannot keep k6's semantics.
 */
export async function awaitSyncCalls(code: string, options: AwaitSyncOptions): Promise<string> {
  const ast = options.ast ?? (await parseBundle(code, options.path));
  const calls: Call[] = [];
  const locals: Locals = new Map();
  /** Identifier references that are not a call's callee nor a declaration: name → positions. */
  const valueRefs: Array<{ name: string; node: AnyNode; parent: AnyNode }> = [];
  /** Member reads that are not a call's callee nor an assignment's target (`arr.map(api.list)`). */
  const memberRefs: Array<{ name: string; node: AnyNode }> = [];

  const visit = (n: AnyNode, parent: AnyNode | null, fn: Fn | null, key: string): void => {
    let here = fn;
    if (isFunction(n)) {
      const f: Fn = {
        node: n,
        isAsync: Boolean(n['async']),
        kind: n['generator'] ? 'generator' : 'function',
      };
      if (n.type === 'FunctionDeclaration' && n['id']) f.name = (n['id'] as AnyNode)['name'] as string;
      if (
        parent?.type === 'VariableDeclarator' &&
        key === 'init' &&
        (parent['id'] as AnyNode).type === 'Identifier'
      )
        f.name = (parent['id'] as AnyNode)['name'] as string;
      if ((parent?.type === 'Property' || parent?.type === 'MethodDefinition') && key === 'value') {
        const k = parent['computed'] ? null : propertyName(parent['key'] as AnyNode);
        if (k) f.member = k;
        if (parent['method'] || parent.type === 'MethodDefinition') {
          if (parent['computed']) f.kind = 'method with a computed name';
          else f.keyStart = (parent['key'] as AnyNode).start;
        }
        const kind = parent['kind'] as string;
        if (kind === 'get' || kind === 'set' || kind === 'constructor')
          f.kind = kind === 'get' ? 'getter' : kind === 'set' ? 'setter' : 'constructor';
      }
      if (parent?.type === 'AssignmentExpression' && key === 'right') {
        const left = parent['left'] as AnyNode;
        if (left.type === 'Identifier') f.name = left['name'] as string;
        else if (left.type === 'MemberExpression' && !left['computed'])
          f.member = propertyName(left['property'] as AnyNode) ?? undefined;
      }
      here = f;
    }
    if (n.type === 'VariableDeclarator' && (n['id'] as AnyNode).type === 'Identifier') {
      const spec = requiredSpec(n['init'] as AnyNode);
      if (spec) locals.set((n['id'] as AnyNode)['name'] as string, spec);
    }
    if (n.type === 'VariableDeclarator' && (n['id'] as AnyNode).type === 'ObjectPattern') {
      const spec = requiredSpec(n['init'] as AnyNode);
      for (const prop of spec ? (((n['id'] as AnyNode)['properties'] as AnyNode[]) ?? []) : []) {
        const key = prop['computed'] ? null : propertyName(prop['key'] as AnyNode);
        const value = prop['value'] as AnyNode | undefined;
        if (key && value?.type === 'Identifier') locals.set(value['name'] as string, [spec!, key]);
      }
    }
    if (n.type === 'CallExpression') calls.push({ node: n, fn: here });
    if (n.type === 'Identifier' && parent) {
      const isCallee = parent.type === 'CallExpression' && key === 'callee';
      const isDecl =
        (parent.type === 'FunctionDeclaration' && key === 'id') ||
        (parent.type === 'VariableDeclarator' && key === 'id') ||
        (parent.type === 'MemberExpression' && key === 'property' && !parent['computed']) ||
        ((parent.type === 'Property' || parent.type === 'MethodDefinition') &&
          key === 'key' &&
          !parent['computed']) ||
        (isFunction(parent) && key === 'params');
      if (!isCallee && !isDecl) valueRefs.push({ name: n['name'] as string, node: n, parent });
    }
    if (n.type === 'MemberExpression' && !n['computed'] && parent) {
      const isCallee = parent.type === 'CallExpression' && key === 'callee';
      const isTarget = parent.type === 'AssignmentExpression' && key === 'left';
      const name = propertyName(n['property'] as AnyNode);
      if (name && !isCallee && !isTarget) memberRefs.push({ name, node: n });
    }
    for (const k of Object.keys(n)) {
      if (k === 'type' || k === 'start' || k === 'end' || k === 'loc' || k === 'range') continue;
      const v = n[k];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object' && typeof c.type === 'string') visit(c, n, here, k);
      } else if (v && typeof v === 'object' && typeof (v as AnyNode).type === 'string') {
        visit(v as AnyNode, n, here, k);
      }
    }
  };
  visit(ast, null, null, '');

  const awaited = new Set<AnyNode>();
  const made = new Set<Fn>();
  const queue: Fn[] = [];
  const where = (n: AnyNode) => positionOf(code, n.start, options);
  let label = "k6/http's synchronous calls";
  const refuse = (what: string, n: AnyNode): never => {
    const instead = label.startsWith('k6/ws')
      ? 'Call ws.connect() from the exported functions through plain calls'
      : 'Use "await http.asyncRequest(...)" there';
    const at = where(n);
    throw new SyncRefusedError(
      `${label}: ${what} at ${at}; the Node runtime awaits them only through plain ` +
        `function calls from the exported functions. ${instead}, or run the script with k6`,
      `${at} ${what.replace(/makes one/, 'makes a synchronous call')}`,
    );
  };
  const awaitCall = (c: Call, seed = false): void => {
    if (awaited.has(c.node)) return;
    awaited.add(c.node);
    const f = c.fn;
    if (!f) {
      // The init context: a k6/http call throws there as in k6; a function that would make one cannot be awaited.
      if (!seed) refuse('the init context calls a function that makes one', c.node);
      return;
    }
    if (f.isAsync || made.has(f)) return;
    if (f.kind !== 'function') refuse(`a ${f.kind} makes one`, f.node);
    made.add(f);
    queue.push(f);
  };

  const syncCalls = (c: Call): boolean => {
    const callee = unwrapCallee(c.node['callee'] as AnyNode);
    const m = moduleMember(callee, locals);
    if (m && m[0] === 'k6/ws' && m[1] === 'connect') return true;
    if (m && m[0] === 'k6/http' && SYNC_HTTP.has(m[1])) return options.http !== false;
    if (callee.type !== 'MemberExpression' || callee['computed']) return false;
    const member = propertyName(callee['property'] as AnyNode) ?? '';
    return (
      (options.grpc && GRPC_AWAITED.has(member)) ||
      (options.responses === true && RESPONSE_AWAITED.has(member))
    );
  };
  for (const c of calls) if (syncCalls(c)) awaitCall(c, true);
  const isSleep = (c: Call): boolean => {
    const m = moduleMember(unwrapCallee(c.node['callee'] as AnyNode), locals);
    return m !== null && m[0] === 'k6' && m[1] === 'sleep';
  };
  const sleeps = options.sleep === true && calls.some(isSleep);
  if (awaited.size === 0 && !sleeps) return code;
  // Errors name what the script calls: ws.connect alone, else k6/http (and gRPC) as before.
  if ([...awaited].every((n) => moduleMember(unwrapCallee(n['callee'] as AnyNode), locals)?.[0] === 'k6/ws'))
    label = "k6/ws's connect()";

  const byName = new Map<string, Call[]>();
  const byMember = new Map<string, Call[]>();
  for (const c of calls) {
    const callee = unwrapCallee(c.node['callee'] as AnyNode);
    if (callee.type === 'Identifier') {
      const list = byName.get(callee['name'] as string) ?? [];
      list.push(c);
      byName.set(callee['name'] as string, list);
    } else if (callee.type === 'MemberExpression' && !callee['computed']) {
      const p = propertyName(callee['property'] as AnyNode);
      if (p && !moduleMember(callee, locals)) {
        const list = byMember.get(p) ?? [];
        list.push(c);
        byMember.set(p, list);
      }
    }
  }
  const callOf = new Map<AnyNode, Call>(calls.map((c) => [c.node, c]));
  // Each call's arguments, and the functions of object literals among them (check()'s, a library's hooks).
  const parentCall = new Map<AnyNode, AnyNode>();
  const handedOver = new Set<AnyNode>();
  for (const c of calls)
    for (const a of c.node['arguments'] as AnyNode[]) {
      parentCall.set(a, c.node);
      if (a.type !== 'ObjectExpression') continue;
      for (const p of a['properties'] as AnyNode[])
        if (p.type === 'Property' && isFunction(p['value'] as AnyNode)) handedOver.add(p['value'] as AnyNode);
    }

  while (queue.length > 0) {
    const f = queue.shift()!;
    const n = f.node;
    if (f.name) {
      for (const c of byName.get(f.name) ?? []) awaitCall(c);
      for (const r of valueRefs) {
        if (r.name !== f.name) continue;
        // esbuild's `__export(target, { name: () => name })`: the export getters, read by the engine.
        if (r.parent.type === 'ArrowFunctionExpression' && r.parent['body'] === r.node) continue;
        // k6's group(name, fn) returns an async fn's promise: the group() call is awaited in turn.
        const group = groupCallOf(r.node, parentCall, locals);
        if (group) {
          awaitCall(callOf.get(group)!);
          continue;
        }
        refuse(`function ${f.name} makes one and is used as a value (not called)`, r.node);
      }
    } else if (f.member) {
      const byCalls = byMember.get(f.member) ?? [];
      const read = memberRefs.find((r) => r.name === f.member && !moduleMember(r.node, locals));
      if (read) refuse(`method ${f.member} makes one and is used as a value (not called)`, read.node);
      // A function of an object literal handed to a call is called by code the transform cannot see
      // (check() calls the functions of its object, a library its options' hooks): they would get a promise.
      if (handedOver.has(n)) refuse(`function ${f.member} of an object passed to a call makes one`, n);
      for (const c of byCalls) awaitCall(c);
    } else {
      // An anonymous function: called on the spot, or group()'s callback; anything else is refused.
      const group = groupCallOf(n, parentCall, locals);
      if (group) {
        awaitCall(callOf.get(group)!);
        continue;
      }
      const direct = [...callOf.values()].find((c) => c.node['callee'] === n);
      if (direct) awaitCall(direct);
      else refuse('a callback makes one', n);
    }
  }

  if (sleeps)
    awaitBareSleeps({
      calls,
      byName,
      byMember,
      valueRefs,
      memberRefs,
      isSleep,
      groupCall: (n) => {
        const call = groupCallOf(n, parentCall, locals);
        return call ? callOf.get(call)! : null;
      },
      isExportGetter: (r) => r.parent.type === 'ArrowFunctionExpression' && r.parent['body'] === r.node,
      isModuleMember: (n) => moduleMember(n, locals) !== null,
      made,
      awaited,
    });

  // Edits: "async " before each function made async, "(await " ... ")" around each awaited call,
  // and around `sleep()` calls inside the functions made async.
  for (const c of calls) if (c.fn && made.has(c.fn) && isSleep(c)) awaited.add(c.node);
  const inserts: Array<{ pos: number; text: string }> = [];
  for (const f of made) inserts.push({ pos: f.keyStart ?? f.node.start, text: 'async ' });
  for (const n of awaited) {
    const c = callOf.get(n)!;
    if (!c.fn) continue;
    inserts.push({ pos: n.start, text: '(await ' }, { pos: n.end, text: ')' });
  }
  // Stable by position; at one position closers before openers (")" ends an earlier call).
  inserts.sort((a, b) => a.pos - b.pos || (a.text === ')' ? -1 : 0) - (b.text === ')' ? -1 : 0));
  return applyEdits(
    code,
    inserts.map((i) => ({ start: i.pos, end: i.pos, text: i.text })),
  );
}

/** The k6 group() call `n` is the function argument of, else null. */
function groupCallOf(n: AnyNode, parentCall: Map<AnyNode, AnyNode>, locals: Locals): AnyNode | null {
  const call = parentCall.get(n);
  if (!call) return null;
  const m = moduleMember(unwrapCallee(call['callee'] as AnyNode), locals);
  return m !== null && m[0] === 'k6' && m[1] === 'group' ? call : null;
}

/**
 * Whether a script makes k6's synchronous calls: it names a synchronous k6/http function, or calls
 * `submitForm()`/`clickLink()`, or a gRPC client's invoke() or healthCheck().
 */
export function needsAwaitSync(imports: Map<string, { names: Set<string> }>, code: string): boolean {
  const http = imports.get('k6/http')?.names;
  if (http && [...SYNC_HTTP].some((n) => http.has(n))) return true;
  if (imports.has('k6/http') && /\.(submitForm|clickLink)\(/.test(code)) return true;
  return imports.has('k6/net/grpc') && /\.(invoke|healthCheck)\(/.test(code);
}

/**
 * Whether a script reads the async forms too (asyncRequest, asyncInvoke): such a script may choose
 * the form at run time, as the scenario kit does, so where the transform cannot await its
 * synchronous calls they are kept as they are (they throw when reached) rather than blocking VUs.
 */
export function readsAsyncForms(imports: Map<string, { names: Set<string> }>, code: string): boolean {
  return imports.get('k6/http')?.names.has('asyncRequest') === true || code.includes('asyncInvoke');
}
