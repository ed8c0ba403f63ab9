/**
 * The REST API over a run on several workers: pause, resume and stop go to every worker; status and
 * metrics are every worker's raw metrics merged (merge.ts), then formatted once as one run's.
 */
import { crossed, flattenGroups, liveMetrics } from '../api/live.ts';
import type { LiveShare, LiveSnapshot, RunApi } from '../api/types.ts';
import type { WorkerLink as ApiLink } from '../api/worker-link.ts';
import { newRootGroup } from '../groups.ts';
import { MetricRegistry } from '../metrics/registry.ts';
import { buildThresholds } from '../thresholds.ts';
import { absorbSnapshot, type RunSnapshot } from './merge.ts';

/** One worker's answer: its own snapshot and raw share (null before it has one). */
export interface WorkerPart {
  snapshot: LiveSnapshot;
  share: LiveShare | null;
}

/**
 * One run's snapshot from every worker's part (the first worker's first): the first worker's status and
 * setup data, VUs summed, metrics, groups and threshold verdicts of the merged raw metrics. `final(i)`:
 * worker i's final metrics, which stand for its last share once it ended.
 */
export function mergeLive(
  parts: readonly WorkerPart[],
  final: (index: number) => RunSnapshot | undefined,
): LiveSnapshot {
  const lead = parts[0]!;
  const share = lead.share;
  if (!share) return lead.snapshot;
  // After teardown the first worker's metrics hold every worker's: adding the others would count them twice.
  const runs = share.peersMerged
    ? [share.run]
    : parts.flatMap((p, i) => {
        const run = (i > 0 ? final(i) : undefined) ?? p.share?.run;
        return run ? [run] : [];
      });
  const target = { registry: new MetricRegistry(), rootGroup: newRootGroup() };
  for (const run of runs) absorbSnapshot(target, run);
  const sets = buildThresholds(share.thresholds, target.registry);
  const tainted = new Map<string, boolean>();
  for (const set of sets) {
    const v = crossed(set, share.elapsed_ms);
    if (v !== null) tainted.set(set.key, v);
  }
  const sum = (key: 'vus' | 'vus-max') => parts.reduce((n, p) => n + p.snapshot.status[key], 0);
  return {
    status: {
      ...lead.snapshot.status,
      vus: sum('vus'),
      'vus-max': sum('vus-max'),
      stopped: parts.some((p) => p.snapshot.status.stopped),
      tainted: [...tainted.values()].some(Boolean),
    },
    metrics: liveMetrics(
      target.registry,
      new Set(sets.map((s) => s.key)),
      (id) => tainted.get(id) ?? null,
      share.elapsed_ms,
    ),
    groups: flattenGroups(target.rootGroup),
    setupJson: lead.snapshot.setupJson,
  };
}

/** The RunApi of several workers: `links()` the running workers' API links, the first worker's first. */
export function severalWorkersApi(
  links: () => readonly ApiLink[],
  final: (index: number) => RunSnapshot | undefined,
): RunApi {
  const each = async (fn: (l: ApiLink) => Promise<void>) => void (await Promise.all(links().map(fn)));
  return {
    snapshot: async () => mergeLive(await Promise.all(links().map((l) => l.detail())), final),
    // Each worker answers alike (the same scenarios, the same gate): the first refusal is k6's.
    pause: () => each((l) => l.pause()),
    resume: () => each((l) => l.resume()),
    stop: () => each((l) => l.stop()),
  };
}
