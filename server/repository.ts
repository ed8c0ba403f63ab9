/**
 * The model repository: Triton's layout (<repo>/<model>/config.pbtxt + numeric version folders) or the built-in
 * default repository made from the model catalog. Tracks each model's state, loads and unloads (explicit mode).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendRegistry } from './backends/registry.ts';
import { catalogEntries, configFromCatalog } from './config/from-catalog.ts';
import { completeConfig, parseConfigJson, parsePbtxt } from './config/parse.ts';
import type { ModelConfigJson } from './config/types.ts';
import { Errors, ServerError, VersionLoadError } from './errors.ts';
import type { ServerMetrics } from './metrics.ts';
import type { FaultOptions } from './faults/spec.ts';
import { LoadedModel } from './model.ts';

/** Triton's model states as the repository index reports them. */
export type ModelState = 'READY' | 'UNAVAILABLE' | 'LOADING' | 'UNLOADING';

/** Where a model's config and versions come from. */
interface ModelSource {
  name: string;
  /** Config as the repository holds it (before any load-time override). */
  readConfig(): Promise<ModelConfigJson>;
  /** Version folders the config's version policy selects, newest first. */
  versions(config: ModelConfigJson): Promise<{ version: string; dir: string }[]>;
}

interface Entry {
  source: ModelSource;
  state: ModelState;
  reason: string;
  versions: Map<string, LoadedModel>;
  /** Versions served before the last unload (the index still lists them, UNAVAILABLE). */
  lastVersions: string[];
  /** Serialises load/unload of one model. */
  busy: Promise<void>;
}

/** One row of the repository index. */
export interface IndexRow {
  name: string;
  version?: string;
  state?: ModelState;
  reason?: string;
}

/** Repository settings. */
export interface RepositoryOptions {
  /** Triton-layout folder; absent: the built-in catalog repository. */
  dir?: string;
  registry: BackendRegistry;
  metrics: ServerMetrics;
  log?: (line: string) => void;
  /** Built-in repository only: PRECISION per catalog id (e.g. { 'resnext101-32x4d': 'FP16' }); default the catalog's. */
  precisions?: Record<string, string>;
  /** Server-wide injected faults; each model's fault_* parameters override them. */
  faults?: FaultOptions;
}

/** The mnist model trained by server/models/mnist (an ONNX file beside its training script). */
export const MNIST_MODEL_DIR = fileURLToPath(new URL('./models/mnist/', import.meta.url));

