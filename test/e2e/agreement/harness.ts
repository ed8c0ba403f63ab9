/**
 * Runs one k6 script under real k6 and under the Node runtime (`k6-triton run`, as users run it)
 * with the same flags, and collects what both print and write: exit code, the legacy summary
 * export and the `--out json` records.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Real k6: K6_BIN, else ../shared/tools/bin/k6 beside the repository; null when neither exists. */
export function findK6(): { bin: string | null; looked: string[] } {
  const looked = [process.env['K6_BIN'] ?? '', join(ROOT, '../shared/tools/bin/k6')].filter(Boolean);
  return { bin: looked.find((p) => existsSync(p)) ?? null, looked };
}

/** One `--out json` line. */
export interface JsonRecord {
  type: 'Metric' | 'Point';
  metric: string;
  data: Record<string, unknown> & { tags?: Record<string, string> | null; value?: number };
}

/** What one runtime did with a script. */
export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  /** k6's legacy `--summary-export` document (null when none was written). */
  summary: LegacyExport | null;
  records: JsonRecord[];
  /** What handleSummary wrote to SUMMARY_FILE (scripts that export one), parsed. */
  handleSummary: Record<string, unknown> | null;
}

/** The parts of k6's legacy summary export the suite compares. */
export interface LegacyExport {
  metrics: Record<string, Record<string, unknown> & { thresholds?: Record<string, boolean> }>;
  root_group: LegacyGroup;
}

/** A group of the legacy export. */
export interface LegacyGroup {
  name: string;
  path: string;
  id: string;
  groups: Record<string, LegacyGroup>;
  checks: Record<string, { name: string; path: string; id: string; passes: number; fails: number }>;
}

/** Absolute path of an agreement script (a name under scripts/, or an absolute path as it is). */
export function script(name: string): string {
  if (isAbsolute(name)) return name;
  return fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
}

