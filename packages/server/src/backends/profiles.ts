/**
 * Latency profiles of the simulated backend: compute milliseconds by batch size, linear between points, along
 * the last segment's slope past the end. The server knows one profile of its own ("zero"); the ones calibrated
 * per model come from whoever starts the server (ServerOptions.latencyProfiles: the tool passes its catalog's).
 */

/** Compute time (ms) by batch size: [batch, ms] points in ascending batch order, and where they come from. */
export interface LatencyProfile {
  points: readonly (readonly [number, number])[];
  source?: string;
}

/** Latency profiles by name, as a config's latency_profile parameter names them. */
export type LatencyProfiles = Readonly<Record<string, LatencyProfile>>;

/** The server's own profile: no compute time (for measuring the server's overhead). */
export const ZERO_PROFILE: LatencyProfile = {
  points: [[1, 0]],
  source: 'no compute time (server overhead benchmarks)',
};

/** The profiles a server knows: the given ones and "zero". */
export function profileTable(given: LatencyProfiles = {}): LatencyProfiles {
  return { ...given, zero: ZERO_PROFILE };
}

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

/** A profile by name from `profiles`; throws listing the known names. */
export function getProfile(profiles: LatencyProfiles, name: string): LatencyProfile {
  const profile = profiles[name];
  if (!profile) {
    throw new Error(`unknown latency_profile "${name}"; known: ${Object.keys(profiles).sort().join(', ')}`);
  }
  return profile;
}
