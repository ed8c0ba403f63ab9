/** The repository a TRITONSERVER run exports for a generative model: its config on its backend, and its tokenizer. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportCatalogRepository } from '../../measure/core/catalog-repository.ts';
import { GPT2, REPEAT } from '../../models/generative.ts';
import { loadTokenizer } from '../../payloads/tokenizer.ts';
import { configFromGenerative } from '../../measure/repository/generative-config.ts';
import { GPT2_TOKENIZER_FILE, parseConfigJson, parsePbtxt } from '@k6-triton/server';
import { tempDirs } from '../temp-dirs.ts';

describe('exportCatalogRepository, generative models', () => {
  const tempDir = tempDirs('k6t-genai-export-');

  it('writes the repeat model as real Triton loads it: decoupled, backend repeat, IN/DELAY/WAIT, a version folder', async () => {
    const dir = tempDir();
    expect(await exportCatalogRepository({ modelId: 'repeat' }, dir)).toBe(dir);
    const config = parsePbtxt(readFileSync(join(dir, REPEAT.name, 'config.pbtxt'), 'utf8'));
    expect(config).toEqual(parseConfigJson(configFromGenerative(REPEAT)));
    expect(config.backend).toBe('repeat');
    expect(config.model_transaction_policy).toEqual({ decoupled: true });
    expect(config.input.map((t) => t.name)).toEqual(['IN', 'DELAY', 'WAIT']);
    expect(existsSync(join(dir, REPEAT.name, '1'))).toBe(true);
    expect(existsSync(join(dir, REPEAT.name, 'tokenizer.json'))).toBe(false);
  });

  it("writes gpt2's tokenizer.json beside its config, where TOKENIZER=<model folder> finds it", async () => {
    const dir = tempDir();
    await exportCatalogRepository({ modelId: 'gpt2' }, dir);
    const folder = join(dir, GPT2.name);
    expect(readFileSync(join(folder, 'tokenizer.json'), 'utf8')).toBe(
      readFileSync(GPT2_TOKENIZER_FILE, 'utf8'),
    );
    expect(loadTokenizer(folder).count('kalo mi zzz')).toBe(3);
  });
});
