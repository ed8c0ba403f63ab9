/**
 * Latency profiles of the simulated backend, by name. The calibrated figures (shared/reference, their
 * hardware, not ours) live in each model's catalog entry; here they are looked up and evaluated: linear
 * between points, along the last segment's slope past the end.
 */
import { CATALOG } from '../../../../models/catalog.ts';
import type { LatencyProfile } from '../../../../models/types.ts';

export type { LatencyProfile };

/** The profile name of a catalog model at a precision with a profile of its own: `<id>-fp16`. */
export function precisionProfileName(id: string, precision: string): string {
  return `${id}-${precision.toLowerCase()}`;
}

/**
 * Profiles by name, made from the catalog (each model's `latency`, and `<id>-<precision>` for its
 * `latencyByPrecision`), plus "zero" for measuring the server's own overhead.
 */
export const PROFILES: Readonly<Record<string, LatencyProfile>> = Object.fromEntries([
  ...Object.values(CATALOG).flatMap((entry) => [
    ...(entry.latency ? [[entry.id, entry.latency] as const] : []),
    ...Object.entries(entry.latencyByPrecision ?? {}).map(
      ([precision, profile]) => [precisionProfileName(entry.id, precision), profile] as const,
    ),
  ]),
  ['zero', { points: [[1, 0]], source: 'no compute time (server overhead benchmarks)' }],
]);

/** Compute milliseconds of a batch under a profile. */
export function computeMs(profile: LatencyProfile, batchSize: number): number {
  const pts = profile.points;
  if (pts.length === 1 || batchSize <= pts[0]![0]) return pts[0]![1];
  for (let i = 1; i < pts.length; i++) {
    const [b1, t1] = pts[i]!;
    if (batchSize <= b1) {
      const [b0, t0] = pts[i - 1]!;
      return t0 + ((t1 - t0) * (batchSize - b0)) / (b1 - b0);
    }
  }
  const [b0, t0] = pts[pts.length - 2]!;
  const [b1, t1] = pts[pts.length - 1]!;
  return t1 + ((t1 - t0) * (batchSize - b1)) / (b1 - b0);
}

/** A profile by name; throws listing the known names. */
export function getProfile(name: string): LatencyProfile {
  const profile = PROFILES[name];
  if (!profile) {
    throw new Error(`unknown latency_profile "${name}"; known: ${Object.keys(PROFILES).sort().join(', ')}`);
  }
  return profile;
}
