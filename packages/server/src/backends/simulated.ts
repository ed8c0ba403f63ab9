/**
 * The simulated backend: answers with deterministic outputs of the right names, shapes and datatypes
 * (simulated-outputs.ts) after waiting the compute time its latency profile gives for the batch size.
 * Time is waited on a timer, not burned, so instances overlap as on a GPU.
 *
 * Per-model knobs, as config.pbtxt parameters { key: "..." value: { string_value: "..." } }:
 *   latency_profile  a profile's name (ServerOptions.latencyProfiles, or "zero"; default: the one named as the
 *                    model, else "zero")
 *   compute_ms       a fixed compute time instead of a profile
 *   time_scale       multiplies the compute time (default: the server's --time-scale)
 *   jitter           relative spread, e.g. 0.1 for ±10% (uniform)
 *   error_rate       probability in [0, 1] that a batch fails with an internal error
 *   extra_delay_ms   added to every batch
 */
import { fromConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { createRandom } from '@k6-triton/lib/random/random.ts';
import {
  computeMs,
  getProfile,
  type LatencyProfile,
  type LatencyProfiles,
  profileTable,
} from './profiles.ts';
import { dimsToString } from '../errors.ts';
import { fillOutput, hashBatch } from './simulated-outputs.ts';
import type { Backend, BackendContext, BackendFactory, TensorData } from './types.ts';

/** Server-wide defaults for every simulated model (each model's parameters override them). */
export interface SimulatedOptions {
  /** @default 1 */
  timeScale?: number;
  /** @default 0 */
  jitter?: number;
  /** @default 0 */
  errorRate?: number;
  /** @default 0 */
  extraDelay_ms?: number;
  /** Seed of the jitter and error draws. @default 1 */
  seed?: number;
}

interface Knobs {
  profile: LatencyProfile | undefined;
  fixed_ms: number | undefined;
  timeScale: number;
  jitter: number;
  errorRate: number;
  extraDelay_ms: number;
}

/**
 * The most elements one output may have per request at the largest batch (its fixed dims; a -1 dim counts 1, as it
 * takes an input's size, which the body limit bounds): 16 Mi, 64 MiB of FP32, the size of the default largest
 * request body. A config asking more (e.g. an override giving dims [1,50000000]) is refused at load, as a Triton
 * backend refuses a config its model does not fit, instead of making every answer allocate and encode it.
 */
export const MAX_OUTPUT_ELEMENTS = 16 * 1024 * 1024;

/** A factory of simulated backends with the server's defaults and the latency profiles it was given. */
export function simulatedFactory(
  defaults: SimulatedOptions = {},
  given: LatencyProfiles = {},
): BackendFactory {
  const profiles = profileTable(given);
  return async (ctx) => {
    checkOutputSizes(ctx);
    return new SimulatedBackend(ctx, knobs(ctx, defaults, profiles), (defaults.seed ?? 1) + ctx.instance);
  };
}

/** Throws, in the words of Triton's load-time checks, for an output larger than MAX_OUTPUT_ELEMENTS. */
function checkOutputSizes(ctx: BackendContext): void {
  const batch = Math.max(1, ctx.config.max_batch_size);
  for (const o of ctx.config.output) {
    const elements = batch * (o.dims ?? []).reduce((n, d) => n * Math.max(1, Number(d)), 1);
    if (elements > MAX_OUTPUT_ELEMENTS) {
      throw new Error(
        `unable to load model '${ctx.modelName}', output '${o.name}' with dims ${dimsToString(o.dims ?? [])} ` +
          `has ${elements} elements per request at batch size ${batch}, more than the ${MAX_OUTPUT_ELEMENTS} ` +
          'the embedded server answers',
      );
    }
  }
}

function knobs(ctx: BackendContext, d: SimulatedOptions, profiles: LatencyProfiles): Knobs {
  const params = ctx.config.parameters ?? {};
  const num = (key: string, fallback: number): number => {
    const raw = params[key]?.string_value;
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(
        `invalid parameter ${key}="${raw}" for model '${ctx.modelName}'; expected a number >= 0`,
      );
    }
    return value;
  };
  const profileName =
    params.latency_profile?.string_value || (profiles[ctx.modelName] ? ctx.modelName : 'zero');
  const fixed = params.compute_ms?.string_value ? num('compute_ms', 0) : undefined;
  return {
    profile: fixed === undefined ? getProfile(profiles, profileName) : undefined,
    fixed_ms: fixed,
    timeScale: num('time_scale', d.timeScale ?? 1),
    jitter: num('jitter', d.jitter ?? 0),
    errorRate: num('error_rate', d.errorRate ?? 0),
    extraDelay_ms: num('extra_delay_ms', d.extraDelay_ms ?? 0),
  };
}

