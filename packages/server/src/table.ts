/** The model table Triton prints at start: name, version, status. Pure: rows in, text out. */
import type { IndexRow } from './repository.ts';

/** Formats rows as Triton's bordered "Model | Version | Status" table. */
export function modelTable(rows: IndexRow[]): string {
  const body = rows.map((r) => [
    r.name,
    r.version ?? '-',
    r.state === 'READY' ? 'READY' : `${r.state ?? 'UNAVAILABLE'}${r.reason ? `: ${r.reason}` : ''}`,
  ]);
  const head = ['Model', 'Version', 'Status'];
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line, fmt(head), line, ...body.map(fmt), line].join('\n');
}
