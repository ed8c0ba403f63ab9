/**
 * Latency profiles of the simulated backend: compute time of one batch as a function of its size, calibrated
 * on the published figures in shared/reference (their hardware, not ours). Between points the time is
 * interpolated linearly; past the last point it grows along the last segment's slope.
 */

/** A profile: [batch size, compute ms] points in increasing batch order, and where they come from. */
export interface LatencyProfile {
  points: readonly (readonly [number, number])[];
  source: string;
}

/** Profiles by name; catalog ids name their model's default profile. */
export const PROFILES: Readonly<Record<string, LatencyProfile>> = {
  // dlrm_triton.csv, "ONNX FP16 inference (V100-32G)", avg_ms per request batch size, up to 4096. Above that
  // the single-request latencies include moving 8-30 MB per request; the seed's concurrent figure (8 requests
  // of 4096 under dynamic batching: 1,776,030 rec/s, so one 32768 batch per 18.45 ms including a 2 ms queue
  // delay) bounds the compute of 32768 at about 16 ms. The larger points keep the table's ratios to it.
  dlrm: {
    points: [
      [1, 2.31],
      [8, 2.48],
      [64, 2.37],
      [512, 2.68],
      [4096, 4.58],
      [32768, 16.0],
      [65536, 31.3],
      [131072, 68.7],
    ],
    source:
      'dlrm_triton.csv ONNX FP16 V100-32G avg latency per batch size; >4096 from the 8 x 4096 concurrent figure',
  },
  // resnext101-32x4d_trt_v100.csv, fp32: with batch-1 requests and dynamic batching up to 64, concurrency c
  // forms batches of about c, so avg latency at concurrency c is taken as the compute time of a batch of c.
  'resnext101-32x4d': {
    points: [
      [1, 15.96],
      [2, 28.74],
      [4, 35.08],
      [8, 44.41],
      [16, 66.66],
      [32, 93.75],
      [64, 141.6],
    ],
    source: 'resnext101-32x4d_trt_v100.csv fp32 avg latency at concurrency = batch (1..64)',
  },
  'resnext101-32x4d-fp16': {
    points: [
      [1, 11.68],
      [2, 21.74],
      [4, 28.22],
      [8, 33.98],
      [16, 40.67],
      [32, 51.18],
      [64, 73.39],
    ],
    source: 'resnext101-32x4d_trt_v100.csv fp16 avg latency at concurrency = batch (1..64)',
  },
  // prose-figures.md: BERT Base FP16 seq 128 on V100, compute 8.38 ms at batch 1, 15.46 ms at batch 8.
  'bert-base': {
    points: [
      [1, 8.38],
      [8, 15.46],
    ],
    source: 'prose-figures.md BERT Base compute per request, batch 1 and 8',
  },
  // prose-figures.md: BERT Large seq 384 on A100 saturates near 1045 seq/s and gains taper above batch 12.
  // A fixed cost a plus k per sequence with 1/k = 1045 seq/s and 90% of the ceiling at batch 12 gives
  // k = 0.957 ms and a = 1.28 ms.
  'bert-large': {
    points: [
      [1, 2.24],
      [8, 8.94],
      [16, 16.59],
    ],
    source: 'prose-figures.md BERT Large A100: a + k*b with 1/k = 1045 seq/s, 90% of it at batch 12',
  },
  // mnist_onnx_cpu_i9-12900F.csv: 1402 us average latency at concurrency 1. No batched figures are
  // published; 0.4 ms per extra sample is an assumption (CPU inference grows about linearly with batch).
  mnist: {
    points: [
      [1, 1.4],
      [8, 4.2],
    ],
    source: 'mnist_onnx_cpu_i9-12900F.csv concurrency 1 (batch > 1 assumed +0.4 ms per sample)',
  },
  // prose-figures.md: ResNet50 on Inferentia, batch 16 over 16 NeuronCores, p50 33.7 ms; one sample per core,
  // so smaller batches take the same time and every further 16 samples another pass.
  resnet50: {
    points: [
      [1, 33.7],
      [16, 33.7],
      [32, 67.4],
    ],
    source: 'prose-figures.md ResNet50 Inferentia batch 16 p50 33.7 ms (one sample per NeuronCore)',
  },
  zero: { points: [[1, 0]], source: 'no compute time (server overhead benchmarks)' },
};

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