/** Holds every model the repository knows and the loaded versions of each. */
export class Repository {
  readonly #opts: RepositoryOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(opts: RepositoryOptions) {
    this.#opts = opts;
  }

  /** Reads the repository's model list (configs are read at load time). */
  async scan(): Promise<void> {
    const sources = this.#opts.dir
      ? await scanDir(this.#opts.dir)
      : defaultSources(await onnxRuntimeLoads(), this.#opts.precisions ?? {});
    for (const source of sources) {
      if (!this.#entries.has(source.name)) {
        this.#entries.set(source.name, {
          source,
          state: 'UNAVAILABLE',
          reason: '',
          versions: new Map(),
          lastVersions: [],
          busy: Promise.resolve(),
        });
      }
    }
  }

  /** Model names in the repository, sorted. */
  names(): string[] {
    return [...this.#entries.keys()].sort();
  }

  /** Loads (or reloads) a model; `override` is the load API's "config" parameter. */
  load(name: string, override?: ModelConfigJson): Promise<void> {
    const entry = this.#entries.get(name);
    if (!entry) {
      return Promise.reject(
        new ServerError('INVALID_ARG', `failed to load '${name}', failed to poll from model repository`),
      );
    }
    const run = entry.busy.then(() => this.#load(entry, override));
    entry.busy = run.catch(() => {});
    return run;
  }

  /** Unloads a model after its queued and executing requests finish. */
  unload(name: string): Promise<void> {
    const entry = this.#entries.get(name);
    if (!entry) {
      return Promise.reject(
        new ServerError('INVALID_ARG', `failed to unload '${name}', no version is available`),
      );
    }
    const run = entry.busy.then(() => this.#unload(entry, 'unloaded'));
    entry.busy = run.catch(() => {});
    return run;
  }

  /** The ready model version a request names ('' = the latest); throws Triton's not-found errors. */
  get(name: string, version = ''): LoadedModel {
    const entry = this.#entries.get(name);
    const neverOrUnloaded =
      entry && entry.versions.size === 0 && (entry.reason === '' || entry.reason === 'unloaded');
    if (!entry || (neverOrUnloaded && entry.state !== 'LOADING')) {
      throw Errors.unknownModel(name);
    }
    if (version) {
      const model = entry.versions.get(version);
      if (!model) throw Errors.unknownModel(name, version);
      if (entry.state !== 'READY') throw Errors.modelNotReady(name, version);
      return model;
    }
    if (entry.state !== 'READY' || entry.versions.size === 0) throw Errors.modelNotReady(name);
    return entry.versions.values().next().value!;
  }

  /** True when the model (version) is ready for inference. */
  isReady(name: string, version = ''): boolean {
    try {
      this.get(name, version);
      return true;
    } catch {
      return false;
    }
  }

  /** Triton's strict readiness: no model is loading or has failed its last load (never loaded or unloaded is fine). */
  allAvailable(): boolean {
    for (const e of this.#entries.values()) {
      if (e.state === 'LOADING') return false;
      if (e.state === 'UNAVAILABLE' && e.reason !== '' && e.reason !== 'unloaded') return false;
    }
    return true;
  }

  /** Every loaded model version, for statistics and metrics. */
  loaded(): LoadedModel[] {
    const out: LoadedModel[] = [];
    for (const name of this.names()) out.push(...this.#entries.get(name)!.versions.values());
    return out;
  }

  /** Triton's repository index; `readyOnly` keeps only ready models. */
  index(readyOnly = false): IndexRow[] {
    const rows: IndexRow[] = [];
    for (const name of this.names()) {
      const e = this.#entries.get(name)!;
      if (e.versions.size > 0) {
        for (const version of e.versions.keys())
          rows.push({ name, version, state: e.state, reason: e.reason });
      } else if (!readyOnly) {
        // Never loaded: the name alone, as Triton lists it; unloaded or failed: state and reason.
        if (!e.reason) rows.push({ name });
        else if (e.lastVersions.length === 0) rows.push({ name, state: e.state, reason: e.reason });
        else {
          for (const version of e.lastVersions)
            rows.push({ name, version, state: e.state, reason: e.reason });
        }
      }
    }
    return readyOnly ? rows.filter((r) => r.state === 'READY') : rows;
  }

  /** Unloads everything (server stop). */
  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.busy.then(() => this.#unload(e, 'unloaded'))));
  }

  async #load(entry: Entry, override?: ModelConfigJson): Promise<void> {
    const name = entry.source.name;
    const previous = [...entry.versions.values()];
    // A reload keeps serving the loaded versions until the new ones are ready, as Triton does.
    if (previous.length === 0) {
      entry.state = 'LOADING';
      entry.reason = '';
    }
    const loaded = new Map<string, LoadedModel>();
    try {
      const raw = override ?? (await entry.source.readConfig());
      if (raw.name && raw.name !== name) {
        throw new Error(`model name '${raw.name}' in config does not match the repository folder '${name}'`);
      }
      const config = completeConfig(raw, name);
      const factory = await this.#opts.registry.factoryFor(config);
      const versions = await entry.source.versions(config);
      if (versions.length === 0) throw new Error(`no version folder found for model '${name}'`);
      for (const v of versions) {
        const metrics = this.#opts.metrics.forModel(name, v.version);
        loaded.set(
          v.version,
          await LoadedModel.load({
            name,
            version: v.version,
            versionDir: v.dir,
            config,
            factory,
            metrics,
            faults: this.#opts.faults,
          }),
        );
      }
    } catch (err) {
      await Promise.all([...loaded.values()].map((m) => m.unload()));
      const reason = err instanceof Error ? err.message : String(err);
      if (previous.length === 0) {
        entry.state = 'UNAVAILABLE';
        entry.reason = reason;
      }
      this.#opts.log?.(`failed to load '${name}': ${reason}`);
      // A version's own failure reads as Triton's per-version line.
      const detail =
        err instanceof VersionLoadError
          ? `version ${err.version} is at UNAVAILABLE state: ${reason};\n`
          : reason;
      throw new ServerError('INVALID_ARG', `load failed for model '${name}': ${detail}`);
    }
    entry.versions = loaded;
    entry.state = 'READY';
    entry.reason = '';
    this.#opts.log?.(`successfully loaded '${name}' version ${[...loaded.keys()].join(', ')}`);
    // The replaced versions finish what they hold, then close.
    await Promise.all(previous.map((m) => m.unload()));
  }

  async #unload(entry: Entry, reason: string): Promise<void> {
    const models = [...entry.versions.values()];
    if (models.length === 0) return;
    entry.state = 'UNLOADING';
    await Promise.all(models.map((m) => m.unload()));
    for (const m of models) this.#opts.metrics.removeModel(m.name, m.version);
    entry.lastVersions = [...entry.versions.keys()];
    entry.versions = new Map();
    entry.state = 'UNAVAILABLE';
    entry.reason = reason;
    this.#opts.log?.(`successfully unloaded '${entry.source.name}'`);
  }
}

/** Parses the "config" parameter of a load request (a JSON string, Triton's model config JSON). */
export function parseOverride(value: unknown, model: string): ModelConfigJson {
  let json: unknown = value;
  if (typeof value === 'string') {
    try {
      json = JSON.parse(value);
    } catch (err) {
      throw Errors.badRequest(
        `failed to parse the "config" parameter of model '${model}': ${(err as Error).message}`,
      );
    }
  }
  try {
    return parseConfigJson(json, `"config" parameter of model '${model}'`);
  } catch (err) {
    throw Errors.badRequest((err as Error).message);
  }
}

async function scanDir(dir: string): Promise<ModelSource[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new Error(`model repository "${dir}" is not a readable folder; pass --model-repository DIR`);
  }
  const sources: ModelSource[] = [];
  for (const name of names.sort()) {
    const modelDir = path.join(dir, name);
    if (!(await stat(modelDir)).isDirectory()) continue;
    sources.push({
      name,
      async readConfig() {
        const file = path.join(modelDir, 'config.pbtxt');
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch {
          throw new Error(`${file} is missing (every model folder needs a config.pbtxt)`);
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
    });
  }
  return sources;
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

/** The catalog's models; mnist runs on onnxruntime when its trained model and onnxruntime-node are present. */
function defaultSources(onnxRuntime: boolean, precisions: Record<string, string>): ModelSource[] {
  const onnx = onnxRuntime && existsSync(path.join(MNIST_MODEL_DIR, 'model.onnx'));
  return catalogEntries().map((entry) => {
    const backend = entry.id === 'mnist' && onnx ? 'onnxruntime' : 'simulated';
    const dir = entry.id === 'mnist' && onnx ? MNIST_MODEL_DIR : '';
    return {
      name: entry.name,
      readConfig: async () => configFromCatalog(entry, backend, precisions[entry.id]),
      versions: async () => [{ version: '1', dir }],
    };
  });
}

/** True when onnxruntime-node is installed and its native binding loads (an install without binaries does not). */
async function onnxRuntimeLoads(): Promise<boolean> {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    const name = 'onnxruntime-node';
    await import(name);
    return true;
  } catch {
    return false;
  }
}