interface OutputSpec {
  name: string;
  datatype: Datatype;
  dims: number[];
}

class SimulatedBackend implements Backend {
  readonly #knobs: Knobs;
  readonly #outputs: Map<string, OutputSpec>;
  readonly #batched: boolean;
  readonly #random: () => number;

  constructor(ctx: BackendContext, k: Knobs, seed: number) {
    this.#knobs = k;
    this.#batched = ctx.config.max_batch_size > 0;
    const rng = createRandom(seed);
    this.#random = () => rng.float();
    this.#outputs = new Map(
      ctx.config.output.map((o) => [
        o.name,
        { name: o.name, datatype: fromConfigDatatype(o.data_type), dims: o.dims },
      ]),
    );
  }

  async execute(inputs: TensorData[], outputNames: string[]): Promise<TensorData[]> {
    const batch = this.#batched ? (inputs[0]?.shape[0] ?? 1) : 1;
    const wait_ms = this.#computeMs(batch);
    if (wait_ms > 0) {
      // Node's timers count whole milliseconds (setTimeout(1.4) waits about 1.1 ms): round down or up at random
      // in proportion to the fraction, so the mean wait matches the profile without burning CPU.
      const whole = Math.floor(wait_ms);
      const timer_ms = whole + (this.#random() < wait_ms - whole ? 1 : 0);
      if (timer_ms > 0) await new Promise((resolve) => setTimeout(resolve, timer_ms));
    }
    if (this.#knobs.errorRate > 0 && this.#random() < this.#knobs.errorRate) {
      throw new Error('simulated backend failure (error_rate)');
    }
    const hashes = hashBatch(
      inputs.map((t) => ({ data: t.data, whole: t.datatype === 'BYTES' })),
      batch,
    );
    return outputNames.map((name) => {
      const spec = this.#outputs.get(name);
      if (!spec) throw new Error(`unexpected inference output '${name}'`);
      const dims = resolveDims(spec.dims, inputs, this.#batched);
      const perItem = dims.reduce((a, b) => a * b, 1);
      return {
        name,
        datatype: spec.datatype,
        shape: this.#batched ? [batch, ...dims] : dims,
        data: fillOutput(spec.datatype, hashes, perItem),
      };
    });
  }

  async close(): Promise<void> {}

  #computeMs(batch: number): number {
    const k = this.#knobs;
    let ms = k.fixed_ms ?? computeMs(k.profile!, batch);
    if (k.jitter > 0) ms *= 1 + k.jitter * (2 * this.#random() - 1);
    return Math.max(0, ms * k.timeScale + k.extraDelay_ms);
  }
}

/** Output dims with -1 taken from the first input of the same rank at the same position (else 1). */
function resolveDims(dims: number[], inputs: TensorData[], batched: boolean): number[] {
  if (!dims.includes(-1)) return dims;
  const ref = inputs.map((t) => (batched ? t.shape.slice(1) : t.shape)).find((s) => s.length === dims.length);
  return dims.map((d, i) => (d >= 0 ? d : (ref?.[i] ?? 1)));
}
