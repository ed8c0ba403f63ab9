/** A generative level as genai-perf's JSON export lays it out, from a fixed set of request records. */
import { describe, expect, it } from 'vitest';
import { genaiPerfJson, genaiPerfJsonName } from '../../lib/genai/genai-perf-json.ts';
import { type GenerationRecord, levelMetrics } from '../../lib/genai/metrics.ts';
import type { LevelResult, TimeStats_ms } from '../../lib/summary/types.ts';

/** Request i (0..3): sent at 100 i ms, first of 3 tokens after 10 (i + 1) ms, then one every 2 (i + 1) ms. */
const RECORDS: GenerationRecord[] = [0, 1, 2, 3].map((i) => {
  const sent = 100 * i;
  const first = sent + 10 * (i + 1);
  const gap = 2 * (i + 1);
  return {
    sent_ms: sent,
    inputTokens: 20,
    chunks: [0, 1, 2].map((k) => ({ at_ms: first + k * gap, tokens: 1 })),
    done_ms: first + 2 * gap,
  };
});

const SLO = { ttft_ms: 35, itl_ms: 10, latency_ms: 1000 };

function level(): LevelResult {
  const m = levelMetrics(RECORDS, { slo: SLO, window: { start_ms: 0, end_ms: 1000 } });
  const time = {} as TimeStats_ms;
  return {
    mode: 'concurrency',
    level: 4,
    name: 'c4',
    requests: m.completed,
    errors: m.errors,
    genai: {
      requests_per_s: m.requestThroughput,
      output_tokens: 12,
      output_tokens_per_s: m.outputTokenThroughput,
      ttft_ms: time,
      itl_ms: time,
      latency_ms: time,
      chunk_gap_ms: time,
      genai_perf: {
        ttft_ms: m.ttft_ms!,
        itl_ms: m.itl_ms!,
        latency_ms: m.latency_ms!,
        osl: m.outputTokens!,
        isl: m.inputTokens!,
      },
      goodput: {
        slo: SLO,
        good_requests: m.goodRequests!,
        good_fraction: m.goodRequests! / m.requests,
        requests_per_s: m.goodput!,
      },
    },
  } as unknown as LevelResult;
}

describe('genaiPerfJson', () => {
  const json = JSON.parse(genaiPerfJson(level(), 'gpt2')!);

  it("names each metric as genai-perf does, with genai-perf's units", () => {
    expect(Object.keys(json)).toEqual([
      'request_throughput',
      'request_latency',
      'time_to_first_token',
      'inter_token_latency',
      'output_sequence_length',
      'input_sequence_length',
      'request_count',
      'output_token_throughput',
      'request_goodput',
      'input_config',
    ]);
    expect(json.request_throughput).toEqual({ unit: 'requests/sec', avg: 4 });
    expect(json.output_token_throughput).toEqual({ unit: 'tokens/sec', avg: 12 });
    expect(json.request_goodput).toEqual({ unit: 'requests/sec', avg: 3 });
    expect(json.request_count).toEqual({ unit: 'count', avg: 4 });
    expect(json.output_sequence_length.unit).toBe('tokens');
    expect(json.inter_token_latency.unit).toBe('ms');
  });

  it("gives a request metric's avg, p1..p99 (linear between ranks), min, max and std", () => {
    // TTFTs 10, 20, 30, 40 ms.
    const ttft = json.time_to_first_token;
    expect(Object.keys(ttft)).toEqual([
      ...['unit', 'avg', 'p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99', 'min', 'max', 'std'],
    ]);
    expect(ttft).toMatchObject({ unit: 'ms', avg: 25, p50: 25, p25: 17.5, p75: 32.5, min: 10, max: 40 });
    expect(ttft.p1).toBeCloseTo(10.3, 9);
    expect(ttft.p99).toBeCloseTo(39.7, 9);
    expect(ttft.std).toBeCloseTo(Math.sqrt(125), 9);
    // ITL (latency - TTFT) / (OSL - 1) is each request's gap: 2, 4, 6, 8 ms; latency TTFT + 2 gaps.
    expect(json.inter_token_latency).toMatchObject({ avg: 5, min: 2, max: 8 });
    expect(json.request_latency).toMatchObject({ avg: 35, min: 14, max: 56 });
    expect(json.input_sequence_length).toMatchObject({ avg: 20, p1: 20, p99: 20, std: 0 });
  });

  it('records the model, the stimulus and the goodput SLOs as input_config', () => {
    expect(json.input_config).toEqual({
      model_names: ['gpt2'],
      perf_analyzer: { stimulus: { concurrency: 4 } },
      input: { goodput: { time_to_first_token: 35, inter_token_latency: 10, request_latency: 1000 } },
    });
    const open = { ...level(), mode: 'request-rate', level: 2.5, name: 'r2.5' } as LevelResult;
    expect(JSON.parse(genaiPerfJson(open, 'gpt2')!).input_config.perf_analyzer).toEqual({
      stimulus: { request_rate: 2.5 },
    });
    expect(genaiPerfJsonName(open)).toBe('profile_export_genai_perf-r2.5.json');
  });

  it('writes nothing for a level that is not generative', () => {
    expect(genaiPerfJson({ ...level(), genai: undefined } as LevelResult, 'mnist')).toBeUndefined();
  });
});
