/**
 * A script whose init context awaits (top-level `await`, as k6 allows) cannot be CommonJS, so its
 * bundle stays an ES module, which this turns into the body of an async function the runtime calls
 * once per VU like the CommonJS wrapper: each `import … from "k6/…"` becomes a `require` of the VU's
 * own module instance and the closing `export { … }` becomes getters on `exports`. Every edit stays
 * within its line, so the ESM bundle's source map still holds. Only esbuild's bundle output is
 * expected here: imports of external k6 modules at the top, one export clause at the end.
 */
import type { Node } from 'acorn';
import { ScriptLoadError } from './load-error.ts';
import { applyEdits, type TextEdit } from './text-edits.ts';

type AnyNode = Node & Record<string, unknown>;

const nameOf = (n: AnyNode): string => (n['name'] as string | undefined) ?? String(n['value']);

/** `require("spec")` bindings for one import declaration, on one line. */
function importText(decl: AnyNode): string {
  const spec = JSON.stringify((decl['source'] as AnyNode)['value']);
  const specifiers = decl['specifiers'] as AnyNode[];
  if (specifiers.length === 0) return `require(${spec});`;
  const parts: string[] = [];
  const named: string[] = [];
  for (const s of specifiers) {
    const local = nameOf(s['local'] as AnyNode);
    // `x = require(…)` and `x = __k6default(require(…))` are the module bindings await-sync.ts recognises.
    if (s.type === 'ImportNamespaceSpecifier') parts.push(`${local} = require(${spec})`);
    else if (s.type === 'ImportDefaultSpecifier') parts.push(`${local} = __k6default(require(${spec}))`);
    else {
      const imported = nameOf(s['imported'] as AnyNode);
      named.push(imported === local ? local : `${JSON.stringify(imported)}: ${local}`);
    }
  }
  if (named.length > 0) parts.push(`{ ${named.join(', ')} } = require(${spec})`);
  return `const ${parts.join(', ')};`;
}

/** Getters on `exports` for an `export { a as default, b }` clause. */
function exportText(decl: AnyNode): string {
  const props = (decl['specifiers'] as AnyNode[]).map((s) => {
    const exported = JSON.stringify(nameOf(s['exported'] as AnyNode));
    return `${exported}: { enumerable: true, get: () => ${nameOf(s['local'] as AnyNode)} }`;
  });
  return `Object.defineProperties(exports, { ${props.join(', ')} });`;
}

/** Pads `text` with the newlines `original` spanned, so later lines keep their numbers. */
const keepLines = (text: string, original: string): string =>
  text + '\n'.repeat(original.split('\n').length - 1);

/** Rewrites an esbuild ESM bundle into an async function body (see the file's comment). */
export async function esmToAsyncBody(esm: string, path: string): Promise<string> {
  const { parse } = await import('acorn');
  let ast: AnyNode;
  try {
    ast = parse(esm, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as AnyNode;
  } catch (err) {
    throw new ScriptLoadError(`cannot load ${path}: ${(err as Error).message}`);
  }
  const edits: TextEdit[] = [];
  for (const stmt of ast['body'] as AnyNode[]) {
    const original = esm.slice(stmt.start, stmt.end);
    if (stmt.type === 'ImportDeclaration') {
      edits.push({ start: stmt.start, end: stmt.end, text: keepLines(importText(stmt), original) });
    } else if (stmt.type === 'ExportNamedDeclaration' && !stmt['declaration'] && !stmt['source']) {
      edits.push({ start: stmt.start, end: stmt.end, text: keepLines(exportText(stmt), original) });
    } else if (stmt.type.startsWith('Export')) {
      throw new ScriptLoadError(`cannot load ${path}: unexpected ${stmt.type} in the bundle`);
    }
  }
  return applyEdits(esm, edits);
}

/** The helper the rewritten body calls for a default import. */
export const ESM_INIT_HELPERS = 'const __k6default = (m) => m.default;';
