/** resolveTarget: the one resolution every command starts from (entry, scenario, budget in force, plan). */
import { describe, expect, it } from 'vitest';
import { planAt, resolveTarget, runDir, withLevels } from '../../measure/core/target.ts';

describe('resolveTarget', () => {
  it('tells the shared bert scenario which entry it runs, and names the folder by catalog id', () => {
    const target = resolveTarget('bert-large', {});
    expect(target.entry.id).toBe('bert-large');
    expect(target.scenarioPath).toMatch(/scenarios\/bert\.ts$/);
    expect(target.scenarioEnv).toEqual({ MODEL: 'bert-large' });
    expect(target.modelDir).toBe('bert-large');
    expect(target.budgetPath).toMatch(/thresholds\/bert-large\.json$/);
    expect(resolveTarget('mnist', {}).scenarioEnv).toEqual({});
  });

  it('finds a generative model: its own scenario over gRPC, its budget with TTFT and ITL bounds, its load', () => {
    const target = resolveTarget('gpt2', {});
    expect(target.scenarioPath).toMatch(/scenarios\/llm\.ts$/);
    expect(target.scenarioEnv).toEqual({ MODEL: 'gpt2' });
    expect(target.run.settings.protocol).toBe('grpc');
    // Or over SSE; a protocol of the tensor models is one line naming the stream protocols.
    expect(resolveTarget('gpt2', { PROTOCOL: 'openai-chat' }).run.settings.protocol).toBe('openai-chat');
    expect(() => resolveTarget('gpt2', { PROTOCOL: 'http' })).toThrow(
      'invalid PROTOCOL="http" for gpt2; expected one of: grpc, generate, openai-chat, openai-completions',
    );
    expect(() => resolveTarget('mnist', { PROTOCOL: 'generate' })).toThrow(
      'invalid PROTOCOL="generate"; expected one of: http, http-json, grpc',
    );
    expect(target.entry.payload).toEqual({ kind: 'prompt', inputTokens: 200, outputTokens: 100 });
    // Its request settings are resolved with the plan, over the calibration's lengths.
    expect(target.run.generative).toMatchObject({
      outputTokens: { mean: 100, stddev: 0 },
      backend: 'trtllm',
    });
    expect(target.run.budget.ttft_p95_ms).toBeGreaterThan(0);
    expect(target.run.budget.itl_p95_ms).toBeGreaterThan(0);
    expect(target.run.load.levels).toEqual([1, 2, 4, 8, 16]);
    expect(() => resolveTarget('gpt3', {})).toThrow(/unknown model "gpt3"; known models: .*gpt2/);
  });

  it("carries the budget in force: an override wins over the file, the error rate stays the file's", () => {
    const file = resolveTarget('mnist', {}).run;
    const target = resolveTarget('mnist', { P95_MS: '7', P99_MS: '9' });
    expect(target.run.limits).toEqual({ p95_ms: 7, p99_ms: 9, error_rate: file.budget.error_rate });
    expect(file.limits).toEqual({
      p95_ms: file.budget.p95_ms,
      p99_ms: file.budget.p99_ms,
      error_rate: file.budget.error_rate,
    });
  });

  it('names a generic model by its served name and refuses one without it', () => {
    expect(resolveTarget('generic', { MODEL_NAME: 'my_model' }).modelDir).toBe('my_model');
    // A catalog model's served name, benched as generic, lands beside that entry's runs.
    expect(resolveTarget('generic', { MODEL_NAME: 'onnx-mnist-cpu' }).modelDir).toBe('mnist');
    expect(() => resolveTarget('generic', {})).toThrow(/MODEL_NAME is not set/);
    expect(() => resolveTarget('mnist', { CONCURRENCY: 'lots' })).toThrow(/CONCURRENCY/);
  });

  it('measures other levels with the other mode dropped, and the same numbers back', () => {
    const settings = { CONCURRENCY: '1,2', PROTOCOL: 'grpc' };
    expect(withLevels(settings, 'request-rate', [2.5, 10])).toEqual({
      PROTOCOL: 'grpc',
      REQUEST_RATE: '2.5,10',
    });
    const levels = [0.1 + 0.2, 1234.5];
    const plan = planAt(resolveTarget('mnist', settings), { levels: { mode: 'request-rate', levels } });
    expect(plan.load.mode).toBe('request-rate');
    expect(plan.plan.levels.map((l) => l.level)).toEqual(levels);
    // Capacity's first level: given as a number, the settings' own levels dropped, never parsed from text.
    const first = resolveTarget('mnist', settings, { levels: { mode: 'concurrency', levels: [3] } });
    expect(first.run.load).toMatchObject({ mode: 'concurrency', levels: [3] });
    expect(first.settings).toEqual(settings);
    // A later pass's window, the levels kept.
    expect(planAt(first, { window_s: 7.5 }).load).toMatchObject({ levels: [1, 2], window_s: 7.5 });
  });

  it("puts a run's folder under the model's, with the command's prefix", () => {
    expect(runDir('/r', resolveTarget('mnist', {}), 'sweep-')).toMatch(/^\/r\/mnist\/sweep-\d{4}-\d\d-\d\dT/);
  });
});
