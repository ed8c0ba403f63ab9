/**
 * The fidelity benchmark's tables (run.ts measures, this only renders): one protocol's rows with their ratios
 * to perf_analyzer, each row's median over rounds, and the rows' shares on two servers side by side.
 */

/** One row's figure at one level. */
export interface Point {
  infer_s: number;
  p50_ms?: number;
  /** Client CPU per request, microseconds (from its CPU share over the window). */
  cpu_us?: number;
}

/** A row of the table: a client and its figures per level, or why it did not run. */
export interface Row {
  client: string;
  points: Map<number, Point>;
  missing?: string;
}

/** One protocol's table: infer/s per level (and its ratio to the first row), p50 at the first level, client CPU. */
export function table(protocol: string, rows: Row[], levels: readonly number[]): string {
  const base = rows[0]!;
  const first = levels[0]!;
  // CPU at the first level and at the last: at the top the two cores are shared, so a client's CPU is the server's loss.
  const cpuLevels = levels.length > 1 ? [first, levels[levels.length - 1]!] : [first];
  const header = [
    `${protocol.toUpperCase()}, infer/s`,
    ...levels.map((l) => `c${l}`),
    `p50 c${first} (ms)`,
    ...cpuLevels.map((l) => `client CPU µs/req c${l}`),
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    if (row.missing) {
      lines.push(`| ${row.client} | not run: ${row.missing} |`);
      continue;
    }
    const cells = levels.map((level) => {
      const p = row.points.get(level);
      const ref = base.missing ? undefined : base.points.get(level);
      if (!p) return 'n/a';
      const ratio = ref && row !== base ? ` (${Math.round((p.infer_s / ref.infer_s) * 100)}%)` : '';
      return `${Math.round(p.infer_s).toLocaleString('en-US')}${ratio}`;
    });
    const p50 = row.points.get(first)?.p50_ms;
    const cpu = cpuLevels.map((l) => {
      const us = row.points.get(l)?.cpu_us;
      return us === undefined ? 'n/a' : String(Math.round(us));
    });
    lines.push(`| ${row.client} | ${cells.join(' | ')} | ${p50?.toFixed(3) ?? 'n/a'} | ${cpu.join(' | ')} |`);
  }
  if (!base.missing) lines.push('', `Ratios: to ${base.client}'s infer/s at the same level.`);
  return lines.join('\n');
}

/** Each row's median per level (and of its p50 and CPU) over the rounds; a level missing in a round is left out. */
export function medianRows(rounds: Row[][], levels: readonly number[]): Row[] {
  const median = (values: number[]): number | undefined => {
    if (values.length === 0) return undefined;
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return rounds[0]!.map((first, i) => {
    const same = rounds.map((rows) => rows[i]!).filter((row) => !row.missing);
    if (same.length === 0) return first;
    const points = new Map<number, Point>();
    for (const level of levels) {
      const at = same.map((row) => row.points.get(level)).filter((p) => p !== undefined);
      const infer_s = median(at.map((p) => p.infer_s));
      if (infer_s === undefined) continue;
      points.set(level, {
        infer_s,
        p50_ms: median(at.flatMap((p) => (p.p50_ms === undefined ? [] : [p.p50_ms]))),
        cpu_us: median(at.flatMap((p) => (p.cpu_us === undefined ? [] : [p.cpu_us]))),
      });
    }
    return { client: `${first.client} (${same.length} of ${rounds.length})`, points };
  });
}

/** Each row's share of perf_analyzer per level, one column group per target: the two servers side by side. */
export function sideBySide(
  protocol: string,
  byTarget: ReadonlyMap<string, Row[]>,
  levels: readonly number[],
): string {
  const targets = [...byTarget.keys()];
  const header = [
    `${protocol.toUpperCase()}, % of perf_analyzer's infer/s`,
    ...targets.flatMap((t) => levels.map((l) => `${t} c${l}`)),
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  const first = byTarget.get(targets[0]!)!;
  for (const [i, row] of first.entries()) {
    if (i === 0) continue;
    const cells = targets.flatMap((t) => {
      const rows = byTarget.get(t)!;
      const [base, same] = [rows[0]!, rows[i]!];
      return levels.map((level) => {
        const p = same.missing ? undefined : same.points.get(level);
        const ref = base.missing ? undefined : base.points.get(level);
        return p && ref ? `${Math.round((p.infer_s / ref.infer_s) * 100)}%` : 'n/a';
      });
    });
    lines.push(`| ${row.client.replace(/ \(\d+ of \d+\)$/, '')} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
