/**
 * What a bench run against real Triton must have written: every level measured without errors, with its
 * server statistics (the statistics extension, differenced over the window: a count and four non-zero
 * stage times) and, when the bench scraped Triton's Prometheus endpoint, its per-level server metrics.
 * Pure: reads a run's report.
 */
import type { LevelResult, RunReport } from '../../../lib/summary/types.ts';

/** What to require of each level. */
export interface LevelCheckOptions {
  /** Level names, e.g. ['c1', 'c2']. */
  levels: readonly string[];
  /** The run scraped --metrics-url: each level must carry server_metrics with requests in them. */
  metrics: boolean;
}

const STAGES = ['queue_us', 'compute_input_us', 'compute_infer_us', 'compute_output_us'] as const;

function levelProblems(name: string, level: LevelResult, metrics: boolean): string[] {
  const out: string[] = [];
  if (!(level.requests > 0)) out.push(`${name} has no requests`);
  if (level.errors > 0) out.push(`${name} has ${level.errors} failed requests`);
  if (level.budgets.length === 0) out.push(`${name} has no budget verdicts`);
  const server = level.server;
  if (!server || !(server.request_count > 0)) out.push(`${name} has no server statistics`);
  else {
    const zero = STAGES.filter((stage) => !(server[stage] > 0));
    if (zero.length > 0) out.push(`${name}'s server statistics have ${zero.join(', ')} at 0`);
  }
  if (metrics) {
    const scraped = level.server_metrics;
    if (!scraped) out.push(`${name} has no server metrics (Prometheus)`);
    else if (!(scraped.request_success > 0) || !((scraped.avg_compute_infer_us ?? 0) > 0))
      out.push(
        `${name}'s server metrics count ${scraped.request_success} successes, compute infer ${scraped.avg_compute_infer_us ?? 'absent'} us`,
      );
  }
  return out;
}

/** What is wrong with a run's report; empty when every level has what the checks require. */
export function reportProblems(report: RunReport | undefined, options: LevelCheckOptions): string[] {
  if (!report) return ['no report was written'];
  return options.levels.flatMap((name) => {
    const level = report.results.find((r) => r.name === name);
    return level ? levelProblems(name, level, options.metrics) : [`${name} missing`];
  });
}
