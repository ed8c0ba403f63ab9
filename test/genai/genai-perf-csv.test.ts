/** A generative level as genai-perf's CSV export lays it out. */
import { describe, expect, it } from 'vitest';
import { genaiPerfCsv, genaiPerfCsvName } from '../../lib/genai/genai-perf-csv.ts';
import type { GenaiPerfStats, LevelResult, TimeStats_ms } from '../../lib/summary/types.ts';

const time: TimeStats_ms = { avg: 1, p50: 1, p95: 1, p99: 1, min: 1, max: 1 };
const stats = (base: number): GenaiPerfStats => ({
  avg: base,
  p1: base - 0.5,
  p5: base + 1,
  p10: base + 2,
  min: base - 1,
  max: base + 9,
  p99: base + 8,
  p95: base + 7,
  p90: base + 6,
  p75: base + 5,
  p50: base + 4,
  p25: base + 3,
});

const LEVEL = {
  mode: 'concurrency',
  level: 4,
  name: 'c4',
  genai: {
    requests_per_s: 13.6,
    output_tokens: 13600,
    output_tokens_per_s: 1360,
    ttft_ms: time,
    itl_ms: time,
    latency_ms: time,
    chunk_gap_ms: time,
    genai_perf: {
      ttft_ms: stats(53.004),
      itl_ms: stats(2.333),
      latency_ms: stats(1292.18),
      osl: stats(100),
      isl: stats(200),
    },
  },
} as unknown as LevelResult;

describe("genai-perf's CSV", () => {
  it('has its two blocks, its metric names and its number format', () => {
    expect(genaiPerfCsv(LEVEL)).toBe(
      [
        'Metric,avg,min,max,p99,p95,p90,p75,p50,p25',
        'Time To First Token (ms),53.00,52.00,62.00,61.00,60.00,59.00,58.00,57.00,56.00',
        'Inter Token Latency (ms),2.33,1.33,11.33,10.33,9.33,8.33,7.33,6.33,5.33',
        'Request Latency (ms),"1,292.18","1,291.18","1,301.18","1,300.18","1,299.18","1,298.18","1,297.18","1,296.18","1,295.18"',
        'Output Sequence Length,100.00,99.00,109.00,108.00,107.00,106.00,105.00,104.00,103.00',
        'Input Sequence Length,200.00,199.00,209.00,208.00,207.00,206.00,205.00,204.00,203.00',
        '',
        'Metric,Value',
        'Output Token Throughput (per sec),1360.00',
        'Request Throughput (per sec),13.60',
        '',
      ].join('\r\n'),
    );
    expect(genaiPerfCsvName(LEVEL)).toBe('profile_export_genai_perf-c4.csv');
  });

  it('is not written for a level without token figures', () => {
    expect(genaiPerfCsv({ ...LEVEL, genai: undefined })).toBeUndefined();
  });
});
