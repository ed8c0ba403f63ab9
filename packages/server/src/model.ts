/**
 * One loaded model version: its instances (one Backend each), its batcher, its statistics and metrics.
 * `infer` validates, queues and resolves with the request's own slice of the batch's outputs.
 */
import { dirname } from 'node:path';
import { Batcher } from './batcher.ts';
import {
  type Backend,
  type BackendFactory,
  type EngineState,
  isDecoupledBackend,
  type TensorData,
} from './backends/types.ts';
import type { PrefixCacheCounts } from './genai/prefix-cache.ts';
import type { ModelConfigJson } from './config/types.ts';
import { asServerError, Errors, type ServerError } from './errors.ts';
import { applyFaults, FaultInjector } from './faults/injector.ts';
import { type FaultOptions, modelFaults } from './faults/spec.ts';
import { loadOutputLabels, type OutputLabels } from './infer/labels.ts';
import type { InferRequest, InferResult } from './infer/types.ts';
import { planFor, type TensorPlan, validateRequest } from './infer/validate.ts';
import type { FailureReason, ModelMetrics } from './metrics.ts';
import { backendName } from './backends/registry.ts';
import { SequenceBatcher, sequenceBatching, slotsPerInstance } from './sequence-batcher.ts';
import { ModelStats, nowNs, type RequestTimes } from './stats.ts';

interface Pending {
  id: string;
  batchSize: number;
  queue_start_ns: number;
  timeout_us: number;
  request_start_ns: number;
  req: InferRequest;
  inputs: TensorData[];
  outputNames: string[];
  resolve(result: InferResult): void;
  reject(err: ServerError, reason?: FailureReason): void;
}

/** What a model needs to load. */
export interface ModelLoadOptions {
  name: string;
  version: string;
  versionDir: string;
  config: ModelConfigJson;
  factory: BackendFactory;
  metrics: ModelMetrics;
  /** Server-wide injected faults (the config's fault_* parameters override them). */
  faults?: FaultOptions;
  /** Statistics to go on from (a model updated in place keeps its statistics); default: new ones. */
  stats?: ModelStats;
}

/** A ready model version. */
export class LoadedModel {
  readonly name: string;
  readonly version: string;
  readonly config: ModelConfigJson;
  readonly stats: ModelStats;
  readonly #plan: TensorPlan;
  readonly #instances: Backend[];
  readonly #batcher: Batcher<Pending>;
  /** Present when the config has sequence_batching: admits requests by correlation id before the queue. */
  readonly #sequences: SequenceBatcher | undefined;
  readonly #metrics: ModelMetrics;
  /** Injected faults of this model; undefined when none is configured. */
  readonly faults: FaultInjector | undefined;
  /** Classification labels of the outputs that name a label_filename. */
  readonly labels: OutputLabels;

