/**
 * Maps stack-trace positions in the evaluated bundle back to the script's own sources (and, when a
 * dist/ bundle carries its .map, to the TypeScript it was built from), as k6 does with source maps.
 * Node 20 does not apply source maps to vm-compiled code, so the runtime rewrites stacks itself.
 */
import { dirname, resolve } from 'node:path';

interface RawMap {
  sources: string[];
  mappings: string;
  sourceRoot?: string;
}

/** [generatedColumn, sourceIndex, originalLine, originalColumn] per segment, 0-based. */
type Segment = [number, number, number, number];

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

function decodeVlq(s: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of s) {
    const d = B64_VALUE.get(ch);
    if (d === undefined) throw new Error(`bad VLQ character "${ch}"`);
    value += (d & 31) << shift;
    if (d & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** A decoded source map (lines decoded on first use). */
export class SourceMapper {
  readonly #lines: Segment[][] = [];
  readonly #sources: string[];

  constructor(map: RawMap, mapDir: string) {
    this.#sources = map.sources.map((s) => resolve(mapDir, map.sourceRoot ?? '', s));
    let src = 0;
    let line = 0;
    let col = 0;
    for (const group of map.mappings.split(';')) {
      const segs: Segment[] = [];
      let gen = 0;
      for (const part of group.split(',')) {
        if (!part) continue;
        const v = decodeVlq(part);
        gen += v[0]!;
        if (v.length < 4) continue;
        src += v[1]!;
        line += v[2]!;
        col += v[3]!;
        segs.push([gen, src, line, col]);
      }
      this.#lines.push(segs);
    }
  }

  /** The original position of a generated one (1-based lines and columns), or null. */
  original(line: number, column: number): { source: string; line: number; column: number } | null {
    const segs = this.#lines[line - 1];
    if (!segs || segs.length === 0) return null;
    let best: Segment | undefined;
    for (const s of segs) {
      if (s[0] <= column - 1) best = s;
      else break;
    }
    best ??= segs[0]!;
    return { source: this.#sources[best[1]] ?? '?', line: best[2] + 1, column: best[3] + 1 };
  }
}

const mappers = new Map<string, SourceMapper>();

/** Registers the map of the code evaluated under `file` (the script's path). */
export function registerSourceMap(file: string, mapJson: string): void {
  try {
    mappers.set(file, new SourceMapper(JSON.parse(mapJson) as RawMap, dirname(file)));
  } catch {
    // A map we cannot read only costs the original positions in stack traces.
  }
}

/**
 * Rewrites `file:line:col` positions of registered scripts in a stack trace to original sources and
 * drops the runtime's own frames, so a script error reads like k6's (message, then script frames).
 */
export function mapStack(stack: string): string {
  if (mappers.size === 0) return stack;
  const lines = stack.split('\n');
  const out: string[] = [];
  for (const line of lines) {
    let mapped = false;
    const text = line.replace(/([^\s(]+):(\d+):(\d+)/g, (all, file: string, l: string, c: string) => {
      const o = mappers.get(file)?.original(Number(l), Number(c));
      if (!o) return all;
      mapped = true;
      return `${o.source}:${o.line}:${o.column}`;
    });
    if (!/^\s+at /.test(line) || mapped) out.push(text);
  }
  return out.join('\n');
}
