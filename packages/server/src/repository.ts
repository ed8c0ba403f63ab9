/**
 * The model repository as Triton's repository manager and model lifecycle keep it: the models the repository
 * holds (model-sources.ts, read again on every load and index), each version's state and reason, loads with an
 * optional config override and unloads (explicit mode). A load that cannot read the config changes nothing; a
 * load that fails in a backend marks the versions it could not load, and a served version keeps serving.
 */
import { checkJsonBounds } from './json-bounds.ts';
import { isDeepStrictEqual } from 'node:util';
import type { BackendRegistry } from './backends/registry.ts';
import { completeConfig } from './config/normalize.ts';
import { parseConfigJson } from './config/parse.ts';
import { validateConfig, validateIo } from './config/validate.ts';
import type { ModelConfigJson } from './config/types.ts';
import { Errors, VersionLoadError } from './errors.ts';
import type { FaultOptions } from './faults/spec.ts';
import type { ServerMetrics } from './metrics.ts';
import { LoadedModel } from './model.ts';
import {
  folderSources,
  type ModelDefinition,
  memorySources,
  type ModelSource,
  type ModelStamp,
  overrideStamp,
  stampChanged,
  versionFilesChanged,
} from './model-sources.ts';
import { nowNs } from './stats.ts';

/** Triton's model states as the repository index reports them. */
export type ModelState = 'READY' | 'UNAVAILABLE' | 'LOADING' | 'UNLOADING';

/** One version's lifecycle record: its state, why it is not ready, and the model while it serves. */
interface VersionRecord {
  state: ModelState;
  reason: string;
  model?: LoadedModel;
}

interface Entry {
  source: ModelSource;
  /** Per version, Triton's lifecycle record; undefined until a load gets past reading the config. */
  records?: Map<string, VersionRecord>;
  /** The model's file times at its last successful load; undefined while it is not loaded. */
  stamp?: ModelStamp;
  /** Serialises load/unload of one model. */
  busy: Promise<void>;
}

/** One row of the repository index; state and reason only once a load was tried, reason only when not empty. */
export interface IndexRow {
  name: string;
  version?: string;
  state?: ModelState;
  reason?: string;
}

/** Repository settings. */
export interface RepositoryOptions {
  /** Triton-layout folder; absent: the models handed over in `models`. */
  dir?: string;
  /** Models in memory, served when no folder is given. */
  models?: readonly ModelDefinition[];
  registry: BackendRegistry;
  metrics: ServerMetrics;
  log?: (line: string) => void;
  /** Server-wide injected faults; each model's fault_* parameters override them. */
  faults?: FaultOptions;
}

/** Holds every model the repository knows and the lifecycle of each of its versions. */
export class Repository {
  readonly #opts: RepositoryOptions;
  readonly #entries = new Map<string, Entry>();
  /** Names the repository holds now (a model whose folder went away keeps serving but leaves the index). */
  #present: string[] = [];
  #memoryRead = false;

  constructor(opts: RepositoryOptions) {
    this.#opts = opts;
  }

