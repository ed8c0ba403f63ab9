/** One `run` of k6 or `k6-triton` under /usr/bin/time, for the whole-process benchmarks (sync-http.ts, vu-modes.ts). */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one run did and cost. */
export interface TimedRun {
  /** http_reqs from the summary export; without HTTP requests, iterations (scripts of one gRPC call per iteration). */
  reqs: number;
  /** User plus system CPU of the whole process. */
  cpu_s: number;
  wall_s: number;
  /** Peak RSS. */
  rss_mib: number;
  code: number;
}

/** Runs `cmd run -q <runArgs> --summary-export <tmp> <script>` with `env` added; never rejects. */
export function timedRun(
  cmd: string[],
  runArgs: string[],
  script: string,
  env: Record<string, string>,
  timeout_ms = 300_000,
): Promise<TimedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'k6t-timed-'));
  const summary = join(dir, 'summary.json');
  const args = [
    '-f',
    'TIME %U %S %e %M',
    ...cmd,
    'run',
    '-q',
    ...runArgs,
    '--summary-export',
    summary,
    script,
  ];
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/time',
      args,
      { env: { ...process.env, ...env }, timeout: timeout_ms },
      (err, _o, stderr) => {
        const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
        const s = existsSync(summary) ? JSON.parse(readFileSync(summary, 'utf8')) : null;
        rmSync(dir, { recursive: true, force: true });
        resolve({
          reqs: ((s?.metrics?.http_reqs ?? s?.metrics?.iterations)?.count as number | undefined) ?? 0,
          cpu_s: m ? Number(m[1]) + Number(m[2]) : 0,
          wall_s: m ? Number(m[3]) : 0,
          rss_mib: m ? Number(m[4]) / 1024 : 0,
          code: err ? Number((err as { code?: number }).code ?? 1) : 0,
        });
      },
    );
  });
}
