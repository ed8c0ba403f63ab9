/**
 * Prometheus metrics with Triton's names (served on the metrics port at /metrics), via prom-client.
 * Per-model counters are plain numbers bound once per model version (a request costs a few additions), copied into
 * the counters when they are read.
 */
import os from 'node:os';
import { Counter, Gauge, Registry } from 'prom-client';
import type { EngineState } from './backends/types.ts';
import type { RequestTimes } from './stats.ts';

type Labels = 'model' | 'version';

/** Triton's failure reasons: REJECTED (queue full, queue timeout), CANCELED, BACKEND (execution failed), OTHER. */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
const REASONS: FailureReason[] = ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'];

/** The Content-Type Triton's metrics endpoint answers with. */
export const METRICS_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** One loaded model version's generative engine state. */
export interface EngineSeries {
  model: string;
  version: string;
  state: EngineState;
}

/**
 * Tokens per KV cache block in the engine metrics: the simulator reserves tokens; its pool is reported as
 * blocks of this many (vLLM's default block size), the reserved tokens rounded up.
 */
export const KV_BLOCK_TOKENS = 16;

/** The bound counters of one model version. */
export interface ModelMetrics {
  success(batchSize: number, t: RequestTimes): void;
  failure(duration_ns: number, reason: FailureReason): void;
  execution(): void;
}

/** Owns the registry and Triton's metric families. */
/** Families a backend adds (TensorRT-LLM's, vLLM's): printed only while a loaded model has a series of them. */
const BACKEND_FAMILY = /^(nv_trt_llm_|vllm:)/;

/**
 * The exposition text without the backend families that have no series: Triton prints a backend's families
 * only where that backend runs, so a server without a generative model shows none of them.
 */
export function withoutEmptyBackendFamilies(text: string): string {
  const out: string[] = [];
  let family: string[] = [];
  let name = '';
  const flush = () => {
    const samples = family.some((line) => line !== '' && !line.startsWith('#'));
    if (samples || !BACKEND_FAMILY.test(name)) out.push(...family);
    family = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('# HELP ')) {
      flush();
      name = line.slice(7).split(' ')[0] ?? '';
    }
    family.push(line);
  }
  flush();
  return out.join('\n');
}

export class ServerMetrics {
  readonly registry = new Registry();
  /** Each loaded model version's counts, in plain numbers: the counters read them at scrape time. */
  readonly #series = new Map<string, ModelCounts>();
  /** Failure counts by model, reason and version; kept past an unload, as Triton keeps them. */
  readonly #failures = new Map<string, FailureCount>();
  readonly #loadTime: Gauge<Labels>;
  #lastCpu = cpuTimes();

