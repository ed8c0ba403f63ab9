/**
 * The catalog as a Triton model repository, for a real tritonserver started without --model-repository:
 * the run's model written by `k6-triton repository`'s export (measure/repository/export.ts) into
 * build/triton-repository/ (git-ignored) before each start, so it follows the catalog and the run's PRECISION.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GENERATIVE } from '../../models/generative.ts';
import { pbtxtOf, writeCatalogRepository } from '../repository/export.ts';
import { configFromGenerative } from '../repository/generative-config.ts';
import { packagePath } from './paths.ts';

/** Where the exported repository goes: beside the runtime's build, git-ignored. */
export const CATALOG_REPOSITORY_DIR = packagePath('build', 'triton-repository');

/** What to export: one catalog model, at a PRECISION when the run asks for one. */
export interface CatalogExport {
  modelId: string;
  precision?: string;
}

/** Writes the model into `dir` (other models' folders there are left as they are) and returns `dir`. */
export async function exportCatalogRepository(
  model: CatalogExport,
  dir: string = CATALOG_REPOSITORY_DIR,
): Promise<string> {
  if (model.modelId === 'generic')
    throw new Error(
      'a generic model is not in the catalog; with TRITONSERVER pass --model-repository <dir> that serves it',
    );
  const generative = GENERATIVE[model.modelId];
  if (generative) {
    // Its config alone: real Triton has the repeat backend built in (gpt2's simulated_llm it has not).
    const modelDir = path.join(dir, generative.name);
    await mkdir(path.join(modelDir, '1'), { recursive: true });
    await writeFile(path.join(modelDir, 'config.pbtxt'), pbtxtOf(configFromGenerative(generative)));
    // Its tokenizer beside its config, as a real model's folder holds it (TOKENIZER may point here).
    if (generative.tokenizer)
      await copyFile(packagePath(generative.tokenizer), path.join(modelDir, 'tokenizer.json'));
    return dir;
  }
  await writeCatalogRepository(dir, {
    models: [model.modelId],
    ...(model.precision ? { precisions: { [model.modelId]: model.precision } } : {}),
  });
  return dir;
}