  /** Reads the repository's model list again (configs are read at load time). */
  async scan(): Promise<void> {
    if (!this.#opts.dir && this.#memoryRead) return;
    const sources = this.#opts.dir
      ? await folderSources(this.#opts.dir)
      : memorySources(this.#opts.models ?? []);
    this.#memoryRead = true;
    for (const source of sources) {
      if (!this.#entries.has(source.name))
        this.#entries.set(source.name, { source, busy: Promise.resolve() });
    }
    this.#present = sources.map((s) => s.name).sort();
  }

  /** Model names in the repository as last scanned, sorted. */
  names(): string[] {
    return [...this.#present];
  }

  /**
   * Loads a model, or reloads it when its files changed or `override` (the load API's "config" parameter, a JSON
   * text) is given; an unchanged loaded model is left as it is, statistics and any earlier override included.
   */
  async load(name: string, override?: string): Promise<void> {
    await this.scan();
    const entry = this.#present.includes(name) ? this.#entries.get(name) : undefined;
    if (!entry) throw Errors.pollFailed(name, 'model not found in any model repository');
    const run = entry.busy.then(() => this.#load(entry, override));
    entry.busy = run.catch(() => {});
    return run;
  }

  /** Unloads a model after its queued and executing requests finish; a model not loaded is left as it is. */
  unload(name: string): Promise<void> {
    const entry = this.#entries.get(name);
    if (!entry) return Promise.resolve();
    const run = entry.busy.then(() => this.#unload(entry));
    entry.busy = run.catch(() => {});
    return run;
  }

  /** The ready model version a request names ('' = the newest ready one); throws Triton's not-found errors. */
  get(name: string, version = ''): LoadedModel {
    // Triton's lifecycle: a model no load reached is unknown; an unloaded one keeps its versions, not ready.
    const records = this.#entries.get(name)?.records;
    if (!records) throw Errors.unknownModel(name);
    if (version) {
      const record = records.get(version);
      if (!record) throw Errors.unknownModel(name, version);
      if (record.state !== 'READY' || !record.model) throw Errors.modelNotReady(name, version);
      return record.model;
    }
    // The newest ready version, as readyVersions(name).at(-1) finds it, without sorting on every request.
    let newest: LoadedModel | undefined;
    let newestNumber = Number.NEGATIVE_INFINITY;
    for (const [v, r] of records) {
      if (r.state !== 'READY' || !r.model || Number(v) < newestNumber) continue;
      newest = r.model;
      newestNumber = Number(v);
    }
    if (!newest) throw Errors.modelNotReady(name);
    return newest;
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

  /** The ready versions of a model, oldest first (none when it is unknown or not loaded). */
  readyVersions(name: string): LoadedModel[] {
    const records = this.#entries.get(name)?.records ?? new Map<string, VersionRecord>();
    return byVersion([...records])
      .map(([, r]) => (r.state === 'READY' ? r.model : undefined))
      .filter((m): m is LoadedModel => m !== undefined);
  }

  /**
   * Triton's strict readiness: every model a load was tried on has a version, and each version is ready or was
   * unloaded. Models never loaded do not count; one whose config could not be read was never tried.
   */
  allAvailable(): boolean {
    for (const e of this.#entries.values()) {
      if (!e.records) continue;
      if (e.records.size === 0) return false;
      for (const r of e.records.values()) if (r.state !== 'READY' && r.reason !== 'unloaded') return false;
    }
    return true;
  }

  /** Every ready model version, by model name then version, for statistics and metrics. */
  loaded(): LoadedModel[] {
    return [...this.#entries.keys()].sort().flatMap((name) => this.readyVersions(name));
  }

  /** Triton's repository index of the models the repository holds now; `readyOnly` keeps ready versions only. */
  async index(readyOnly = false): Promise<IndexRow[]> {
    await this.scan();
    const rows: IndexRow[] = [];
    for (const name of this.#present) {
      const records = this.#entries.get(name)?.records;
      if (!records) {
        if (!readyOnly) rows.push({ name });
        continue;
      }
      for (const [version, r] of byVersion([...records])) {
        if (readyOnly && r.state !== 'READY') continue;
        rows.push({ name, version, state: r.state, ...(r.reason ? { reason: r.reason } : {}) });
      }
    }
    return rows;
  }

  /** Unloads everything (server stop). */
  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.busy.then(() => this.#unload(e))));
  }

  async #load(entry: Entry, override: string | undefined): Promise<void> {
    const name = entry.source.name;
    const files = await entry.source.stamp();
    // Triton compares file times: a plain load of a model nothing changed in since its last load does nothing.
    if (override === undefined && entry.stamp && !stampChanged(entry.stamp, files)) return;
    const config = await this.#poll(entry, override);
    const versions = await entry.source.versions(config);
    entry.records ??= new Map();
    if (versions.length === 0) {
      throw Errors.loadFailed(
        name,
        `at least one version must be available under the version policy of model '${name}'`,
      );
    }
    const records = entry.records;
    const made: Attempt[] = [];
    for (const { version, dir } of versions) {
      const record = records.get(version);
      const serving = record?.state === 'READY' ? record.model : undefined;
      if (!serving) records.set(version, { state: 'LOADING', reason: '' });
      // Only instance groups or the version policy changed and the files did not: Triton updates the model in
      // place, and its statistics go on.
      const update =
        serving !== undefined &&
        sameExceptInstances(serving.config, config) &&
        !versionFilesChanged(entry.stamp ?? new Map(), files, version);
      made.push(await this.#loadVersion({ name, version, dir, config, serving, update }));
    }
    const failed = made.filter((m) => m.error !== undefined);
    if (failed.length > 0) {
      // All or nothing, as in Triton: the versions that did load are unloaded again; served versions stay.
      for (const m of made) {
        if (m.replaces) continue;
        if (m.model) await m.model.unload();
        this.#opts.metrics.removeModel(name, m.version);
        records.set(m.version, m.error ? { state: 'UNAVAILABLE', reason: m.error } : unloaded());
      }
      await Promise.all(made.filter((m) => m.replaces && m.model).map((m) => m.model!.unload()));
      this.#opts.log?.(`failed to load '${name}'`);
      throw Errors.loadFailed(
        name,
        failed.map((m) => `version ${m.version} is at UNAVAILABLE state: ${m.error};`).join(''),
      );
    }
    const retired: LoadedModel[] = [];
    for (const [version, r] of records) {
      if (r.model && !versions.some((v) => v.version === version)) {
        retired.push(r.model);
        records.set(version, unloaded());
      }
    }
    for (const m of made) {
      records.set(m.version, { state: 'READY', reason: '', model: m.model });
      if (m.replaces) retired.push(m.replaces);
    }
    entry.stamp = override === undefined ? files : overrideStamp(files);
    this.#opts.log?.(`successfully loaded '${name}' version ${versions.map((v) => v.version).join(', ')}`);
    // The replaced versions finish what they hold, then close.
    await Promise.all(retired.map((m) => m.unload()));
    for (const m of retired) {
      if (!records.get(m.version)?.model) this.#opts.metrics.removeModel(name, m.version);
    }
  }

  /** Loads one version; a failure is its reason in Triton's form, "<Code>: <message>". */
  async #loadVersion(v: {
    name: string;
    version: string;
    dir: string;
    config: ModelConfigJson;
    /** The version served now, if any. */
    serving: LoadedModel | undefined;
    /** Update in place: the new instances go on with the served version's statistics. */
    update: boolean;
  }): Promise<Attempt> {
    const { name, version, config, serving } = v;
    const start_ns = nowNs();
    try {
      validateIo(config);
      const model = await LoadedModel.load({
        name,
        version,
        versionDir: v.dir,
        config,
        factory: await this.#opts.registry.factoryFor(config),
        metrics: this.#opts.metrics.forModel(name, version),
        faults: this.#opts.faults,
        ...(v.update && serving ? { stats: serving.stats } : {}),
      });
      if (!v.update) this.#opts.metrics.loadTime(name, version, (nowNs() - start_ns) / 1e9);
      return { version, model, replaces: serving };
    } catch (err) {
      // A backend's own check says its Triton code; any other failure reads as Triton's "Invalid argument".
      const reason =
        err instanceof VersionLoadError
          ? err.message
          : `Invalid argument: ${err instanceof Error ? err.message : String(err)}`;
      return { version, error: reason, replaces: serving };
    }
  }

  /** Reads (or parses the override of) a model's config and completes it; a failure leaves the model as it was. */
  async #poll(entry: Entry, override: string | undefined): Promise<ModelConfigJson> {
    const name = entry.source.name;
    try {
      const raw = override === undefined ? await entry.source.readConfig() : parseOverride(override);
      const config = completeConfig(raw, name, await entry.source.versionFolder());
      validateConfig(config);
      if (config.name !== name) {
        throw new Error(
          `unexpected directory name '${name}' for model '${config.name}', directory name must equal model name`,
        );
      }
      return config;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.#opts.log?.(`Poll failed for model directory '${name}': ${reason}`);
      throw Errors.pollFailed(name, reason);
    }
  }

  async #unload(entry: Entry): Promise<void> {
    // The next load reads the repository again, whatever changed or not.
    entry.stamp = undefined;
    const served = [...(entry.records ?? [])].filter(([, r]) => r.model);
    if (served.length === 0) return;
    for (const [, r] of served) r.state = 'UNLOADING';
    await Promise.all(served.map(([, r]) => r.model!.unload()));
    for (const [version] of served) {
      this.#opts.metrics.removeModel(entry.source.name, version);
      entry.records!.set(version, unloaded());
    }
    this.#opts.log?.(`successfully unloaded '${entry.source.name}'`);
  }
}

/** One version's load: the model made, or why it failed; `replaces` is the version it would take over from. */
interface Attempt {
  version: string;
  model?: LoadedModel;
  replaces?: LoadedModel;
  error?: string;
}

function unloaded(): VersionRecord {
  return { state: 'UNAVAILABLE', reason: 'unloaded' };
}

/** Version records in Triton's order, oldest version first. */
function byVersion<T>(records: [string, T][]): [string, T][] {
  return records.sort((a, b) => Number(a[0]) - Number(b[0]));
}

/** Triton's ConfigChangeRequiresReload, negated: equal but for instance groups and the version policy. */
function sameExceptInstances(a: ModelConfigJson, b: ModelConfigJson): boolean {
  const strip = ({ instance_group: _i, version_policy: _v, ...rest }: ModelConfigJson) => rest;
  return isDeepStrictEqual(strip(a), strip(b));
}

/** The load API's "config" parameter: Triton's model config JSON, as text. */
function parseOverride(text: string): ModelConfigJson {
  let json: unknown;
  try {
    checkJsonBounds(Buffer.from(text));
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`Invalid config override: ${(err as Error).message}`);
  }
  try {
    return parseConfigJson(json, 'config override');
  } catch (err) {
    throw new Error(`Invalid config override: ${(err as Error).message}`);
  }
}