  /**
   * `pending()` lists the queued request count of every loaded model version; `engines()` the generative
   * engines' state, served under TensorRT-LLM's backend's names (docs/generative-model.md#engine-metrics).
   */
  constructor(
    pending: () => { model: string; version: string; count: number }[],
    engines: () => EngineSeries[] = () => [],
  ) {
    const registers = [this.registry];
    const series = this.#series;
    // A request adds to plain numbers (a bound prom-client counter hashes and checks its labels on every inc);
    // each counter copies the numbers in when it is read.
    const counter = (name: string, help: string, key: keyof Omit<ModelCounts, 'model' | 'version'>) =>
      new Counter<Labels>({
        name,
        help,
        labelNames: ['model', 'version'],
        registers,
        collect() {
          this.reset();
          for (const c of series.values()) this.inc({ model: c.model, version: c.version }, c[key]);
        },
      });
    counter(
      'nv_inference_request_success',
      'Number of successful inference requests, all batch sizes',
      'success',
    );
    const failures = this.#failures;
    new Counter<Labels | 'reason'>({
      name: 'nv_inference_request_failure',
      help: 'Number of failed inference requests, all batch sizes',
      // Triton prints labels in name order.
      labelNames: ['model', 'reason', 'version'],
      registers,
      collect() {
        this.reset();
        for (const f of failures.values()) {
          this.inc({ model: f.model, reason: f.reason, version: f.version }, f.count);
        }
      },
    });
    counter(
      'nv_inference_count',
      'Number of inferences performed (does not include cached requests)',
      'count',
    );
    counter(
      'nv_inference_exec_count',
      'Number of model executions performed (does not include cached requests)',
      'exec',
    );
    counter(
      'nv_inference_request_duration_us',
      'Cumulative inference request duration in microseconds (includes cached requests)',
      'requestUs',
    );
    counter(
      'nv_inference_queue_duration_us',
      'Cumulative inference queuing duration in microseconds (includes cached requests)',
      'queueUs',
    );
    counter(
      'nv_inference_compute_input_duration_us',
      'Cumulative compute input duration in microseconds (does not include cached requests)',
      'inputUs',
    );
    counter(
      'nv_inference_compute_infer_duration_us',
      'Cumulative compute inference duration in microseconds (does not include cached requests)',
      'inferUs',
    );
    counter(
      'nv_inference_compute_output_duration_us',
      'Cumulative inference compute output duration in microseconds (does not include cached requests)',
      'outputUs',
    );
    this.#loadTime = new Gauge({
      name: 'nv_model_load_duration_secs',
      help: 'Model load time in seconds',
      labelNames: ['model', 'version'],
      registers,
    });
    new Gauge({
      name: 'nv_inference_pending_request_count',
      help: 'Instantaneous number of pending requests awaiting execution per-model.',
      labelNames: ['model', 'version'],
      registers,
      collect() {
        this.reset();
        for (const p of pending()) this.set({ model: p.model, version: p.version }, p.count);
      },
    });
    new Gauge({
      name: 'nv_trt_llm_request_metrics',
      help: 'TRT LLM request metrics',
      labelNames: ['model', 'request_type', 'version'],
      registers,
      collect() {
        this.reset();
        for (const { model, version, state } of engines()) {
          // Every admitted sequence runs in each step, so all active requests are scheduled.
          this.set({ model, request_type: 'active', version }, state.running);
          this.set({ model, request_type: 'scheduled', version }, state.running);
          this.set({ model, request_type: 'waiting', version }, state.waiting);
        }
      },
    });
    new Gauge({
      name: 'nv_trt_llm_kv_cache_block_metrics',
      help: 'TRT LLM KV cache block metrics',
      labelNames: ['kv_cache_block_type', 'model', 'version'],
      registers,
      collect() {
        this.reset();
        for (const { model, version, state } of engines()) {
          const max = Math.ceil(state.kvCapacity_tokens / KV_BLOCK_TOKENS);
          const used = Math.min(max, Math.ceil(state.kvUsed_tokens / KV_BLOCK_TOKENS));
          const set = (type: string, value: number) =>
            this.set({ kv_cache_block_type: type, model, version }, value);
          set('tokens_per', KV_BLOCK_TOKENS);
          set('used', used);
          set('free', max - used);
          set('max', max);
        }
      },
    });
    const self = this;
    new Gauge({
      name: 'nv_cpu_utilization',
      help: 'CPU utilization rate [0.0 - 1.0]',
      registers,
      collect() {
        const now = cpuTimes();
        const total = now.total - self.#lastCpu.total;
        this.set(total > 0 ? (now.busy - self.#lastCpu.busy) / total : 0);
        self.#lastCpu = now;
      },
    });
    new Gauge({
      name: 'nv_cpu_memory_total_bytes',
      help: 'CPU total memory (RAM), in bytes',
      registers,
      collect() {
        this.set(os.totalmem());
      },
    });
    new Gauge({
      name: 'nv_cpu_memory_used_bytes',
      help: 'CPU used memory (RAM), in bytes',
      registers,
      collect() {
        this.set(os.totalmem() - os.freemem());
      },
    });
  }

  /**
   * Counters bound to one model version (at zero, so they show before the first request); a version loaded
   * again goes on from its counts, as prom-client's labelled series did.
   */
  forModel(model: string, version: string): ModelMetrics {
    const key = `${model}\0${version}`;
    let c = this.#series.get(key);
    if (!c) {
      c = {
        model,
        version,
        success: 0,
        count: 0,
        exec: 0,
        requestUs: 0,
        queueUs: 0,
        inputUs: 0,
        inferUs: 0,
        outputUs: 0,
      };
      this.#series.set(key, c);
    }
    const counts = c;
    const failures = new Map<FailureReason, FailureCount>();
    for (const reason of REASONS) {
      const fkey = `${model}\0${reason}\0${version}`;
      let f = this.#failures.get(fkey);
      if (!f) {
        f = { model, reason, version, count: 0 };
        this.#failures.set(fkey, f);
      }
      failures.set(reason, f);
    }
    return {
      success(batchSize, t) {
        counts.success += 1;
        counts.count += batchSize;
        counts.requestUs += Math.round((t.request_end_ns - t.request_start_ns) / 1000);
        counts.queueUs += Math.round((t.compute_start_ns - t.queue_start_ns) / 1000);
        counts.inputUs += Math.round((t.compute_input_end_ns - t.compute_start_ns) / 1000);
        counts.inferUs += Math.round((t.compute_output_start_ns - t.compute_input_end_ns) / 1000);
        counts.outputUs += Math.round((t.compute_end_ns - t.compute_output_start_ns) / 1000);
      },
      failure(duration_ns, reason) {
        failures.get(reason)!.count += 1;
        counts.requestUs += Math.round(duration_ns / 1000);
      },
      execution() {
        counts.exec += 1;
      },
    };
  }

  /** How long a model version took to load. */
  loadTime(model: string, version: string, seconds: number): void {
    this.#loadTime.set({ model, version }, seconds);
  }

  /**
   * Drops a model version's series (on unload, or after a failed load). Triton keeps the failure counters: they
   * stay in /metrics, as there.
   */
  removeModel(model: string, version: string): void {
    this.#loadTime.remove({ model, version });
    this.#series.delete(`${model}\0${version}`);
  }
}

/** One model version's counter values. */
interface ModelCounts {
  model: string;
  version: string;
  success: number;
  count: number;
  exec: number;
  requestUs: number;
  queueUs: number;
  inputUs: number;
  inferUs: number;
  outputUs: number;
}

/** One failure series' value. */
interface FailureCount {
  model: string;
  reason: FailureReason;
  version: string;
  count: number;
}

function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    const sum = t.user + t.nice + t.sys + t.idle + t.irq;
    total += sum;
    busy += sum - t.idle;
  }
  return { busy, total };
}
