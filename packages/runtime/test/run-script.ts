/** Runs a conformance script from test/runtime/scripts with the runtime's API, capturing output. */
import { fileURLToPath } from 'node:url';
import { setLogSink } from '../src/log.ts';
import { type RunTestOptions, type RunTestResult, runTest } from '@k6-triton/runtime';

/** Absolute path of a conformance script. */
export function scriptPath(name: string): string {
  return fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
}

/** A run's result plus everything it printed. */
export interface CapturedRun extends RunTestResult {
  stdout: string;
  /** stderr plus k6-style log lines (console, errors). */
  log: string;
}

/** Runs `name` quietly (no banner), without the system environment, and captures its output. */
export async function runScript(name: string, opts: Partial<RunTestOptions> = {}): Promise<CapturedRun> {
  let stdout = '';
  let log = '';
  const prev = setLogSink((line) => {
    log += line;
  });
  try {
    const r = await runTest({
      script: scriptPath(name),
      quiet: true,
      includeSystemEnv: false,
      stdout: (s) => {
        stdout += s;
      },
      stderr: (s) => {
        log += s;
      },
      ...opts,
    });
    return { ...r, stdout, log };
  } finally {
    setLogSink(prev);
  }
}

/** A metric's values from the summary data; throws when the metric is missing. */
export function values(r: RunTestResult, key: string): Record<string, number> {
  const m = r.summaryData?.metrics[key];
  if (!m)
    throw new Error(`metric ${key} missing; have ${Object.keys(r.summaryData?.metrics ?? {}).join(', ')}`);
  return m.values;
}

/** Every check of the run as name → {passes, fails}, across groups. */
export function checks(r: RunTestResult): Record<string, { passes: number; fails: number }> {
  const out: Record<string, { passes: number; fails: number }> = {};
  const walk = (g: NonNullable<RunTestResult['summaryData']>['root_group']) => {
    for (const c of g.checks) out[c.name] = { passes: c.passes, fails: c.fails };
    g.groups.forEach(walk);
  };
  if (r.summaryData) walk(r.summaryData.root_group);
  return out;
}
