/**
 * The schema's parsers, one per kind of value: each takes what the help offers and refuses the rest with one
 * line naming the setting and the fix; a run's settings are checked all at once.
 */
import { describe, expect, it } from 'vitest';
import { readGenerativeSettings } from '../../lib/genai/settings.ts';
import { tokenLength } from '../../lib/settings/kinds.ts';
import { checkSettings, read, settingProblems } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';

describe('token lengths (INPUT_TOKENS, OUTPUT_TOKENS)', () => {
  it('a fixed length, mean,stddev or min:max; anything else named with the forms', () => {
    expect(tokenLength.parse('INPUT_TOKENS', '200')).toEqual({ mean: 200, stddev: 0 });
    expect(tokenLength.parse('INPUT_TOKENS', '200,20')).toEqual({ mean: 200, stddev: 20 });
    expect(tokenLength.parse('INPUT_TOKENS', '100:300')).toEqual({ min: 100, max: 300 });
    for (const bad of ['0', 'x', '300:100', '1.5:3', '200,-1'])
      expect(() => tokenLength.parse('OUTPUT_TOKENS', bad)).toThrow(
        `invalid OUTPUT_TOKENS="${bad}"; expected a length (200), mean,stddev (200,20) or a range min:max (100:300), lengths >= 1`,
      );
  });

  it('the scenario and the bench read them with the same parser: 100,10 is a normal length', () => {
    const g = readGenerativeSettings({ OUTPUT_TOKENS: '100,10' }, { inputTokens: 1, outputTokens: 20 });
    expect(g.outputTokens).toEqual({ mean: 100, stddev: 10 });
    expect(g.inputTokens).toEqual({ mean: 1, stddev: 0 });
    expect(read({ OUTPUT_TOKENS: '50:150' }, S.OUTPUT_TOKENS)).toEqual({ min: 50, max: 150 });
  });
});

describe('other kinds', () => {
  it('whole numbers, choices, switches and durations', () => {
    expect(read({ BATCH: '4' }, S.BATCH)).toBe(4);
    expect(read({ BATCH: ' ' }, S.BATCH)).toBeUndefined();
    expect(() => read({ NUM_OF_SEQUENCES: '0' }, S.NUM_OF_SEQUENCES)).toThrow(
      'invalid NUM_OF_SEQUENCES="0"; expected a whole number >= 1',
    );
    expect(read({ LLM_BACKEND: 'vllm' }, S.LLM_BACKEND)).toBe('vllm');
    expect(() => read({ LLM_BACKEND: 'tgi' }, S.LLM_BACKEND)).toThrow(
      'invalid LLM_BACKEND="tgi"; expected one of: trtllm, vllm',
    );
    expect(read({ ALLOW_INCONCLUSIVE: 'true' }, S.ALLOW_INCONCLUSIVE)).toBe(true);
    expect(read({ ALLOW_INCONCLUSIVE: '0' }, S.ALLOW_INCONCLUSIVE)).toBe(false);
    expect(() => read({ ALLOW_INCONCLUSIVE: 'maybe' }, S.ALLOW_INCONCLUSIVE)).toThrow(
      'ALLOW_INCONCLUSIVE="maybe" is invalid: expected true or false',
    );
    expect(read({ STEP_DURATION: '1m30s' }, S.STEP_DURATION)).toBe(90);
    expect(read({ SEQUENCE_ID_RANGE: '5:10' }, S.SEQUENCE_ID_RANGE)).toEqual({ start: 5, end: 10 });
  });
});

describe('validation', () => {
  it('reports every bad setting at once, one line each, and nothing for good ones', () => {
    const env = { BATCH: 'x', STEP_DURATION: '5', OUTPUT_TOKENS: '100,10', PROTOCOL: 'ftp', MAX_VUS: '2' };
    const problems = settingProblems(env);
    expect(problems).toEqual([
      'invalid PROTOCOL="ftp"; expected one of: http, http-json, grpc, generate, openai-chat, openai-completions, openai-embeddings',
      'invalid BATCH="x"; expected a whole number >= 1',
      'STEP_DURATION="5" is invalid: a number without a unit is ambiguous; use a duration with a unit, such as STEP_DURATION=5s, 500ms, 1m or 1m30s',
    ]);
    expect(() => checkSettings(env)).toThrow(problems.join('\n'));
    expect(settingProblems({ BATCH: '2', OUTPUT_TOKENS: '100,10' })).toEqual([]);
  });
});
