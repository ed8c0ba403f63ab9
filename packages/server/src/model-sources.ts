/**
 * Where the repository's models come from: a Triton-layout folder (<repo>/<model>/config.pbtxt + numeric version
 * folders) read afresh on every load and index, as Triton polls it, or models handed over in memory (the tool's
 * built-in repository). Each source also gives the modification times Triton compares to decide whether a load
 * has anything to reload.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseConfigJson, parsePbtxt } from './config/parse.ts';
import type { VersionFolder } from './config/normalize.ts';
import type { ModelConfigJson } from './config/types.ts';

/** The config file Triton reads in a model folder. */
export const CONFIG_FILE = 'config.pbtxt';

/**
 * Triton's ModelTimestamp: the newest modification time (ms) of the model folder ('') and of each entry in it,
 * folders counted by their newest content. A load with a config override stamps CONFIG_FILE with its own time.
 */
export type ModelStamp = ReadonlyMap<string, number>;

/** Where a model's config and versions come from. */
export interface ModelSource {
  name: string;
  /** Config as the repository holds it (before any load-time override). */
  readConfig(): Promise<ModelConfigJson>;
  /** Version folders the config's version policy selects, newest first. */
  versions(config: ModelConfigJson): Promise<{ version: string; dir: string }[]>;
  /** What the first version folder holds (Triton looks there for a model file); undefined when there is none. */
  versionFolder(): Promise<VersionFolder | undefined>;
  /** The model's file times now. */
  stamp(): Promise<ModelStamp>;
}

/** A model handed to the server in memory: its config and, for a backend that reads one, its model files. */
export interface ModelDefinition {
  /** The model config as Triton's JSON model config (what config.pbtxt holds, in JSON); `name` names the model. */
  config: { name: string } & Record<string, unknown>;
  /** The folder version 1's backend reads its files from (e.g. model.onnx); default none. */
  dir?: string;
}

/** True when something in the model folder changed after `before` was taken (Triton's IsModified). */
export function stampChanged(before: ModelStamp, now: ModelStamp): boolean {
  return newest(now, () => true) > newest(before, () => true);
}

/**
 * True when a version's files changed: its folder, or a file beside the config that is not a version folder
 * (Triton's IsModelVersionModified). Only then does a config change reload a served version in full.
 */
export function versionFilesChanged(before: ModelStamp, now: ModelStamp, version: string): boolean {
  const files = (key: string) => key === version || (key !== '' && key !== CONFIG_FILE && !/^\d+$/.test(key));
  return newest(now, files) > newest(before, files);
}

/** `stamp` as a config override leaves it: the config counts as changed now. */
export function overrideStamp(stamp: ModelStamp, now_ms = Date.now()): ModelStamp {
  return new Map([...stamp, [CONFIG_FILE, now_ms]]);
}

function newest(stamp: ModelStamp, keep: (key: string) => boolean): number {
  let out = 0;
  for (const [key, ms] of stamp) if (keep(key)) out = Math.max(out, ms);
  return out;
}

/** The model folders of a Triton-layout repository, sorted by name. */
export async function folderSources(dir: string): Promise<ModelSource[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new Error(`model repository "${dir}" is not a readable folder; pass --model-repository DIR`);
  }
  const folders: string[] = [];
  for (const name of names.sort()) {
    const isFolder = await stat(path.join(dir, name)).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (isFolder) folders.push(name);
  }
  return folders.map((name) => folderSource(name, path.join(dir, name)));
}

function folderSource(name: string, modelDir: string): ModelSource {
  return {
    name,
    async readConfig() {
      const file = path.join(modelDir, CONFIG_FILE);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        throw new Error(`${file} is missing (every model folder needs a ${CONFIG_FILE})`);
      }
      return parsePbtxt(text, file);
    },
    async versions(config) {
      const found: number[] = [];
      for (const entry of await readdir(modelDir, { withFileTypes: true })) {
        if (entry.isDirectory() && /^\d+$/.test(entry.name)) found.push(Number(entry.name));
      }
      return selectVersions(found, config).map((v) => ({
        version: String(v),
        dir: path.join(modelDir, String(v)),
      }));
    },
    async versionFolder() {
      // The first subfolder by name, whatever its name, as Triton takes it.
      const dirs = (await readdir(modelDir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
      if (dirs.length === 0) return undefined;
      const entries = await readdir(path.join(modelDir, dirs[0]!), { withFileTypes: true });
      return new Map(entries.map((e) => [e.name, e.isDirectory()]));
    },
    async stamp() {
      const out = new Map<string, number>();
      try {
        out.set('', (await stat(modelDir)).mtimeMs);
        for (const entry of await readdir(modelDir))
          out.set(entry, await newestIn(path.join(modelDir, entry)));
      } catch {
        // Triton treats a folder it cannot read as never modified.
      }
      return out;
    },
  };
}

/** The newest modification time in a file or folder tree (ms). */
async function newestIn(p: string): Promise<number> {
  const s = await stat(p);
  if (!s.isDirectory()) return s.mtimeMs;
  let out = s.mtimeMs;
  for (const entry of await readdir(p)) out = Math.max(out, await newestIn(path.join(p, entry)));
  return out;
}

/** Triton's version_policy: latest N (default 1), all, or specific versions. */
function selectVersions(found: number[], config: ModelConfigJson): number[] {
  const sorted = [...found].sort((a, b) => b - a);
  const policy = (config.version_policy ?? {}) as {
    latest?: { num_versions?: number };
    all?: object;
    specific?: { versions?: number[] };
  };
  if (policy.all) return sorted;
  if (policy.specific) return sorted.filter((v) => (policy.specific!.versions ?? []).map(Number).includes(v));
  return sorted.slice(0, Math.max(1, policy.latest?.num_versions ?? 1));
}

/** Sources of models handed over in memory, each one version ('1'), never changed while the server runs. */
export function memorySources(models: readonly ModelDefinition[]): ModelSource[] {
  const unchanged: ModelStamp = new Map([['', 0]]);
  return models.map((model) => ({
    name: model.config.name,
    readConfig: async () => parseConfigJson(model.config, `model ${model.config.name}`),
    versions: async () => [{ version: '1', dir: model.dir ?? '' }],
    versionFolder: async () => undefined,
    stamp: async () => unchanged,
  }));
}

/** True when onnxruntime-node is installed and its native binding loads (an install without binaries does not). */
export async function onnxRuntimeAvailable(): Promise<boolean> {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    const name = 'onnxruntime-node';
    await import(name);
    return true;
  } catch {
    return false;
  }
}
