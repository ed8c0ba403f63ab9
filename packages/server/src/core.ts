/**
 * The protocol-independent server: what both transports call. Health, metadata, config, infer, statistics and
 * repository control, each answering plain records or throwing ServerError.
 */
import { fromConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { ModelConfigJson } from './config/types.ts';
import { Errors } from './errors.ts';
import { classify } from './infer/classification.ts';
import { requestedVersion } from './infer/model-version.ts';
import type { InferRequest, InferResult } from './infer/types.ts';
import type { EngineSeries, ServerMetrics } from './metrics.ts';
import type { ModelPrefixCache } from './genai/prefix-cache-metrics.ts';
import type { LoadedModel } from './model.ts';
import type { IndexRow, Repository } from './repository.ts';
import type { ModelStatisticsJson } from './stats.ts';

/**
 * Extensions this server implements, named and ordered as Triton 2.60 lists them in its server metadata; the ones
 * it leaves out (system_shared_memory, cuda_shared_memory, logging) are in packages/server/README.md.
 */
export const EXTENSIONS = [
  'classification',
  'sequence',
  'model_repository',
  'model_repository(unload_dependents)',
  'schedule_policy',
  'model_configuration',
  'binary_tensor_data',
  'parameters',
  'statistics',
];

/** The Triton release whose behaviour the server follows (test/triton holds it to that release). */
export const SERVER_VERSION = '2.60.0';

/** Model metadata as GET v2/models/M returns it. */
export interface ModelMetadataJson {
  name: string;
  versions: string[];
  platform: string;
  inputs: { name: string; datatype: string; shape: number[] }[];
  outputs: { name: string; datatype: string; shape: number[] }[];
}

/** A load request's parameters once its transport has read them. */
export interface LoadParameters {
  /** The "config" parameter: a model config in Triton's JSON form, as text. */
  config?: string;
  /** Names of "file:<path>" parameters (model files sent with the request). */
  files: string[];
}

/** Core settings. */
export interface CoreOptions {
  repository: Repository;
  metrics: ServerMetrics;
  /** 'none' loads every model at start and refuses load/unload; 'explicit' allows them. */
  modelControlMode: 'none' | 'explicit';
}

/** The server's state and operations shared by HTTP and gRPC. */
export class InferenceCore {
  readonly repository: Repository;
  readonly metrics: ServerMetrics;
  readonly modelControlMode: 'none' | 'explicit';
  #stopping = false;
  #inflight = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(opts: CoreOptions) {
    this.repository = opts.repository;
    this.metrics = opts.metrics;
    this.modelControlMode = opts.modelControlMode;
  }

  /** Liveness: true until the process exits. */
  live(): boolean {
    return true;
  }

  /** Readiness (Triton's --strict-readiness default): false once stopping or while a model is not available. */
  ready(): boolean {
    return !this.#stopping && this.repository.allAvailable();
  }

  /** Server metadata (GET v2). */
  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: 'triton', version: SERVER_VERSION, extensions: EXTENSIONS };
  }

  /** Model metadata; shapes carry -1 for the batch dimension when the model batches. */
  modelMetadata(name: string, versionText = ''): ModelMetadataJson {
    const version = requestedVersion(versionText);
    const model = this.repository.get(name, version);
    const c = model.config;
    const batch = c.max_batch_size > 0 ? [-1] : [];
    const tensor = (t: { name: string; data_type: string; dims: number[] }) => ({
      name: t.name,
      datatype: fromConfigDatatype(t.data_type),
      shape: [...batch, ...t.dims],
    });
    const versions = this.repository.readyVersions(name).map((m) => m.version);
    return {
      name,
      versions: version ? [version] : versions,
      platform: c.platform || c.backend,
      inputs: c.input.map(tensor),
      outputs: c.output.map(tensor),
    };
  }

  /** The model's config (Triton's JSON form). */
  modelConfig(name: string, version = ''): ModelConfigJson {
    return this.repository.get(name, requestedVersion(version)).config;
  }

  /** Model readiness: false for a model or version that is not ready; throws for a version that is not a number. */
  modelReady(name: string, version = ''): boolean {
    return this.live() && this.repository.isReady(name, requestedVersion(version));
  }

  /** The model an inference request names, its version read as Triton reads it ('' = the latest ready one). */
  inferTarget(name: string, version: string): LoadedModel {
    return this.repository.get(name, requestedVersion(version));
  }

  /** Runs one inference; counted as in flight until it settles. */
  async infer(req: InferRequest): Promise<InferResult> {
    if (this.#stopping) throw Errors.serverStopping();
    const model = this.inferTarget(req.modelName, req.modelVersion);
    this.#inflight += 1;
    try {
      const result = await model.infer(req);
      if (!req.outputs?.some((o) => o.classCount)) return result;
      const k = new Map(req.outputs.map((o) => [o.name, o.classCount ?? 0]));
      const batched = model.config.max_batch_size > 0;
      return {
        ...result,
        outputs: result.outputs.map((o) =>
          k.get(o.name) ? classify(o, k.get(o.name)!, batched, model.labels.get(o.name)) : o,
        ),
      };
    } finally {
      this.#settled();
    }
  }

  #settled(): void {
    this.#inflight -= 1;
    if (this.#inflight === 0 && this.#idleWaiters.length > 0) {
      for (const w of this.#idleWaiters.splice(0)) w();
    }
  }

  /** Runs one request on a decoupled model, `send` taking each response; counted as in flight until it settles. */
  async inferStream(req: InferRequest, send: (result: InferResult) => void): Promise<void> {
    if (this.#stopping) throw Errors.serverStopping();
    const model = this.inferTarget(req.modelName, req.modelVersion);
    this.#inflight += 1;
    try {
      await model.inferStream(req, send);
    } finally {
      this.#settled();
    }
  }

  /** Statistics of one model (version) or of every loaded model. */
  statistics(name = '', versionText = ''): { model_stats: ModelStatisticsJson[] } {
    const version = requestedVersion(versionText);
    if (!name) return { model_stats: this.repository.loaded().map((m) => m.stats.toJson()) };
    const ready = this.repository.readyVersions(name);
    if (ready.length === 0) throw Errors.statsUnavailable(name);
    const chosen = version ? ready.filter((m) => m.version === version) : ready;
    if (chosen.length === 0) throw Errors.statsVersionUnavailable(name);
    return { model_stats: chosen.map((m) => m.stats.toJson()) };
  }

  /** Repository index (POST v2/repository/index). */
  repositoryIndex(readyOnly = false): Promise<IndexRow[]> {
    return this.repository.index(readyOnly);
  }

  /** Loads a model, `parameters.config` overriding its config (explicit mode only). */
  async loadModel(name: string, parameters: LoadParameters = { files: [] }): Promise<void> {
    if (this.modelControlMode !== 'explicit') throw Errors.modelControlDisabled();
    if (parameters.files.length > 0)
      throw Errors.unsupported('loading model files through the load API ("file:" parameters)');
    await this.repository.load(name, parameters.config);
  }

  /** Unloads a model (explicit mode only); unloading a model that is not loaded succeeds, as in Triton. */
  async unloadModel(name: string): Promise<void> {
    if (this.modelControlMode !== 'explicit') throw Errors.modelControlDisabled();
    await this.repository.unload(name);
  }

  /** Queued requests per loaded model version (the pending-request gauge). */
  pendingCounts(): { model: string; version: string; count: number }[] {
    return this.repository.loaded().map((m) => ({ model: m.name, version: m.version, count: m.pending }));
  }

  /** The prefix-cache counts of every loaded model that keeps a prefix cache. */
  prefixCacheCounts(): ModelPrefixCache[] {
    return this.repository.loaded().flatMap((m) => {
      const counts = m.prefixCacheCounts;
      return counts ? [{ model: m.name, version: m.version, counts }] : [];
    });
  }

  /** The generative engines' state of every loaded model version that has one. */
  engineStates(): EngineSeries[] {
    return this.repository.loaded().flatMap((m) => {
      const state = m.engineState();
      return state ? [{ model: m.name, version: m.version, state }] : [];
    });
  }

  /** Requests accepted and not yet settled. */
  get inflight(): number {
    return this.#inflight;
  }

  /** Stops accepting requests and resolves when every in-flight request has settled. */
  async drain(): Promise<void> {
    this.#stopping = true;
    if (this.#inflight === 0) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }
}