  private constructor(
    opts: ModelLoadOptions,
    instances: Backend[],
    faults: FaultInjector | undefined,
    labels: OutputLabels,
  ) {
    this.name = opts.name;
    this.version = opts.version;
    this.config = opts.config;
    this.stats = opts.stats ?? new ModelStats(opts.name, opts.version);
    this.#metrics = opts.metrics;
    this.#plan = planFor(opts.config);
    this.#instances = instances;
    this.faults = faults;
    this.labels = labels;
    const db = opts.config.dynamic_batching;
    const policy = db?.default_queue_policy;
    const sb = sequenceBatching(opts.config);
    this.#sequences = sb
      ? new SequenceBatcher({
          model: opts.name,
          config: sb,
          slots: instances.length * slotsPerInstance(opts.config),
          uint64Only: backendName(opts.config) === 'identity',
        })
      : undefined;
    // Requests of different sequences batch together as Direct and Oldest form batches, within their delay.
    const sequenceDelay_us = Number((sb?.direct ?? sb?.oldest)?.max_queue_delay_microseconds ?? 0);
    this.#batcher = new Batcher<Pending>(
      {
        maxBatchSize: opts.config.max_batch_size,
        instanceCount: instances.length,
        dynamic: db
          ? {
              preferredBatchSizes: db.preferred_batch_size ?? [],
              maxQueueDelay_us: Number(db.max_queue_delay_microseconds ?? 0),
              maxQueueSize: Number(policy?.max_queue_size ?? 0),
              defaultTimeout_us: Number(policy?.default_timeout_microseconds ?? 0),
              allowTimeoutOverride: policy?.allow_timeout_override === true,
            }
          : sb
            ? {
                preferredBatchSizes: sb.oldest?.preferred_batch_size ?? [],
                maxQueueDelay_us: sequenceDelay_us,
                maxQueueSize: 0,
                defaultTimeout_us: 0,
                allowTimeoutOverride: false,
              }
            : undefined,
      },
      (batch, instance) => this.#execute(batch, instance),
    );
  }

  /** Creates every instance of the instance groups; closes the ones made if one fails. */
  static async load(opts: ModelLoadOptions): Promise<LoadedModel> {
    // Bad fault parameters fail the load with their message, as a bad config does.
    const injector = new FaultInjector(modelFaults(opts.config.parameters, opts.faults ?? {}, opts.name));
    // Label files live in the model's folder, the version folder's parent.
    const labels = await loadOutputLabels(opts.config, dirname(opts.versionDir), opts.version);
    const count = opts.config.instance_group.reduce((n, g) => n + (g.count ?? 1), 0);
    const instances: Backend[] = [];
    try {
      for (let i = 0; i < count; i++) {
        instances.push(
          await opts.factory({
            modelName: opts.name,
            version: opts.version,
            versionDir: opts.versionDir,
            config: opts.config,
            instance: i,
          }),
        );
      }
    } catch (err) {
      await Promise.allSettled(instances.map((b) => b.close()));
      throw err;
    }
    return new LoadedModel(opts, instances, injector.idle ? undefined : injector, labels);
  }

  /** True when the config sets model_transaction_policy { decoupled: true }: any number of responses per request. */
  get decoupled(): boolean {
    const policy = this.config.model_transaction_policy as { decoupled?: boolean } | undefined;
    return policy?.decoupled === true;
  }

  /**
   * Runs a request on a decoupled model: validated, then handed to the first instance, which batches requests
   * itself (continuous batching), so there is no queue here; `send` gets each response as it is made.
   */
  async inferStream(req: InferRequest, send: (result: InferResult) => void): Promise<void> {
    const request_start_ns = nowNs();
    if (req.signal?.aborted) throw Errors.cancelled();
    const valid = validateRequest(this.#plan, req);
    const backend = this.#instances[0]!;
    if (!isDecoupledBackend(backend)) throw Errors.internal(`model '${this.name}' has no streaming backend`);
    try {
      await backend.stream(
        valid.inputs,
        (outputs) => send({ modelName: this.name, modelVersion: this.version, id: req.id, outputs }),
        req.signal,
      );
    } catch (err) {
      throw this.#failed(asServerError(err), request_start_ns, 'BACKEND');
    }
    // A stream the client cancelled ended early: a failure of reason CANCELED, as Triton counts it.
    if (req.signal?.aborted) {
      this.#failed(Errors.cancelled(), request_start_ns, 'CANCELED');
      return;
    }
    const end_ns = nowNs();
    const times: RequestTimes = {
      request_start_ns,
      queue_start_ns: request_start_ns,
      compute_start_ns: request_start_ns,
      compute_input_end_ns: request_start_ns,
      compute_output_start_ns: end_ns,
      compute_end_ns: end_ns,
      request_end_ns: end_ns,
    };
    this.stats.recordSuccess(1, times);
    this.#metrics.success(1, times);
  }

  /** The prefix-cache counts of a generative engine that keeps one (its first instance's: it batches alone). */
  get prefixCacheCounts(): PrefixCacheCounts | undefined {
    const backend = this.#instances[0];
    return backend && isDecoupledBackend(backend) ? backend.prefixCacheCounts?.() : undefined;
  }

  /** The generative engine's state summed over the instances that have one; undefined for other models. */
  engineState(): EngineState | undefined {
    let sum: EngineState | undefined;
    for (const backend of this.#instances) {
      const state = isDecoupledBackend(backend) ? backend.engineState?.() : undefined;
      if (!state) continue;
      sum ??= { running: 0, waiting: 0, kvUsed_tokens: 0, kvCapacity_tokens: 0 };
      sum.running += state.running;
      sum.waiting += state.waiting;
      sum.kvUsed_tokens += state.kvUsed_tokens;
      sum.kvCapacity_tokens += state.kvCapacity_tokens;
    }
    return sum;
  }

  /** Requests waiting in the queue. */
  get pending(): number {
    return this.#batcher.pending;
  }

  /**
   * Applies injected faults, validates, queues and runs a request; a request whose signal aborts leaves the
   * queue. Only failures after the request was queued (and injected faults) count in the statistics, as in
   * Triton, whose frontend answers a refused request without its model ever seeing it.
   */
  async infer(req: InferRequest): Promise<InferResult> {
    const request_start_ns = nowNs();
    if (this.faults) {
      try {
        await applyFaults(this.faults.draw());
      } catch (err) {
        throw this.#failed(asServerError(err), request_start_ns);
      }
    }
    return new Promise<InferResult>((resolve, reject) => {
      const fail = (err: ServerError, reason?: FailureReason) => {
        req.signal?.removeEventListener('abort', onAbort);
        reject(this.#failed(err, request_start_ns, reason));
      };
      let pending: Pending | undefined;
      const onAbort = () => {
        if (pending && this.#batcher.cancel(pending)) pending.reject(Errors.cancelled(), 'CANCELED');
      };
      try {
        if (req.signal?.aborted) throw Errors.cancelled();
        const valid = validateRequest(this.#plan, req);
        const ticket = this.#sequences?.admit(req.id, valid.batchSize, req.parameters);
        pending = {
          id: req.id,
          batchSize: valid.batchSize,
          queue_start_ns: 0,
          timeout_us: queueTimeout_us(req.parameters.timeout),
          request_start_ns,
          req,
          inputs: valid.inputs,
          outputNames: valid.outputNames,
          resolve: (result) => {
            ticket?.done();
            req.signal?.removeEventListener('abort', onAbort);
            resolve(result);
          },
          reject: (err, reason) => {
            ticket?.done();
            fail(err, reason);
          },
        };
        req.signal?.addEventListener('abort', onAbort, { once: true });
        const queued = pending;
        if (!ticket) this.#batcher.enqueue(queued);
        // A sequence's request waits for its slot and for the sequence's earlier requests to settle.
        else
          void ticket.ready.then(() => {
            if (req.signal?.aborted) queued.reject(Errors.cancelled(), 'CANCELED');
            else this.#batcher.enqueue(queued);
          });
      } catch (err) {
        reject(asServerError(err));
      }
    });
  }

  /** Marks a failure of a queued request and counts it. */
  #failed(err: ServerError, request_start_ns: number, reason?: FailureReason): ServerError {
    err.queued = true;
    const duration_ns = nowNs() - request_start_ns;
    this.stats.recordFailure(duration_ns);
    this.#metrics.failure(duration_ns, reason ?? (err.code === 'UNAVAILABLE' ? 'REJECTED' : 'OTHER'));
    return err;
  }

  /** Waits for queued and executing requests, then closes the instances. */
  async unload(): Promise<void> {
    this.#sequences?.close();
    await this.#batcher.drain();
    await Promise.allSettled(this.#instances.map((b) => b.close()));
  }

  async #execute(batch: Pending[], instance: number): Promise<void> {
    const compute_start_ns = nowNs();
    const first = batch[0]!;
    const total = batch.reduce((n, p) => n + p.batchSize, 0);
    const inputs =
      batch.length === 1
        ? first.inputs
        : concatInputs(
            batch.map((p) => p.inputs),
            total,
          );
    const outputNames = batch.length === 1 ? first.outputNames : unionOutputs(batch);
    const compute_input_end_ns = nowNs();
    let outputs: TensorData[];
    try {
      outputs = await this.#instances[instance]!.execute(inputs, outputNames);
    } catch (err) {
      const e = asServerError(err);
      for (const p of batch) p.reject(e, 'BACKEND');
      return;
    }
    const compute_output_start_ns = nowNs();
    const byName = new Map(outputs.map((o) => [o.name, o]));
    const results: TensorData[][] = [];
    let offset = 0;
    for (const p of batch) {
      const mine: TensorData[] = [];
      for (const name of p.outputNames) {
        const out = byName.get(name);
        if (!out) {
          p.reject(Errors.internal(`backend returned no output '${name}' for model '${this.name}'`));
          break;
        }
        mine.push(batch.length === 1 ? out : sliceBatch(out, offset, p.batchSize, total));
      }
      results.push(mine);
      offset += p.batchSize;
    }
    const compute_end_ns = nowNs();
    this.stats.recordExecution(
      total,
      compute_input_end_ns - compute_start_ns,
      compute_output_start_ns - compute_input_end_ns,
      compute_end_ns - compute_output_start_ns,
    );
    this.#metrics.execution();
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      const outs = results[i]!;
      if (outs.length !== p.outputNames.length) continue;
      const times: RequestTimes = {
        request_start_ns: p.request_start_ns,
        queue_start_ns: p.queue_start_ns,
        compute_start_ns,
        compute_input_end_ns,
        compute_output_start_ns,
        compute_end_ns,
        request_end_ns: nowNs(),
      };
      this.stats.recordSuccess(p.batchSize, times);
      this.#metrics.success(p.batchSize, times);
      p.resolve({ modelName: this.name, modelVersion: this.version, id: p.req.id, outputs: outs });
    }
  }
}

/** The request's "timeout" parameter in microseconds (the decoders checked its type; 0: the model's default). */
function queueTimeout_us(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** Concatenates each input along the batch dimension (inputs are in config order in every request). */
function concatInputs(perRequest: TensorData[][], total: number): TensorData[] {
  const first = perRequest[0]!;
  return first.map((t, k) => {
    let bytes = 0;
    for (const inputs of perRequest) bytes += inputs[k]!.data.length;
    const data = new Uint8Array(bytes);
    let offset = 0;
    for (const inputs of perRequest) {
      data.set(inputs[k]!.data, offset);
      offset += inputs[k]!.data.length;
    }
    return { name: t.name, datatype: t.datatype, shape: [total, ...t.shape.slice(1)], data };
  });
}

function unionOutputs(batch: Pending[]): string[] {
  const names = new Set<string>();
  for (const p of batch) for (const n of p.outputNames) names.add(n);
  return [...names];
}

/** One request's rows of a batch output: a view, not a copy (BYTES walks its length prefixes). */
function sliceBatch(out: TensorData, start: number, count: number, total: number): TensorData {
  const shape = [count, ...out.shape.slice(1)];
  if (out.datatype !== 'BYTES') {
    const per = out.data.length / total;
    return { ...out, shape, data: out.data.subarray(start * per, (start + count) * per) };
  }
  const perItem = shape.slice(1).reduce((a, b) => a * b, 1);
  const view = new DataView(out.data.buffer, out.data.byteOffset, out.data.length);
  let offset = 0;
  const skip = (elements: number) => {
    for (let i = 0; i < elements; i++) offset += 4 + view.getUint32(offset, true);
  };
  skip(start * perItem);
  const from = offset;
  skip(count * perItem);
  return { ...out, shape, data: out.data.subarray(from, offset) };
}