function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<Pick<Outcome, 'code' | 'stdout' | 'stderr'>> {
  return new Promise((resolve) => {
    const opts = {
      cwd: ROOT,
      timeout: 45_000,
      killSignal: 'SIGKILL' as const,
      env: { ...process.env, ...env },
    };
    execFile(cmd, args, opts, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `name` under real k6 (`k6`) and the Node runtime at once, with `args` before the script. */
export async function runBoth(
  k6: string,
  name: string,
  opts: {
    args?: string[];
    env?: Record<string, string>;
    /** Flags for one runtime only (e.g. a tag telling the two runs apart), after `args`. */
    argsOf?: (runtime: 'k6' | 'node') => string[];
  } = {},
): Promise<{ k6: Outcome; node: Outcome }> {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-agree-'));
  try {
    const one = async (label: 'k6' | 'node', cmd: string, pre: string[]): Promise<Outcome> => {
      const exp = join(dir, `${label}-export.json`);
      const out = join(dir, `${label}-out.json`);
      const summaryFile = join(dir, `${label}-summary.json`);
      const env = { ...(opts.env ?? {}), SUMMARY_FILE: summaryFile };
      const r = await run(
        cmd,
        [
          ...pre,
          'run',
          '-q',
          '--no-color',
          '--summary-export',
          exp,
          '--out',
          `json=${out}`,
          ...(opts.args ?? []),
          ...(opts.argsOf?.(label) ?? []),
          script(name),
        ],
        env,
      );
      const summary = existsSync(exp) ? (JSON.parse(readFileSync(exp, 'utf8')) as LegacyExport) : null;
      const records = existsSync(out)
        ? readFileSync(out, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as JsonRecord)
        : [];
      const handleSummary = existsSync(summaryFile)
        ? (JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, unknown>)
        : null;
      return { ...r, summary, records, handleSummary };
    };
    const [k, n] = await Promise.all([
      one('k6', k6, []),
      one('node', process.execPath, [join(ROOT, 'bin/k6-triton.js')]),
    ]);
    return { k6: k, node: n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sum of a metric's point values, by the value of one tag (e.g. iterations by scenario). */
export function sumByTag(records: JsonRecord[], metric: string, tag: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) {
    if (r.type !== 'Point' || r.metric !== metric) continue;
    const key = r.data.tags?.[tag] ?? '';
    out[key] = (out[key] ?? 0) + (r.data.value ?? 0);
  }
  return out;
}

/** Point count of a metric. */
export function pointCount(records: JsonRecord[], metric: string): number {
  return records.filter((r) => r.type === 'Point' && r.metric === metric).length;
}

/** Each metric with points → the sorted union of its points' tag names. */
export function tagNames(records: JsonRecord[]): Record<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const r of records) {
    if (r.type !== 'Point') continue;
    const s = sets.get(r.metric) ?? new Set<string>();
    for (const k of Object.keys(r.data.tags ?? {})) s.add(k);
    sets.set(r.metric, s);
  }
  return Object.fromEntries(
    [...sets].sort(([a], [b]) => a.localeCompare(b)).map(([m, s]) => [m, [...s].sort()]),
  );
}

/** The sorted key paths of an object, two levels deep (`data.tags`, not the tags' own names). */
export function shape(o: unknown, depth = 2, prefix = ''): string[] {
  if (o === null || typeof o !== 'object' || Array.isArray(o) || depth === 0) return [];
  return Object.keys(o)
    .sort()
    .flatMap((k) => [
      `${prefix}${k}`,
      ...shape((o as Record<string, unknown>)[k], depth - 1, `${prefix}${k}.`),
    ]);
}

/** Every threshold verdict of a legacy export: `metric: expression` → failed. */
export function thresholdVerdicts(s: LegacyExport | null): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [m, v] of Object.entries(s?.metrics ?? {}))
    for (const [expr, failed] of Object.entries(v.thresholds ?? {})) out[`${m}: ${expr}`] = failed;
  return out;
}

/** A group tree as names, paths and check counts (ids included: k6 derives them from the path). */
export function groupTree(g: LegacyGroup | undefined): unknown {
  if (!g) return null;
  return {
    name: g.name,
    path: g.path,
    id: g.id,
    checks: Object.values(g.checks)
      .map((c) => `${c.path} ${c.id} ${c.passes}/${c.fails}`)
      .sort(),
    groups: Object.values(g.groups)
      .map(groupTree)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

/** Checks of a group tree as canonical name → passes/fails; JSON in a name is compared parsed (k6 orders keys at random). */
export function checkCounts(g: LegacyGroup | undefined, out: Record<string, [number, number]> = {}) {
  if (!g) return out;
  for (const c of Object.values(g.checks)) {
    const name = canonicalName(c.path);
    const [p, f] = out[name] ?? [0, 0];
    out[name] = [p + c.passes, f + c.fails];
  }
  for (const sub of Object.values(g.groups)) checkCounts(sub, out);
  return out;
}
/** A check's path with the JSON object it ends with (if any) canonical; other braces stay as they are. */
function canonicalName(path: string): string {
  const json = path.indexOf('{');
  if (json < 0) return path;
  try {
    return path.slice(0, json) + canonical(JSON.parse(path.slice(json)));
  } catch {
    return path;
  }
}
/** A JSON value with its object keys sorted. */
const canonical = (v: unknown): string =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
        .join(',')}}`
    : JSON.stringify(v);
/** A metric's count in the legacy export (0 when absent). */
export const count = (o: Outcome, metric: string) =>
  (o.summary?.metrics[metric]?.['count'] as number | undefined) ?? 0;

/** The metric names a run declared (`--out json` Metric records), sorted, without vus and vus_max (sampled on a clock). */
export function declaredMetrics(o: Outcome): string[] {
  return [...new Set(o.records.filter((r) => r.type === 'Metric').map((r) => r.metric))]
    .filter((m) => m !== 'vus' && m !== 'vus_max')
    .sort();
}

/** Every check's path (groups included) → "passes/fails", names compared as text. */
export function checkPaths(
  g: LegacyGroup | undefined,
  out: Record<string, string> = {},
): Record<string, string> {
  if (!g) return out;
  for (const c of Object.values(g.checks)) out[c.path] = `${c.passes}/${c.fails}`;
  for (const sub of Object.values(g.groups)) checkPaths(sub, out);
  return out;
}
