/**
 * The generative metrics' one table of definitions: the k6 names every consumer reads off it are the names
 * runs have always recorded (summaries and rescoring read them back), and the docs table is the one it makes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENAI_METRIC_DEFS, k6MetricsTable, RECORDED_GENAI_METRICS } from '../../lib/genai/metric-defs.ts';
import { GENAI_METRICS } from '../../lib/genai/names.ts';

describe('generative metric definitions', () => {
  it('give the k6 names runs record, by key', () => {
    expect(GENAI_METRICS).toEqual({
      ttft: 'genai_ttft',
      itl: 'genai_itl',
      latency: 'genai_latency',
      chunkGap: 'genai_chunk_gap',
      osl: 'genai_osl',
      isl: 'genai_isl',
      outputTokens: 'genai_output_tokens',
      requestedOsl: 'genai_requested_osl',
      oslMismatch: 'genai_osl_mismatch',
      failed: 'genai_failed',
      cancelled: 'genai_cancelled',
      good: 'genai_good',
      sendLag: 'genai_send_lag',
      lateSends: 'genai_late_sends',
      sessionDuration: 'genai_session_duration',
      sessions: 'genai_sessions',
      sessionsFailed: 'genai_sessions_failed',
    });
  });

  it('give every recorded metric a type and a summary probe, and every time a Trend in ms', () => {
    for (const key of RECORDED_GENAI_METRICS) {
      const def = GENAI_METRIC_DEFS[key];
      expect(def.type, key).toBeDefined();
      expect(def.probe, key).toMatch(/^(max|count|rate)>=0$/);
      if ('time' in def && def.time) expect([def.type, def.unit], key).toEqual(['trend', 'ms']);
    }
  });

  it('make the k6 metrics table of docs/generative-metrics.md', () => {
    const docs = readFileSync(new URL('../../docs/generative-metrics.md', import.meta.url), 'utf8');
    expect(docs).toContain(k6MetricsTable());
  });
});
