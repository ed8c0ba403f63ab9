/**
 * The bench's prompt workload on Node (payloads/prompt-workload.ts): made once and cached per settings, a
 * trace's schedule handed over as SCHEDULE unless a load is given, PAYLOAD and other models left alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GPT2 } from '../../models/generative.ts';
import { ensurePromptWorkload, withPromptWorkload } from '../../payloads/prompt-workload.ts';
import { tempDirs } from '../temp-dirs.ts';

describe('the prompt workload of a bench', () => {
  const tmp = tempDirs('k6t-prompts-');

  it('is made once per settings with the model tokenizer, then found in the cache', () => {
    const outDir = tmp();
    const env = { INPUT_TOKENS: '12', OUTPUT_TOKENS: '3:4', PROMPT_COUNT: '5' };
    const made = ensurePromptWorkload(GPT2, env, { outDir });
    expect(made.cached).toBe(false);
    expect(made.workload.requests).toHaveLength(5);
    expect(made.workload.requests.every((r) => r.inputTokens === 12)).toBe(true);
    expect(made.workload.tokenizer).toMatch(/models\/gpt2\/tokenizer\.json$/);
    const again = ensurePromptWorkload(GPT2, env, { outDir });
    expect([again.cached, again.workloadPath]).toEqual([true, made.workloadPath]);
    const other = ensurePromptWorkload(GPT2, { ...env, PROMPT_SEED: '2' }, { outDir });
    expect(other.workloadPath).not.toBe(made.workloadPath);
    expect(() => ensurePromptWorkload(GPT2, { TOKENIZER: '/nonexistent/tk.json' }, { outDir })).toThrow(
      /^tokenizer \/nonexistent\/tk.json does not exist/,
    );
  });

  it("a trace's times become SCHEDULE unless a load is given; PAYLOAD and other models are left alone", () => {
    const outDir = tmp();
    const dataset = join(tmp(), 'trace.jsonl');
    writeFileSync(dataset, '{"timestamp": 10, "input_length": 4}\n{"timestamp": 30.5, "input_length": 5}\n');
    const settings = withPromptWorkload('gpt2', { DATASET: dataset }, {}, { outDir });
    expect(settings['PAYLOAD']).toMatch(/workload\.json$/);
    expect(readFileSync(settings['SCHEDULE']!, 'utf8')).toBe(
      '{"at_ms":0,"payload":0}\n{"at_ms":20.5,"payload":1}\n',
    );
    const atLoad = withPromptWorkload('gpt2', { DATASET: dataset, CONCURRENCY: '2' }, {}, { outDir });
    expect([atLoad['PAYLOAD'], atLoad['SCHEDULE']]).toEqual([settings['PAYLOAD'], undefined]);
    expect(withPromptWorkload('gpt2', { PAYLOAD: '/mine.json' }, {}, { outDir })).toEqual({
      PAYLOAD: '/mine.json',
    });
    expect(withPromptWorkload('repeat', { OUTPUT_TOKENS: '5' }, {}, { outDir })).toEqual({
      OUTPUT_TOKENS: '5',
    });
    expect(withPromptWorkload('mnist', {}, {}, { outDir })).toEqual({});
  });
});
