/**
 * A run's payload file checked on Node before anything starts, with the loader the scenario runs inside k6
 * (lib/payload/load.ts) and the options it passes (payloadLoadOptions): the CLI and the scenario cannot
 * disagree on what is a good set. Errors are one line naming the file, the field and a fix this module has
 * checked: "regenerate with `k6-triton payloads … --force`" only when that command rewrites this very set.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PayloadLoadOptions } from '../lib/payload/load.ts';
import { type PayloadManifest, PayloadFileError } from '../lib/payload/manifest.ts';
import { getModel } from '../models/index.ts';
import { defaultPrecision, resolveBatch } from './generate.ts';
import {
  DEFAULT_CACHE_DIR,
  DEFAULT_COUNT,
  DEFAULT_SEED,
  type PayloadOptions,
  readPayloads,
  setLocation,
} from './index.ts';

/** The options `k6-triton payloads` was given for a set, read back from its manifest's recipe. */
function optionsOf(manifest: PayloadManifest, outDir: string): PayloadOptions {
  const r = manifest.recipe;
  const path = (key: string) => (r[key] as { path?: string } | undefined)?.path;
  const options: PayloadOptions = {
    model: manifest.model,
    batch: manifest.batch,
    precision: manifest.precision,
    count: manifest.count,
    seed: manifest.seed,
    outDir,
  };
  if (typeof r['distribution'] === 'string') options.distribution = r['distribution'] as 'uniform' | 'normal';
  if (typeof r['zipf'] === 'number') options.zipf = r['zipf'];
  if (r['hashIndices'] === true) options.hashIndices = true;
  if (r['random'] === true) options.random = true;
  if (Array.isArray(r['shapes'])) options.shapes = r['shapes'] as string[];
  for (const key of ['datasetConfig', 'squad', 'vocab', 'images', 'inputData'] as const) {
    const p = path(key);
    if (p) options[key] = p;
  }
  return options;
}

/** The `k6-triton payloads` arguments of `options`, defaults left out. */
function commandOf(options: PayloadOptions): string {
  const entry = getModel(String(options.model));
  const args = ['k6-triton payloads', `--model ${entry.id}`];
  if (options.batch !== resolveBatch(entry, undefined)) args.push(`--batch ${options.batch}`);
  if (options.precision !== defaultPrecision(entry).toUpperCase())
    args.push(`--precision ${options.precision}`);
  if (!options.inputData && options.count !== DEFAULT_COUNT) args.push(`--count ${options.count}`);
  if (options.seed !== DEFAULT_SEED) args.push(`--seed ${options.seed}`);
  if (options.distribution) args.push(`--distribution ${options.distribution}`);
  if (options.zipf !== undefined) args.push(`--zipf ${options.zipf}`);
  if (options.hashIndices) args.push('--hash-indices');
  if (options.random) args.push('--random');
  for (const shape of options.shapes ?? []) args.push(`--shape ${shape}`);
  const flags = { datasetConfig: '--dataset-config', squad: '--squad', vocab: '--vocab', images: '--images' };
  for (const [key, flag] of Object.entries(flags)) {
    const value = options[key as keyof typeof flags];
    if (value) args.push(`${flag} ${value}`);
  }
  if (options.inputData) args.push(`--input-data ${options.inputData}`);
  if (resolve(options.outDir!) !== DEFAULT_CACHE_DIR) args.push(`--out ${options.outDir}`);
  return [...args, '--force'].join(' ');
}

/**
 * The command that writes this set again at this very path (`k6-triton payloads … --force`), or undefined when
 * none does: a set copied or edited by hand, made for a live model, or from inputs that have changed since.
 */
export function regenerateCommand(manifest: PayloadManifest, manifestPath: string): string | undefined {
  const dir = dirname(resolve(manifestPath));
  try {
    const options = optionsOf(manifest, dirname(dirname(dir)));
    return setLocation(options).dir === dir ? commandOf(options) : undefined;
  } catch {
    // Not a catalog model, or a recipe input (SQuAD file, images) gone: no command rewrites it.
    return undefined;
  }
}

/**
 * Reads `path` as the scenario will (every sample file, sizes and the model's inputs checked); throws one line
 * naming the file, the field and the fix. `what` names where the path came from (PAYLOAD, --payload).
 */
export function checkPayloadFile(path: string, options: PayloadLoadOptions, what = 'PAYLOAD'): void {
  if (!existsSync(path)) {
    throw new Error(
      `${what} ${path}: no such file; give a manifest.json made by \`k6-triton payloads --model ${options.model ?? '<model>'}\` (it prints the path) or a perf_analyzer input-data file`,
    );
  }
  try {
    readPayloads(path, options);
  } catch (err) {
    if (!(err instanceof PayloadFileError)) throw err;
    const command = regenerateCommand(err.manifest, err.manifestPath);
    const fix = command
      ? `regenerate with \`${command}\``
      : `restore the file, or make a new set with \`k6-triton payloads --model ${options.model ?? err.manifest.model}\` and pass its manifest.json (this one was not written at this path by k6-triton payloads, so --force would not mend it)`;
    throw new Error(`${err.detail}; ${fix}`);
  }
}
