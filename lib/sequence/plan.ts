/**
 * What each request of a sequence carries: its correlation id (ids handed out so that no two VUs ever hold the
 * same one), the START flag on its first request and END on its last, and an echo tensor [id, step] that the
 * identity backend returns unchanged, so the client can tell whether each response is the step it expects.
 * Pure: no k6 imports.
 */
import type { InferInput, InferResult, ParameterValue } from '../kserve/types.ts';
import type { Random } from '../random/random.ts';
import type { SequenceSettings } from './settings.ts';

/** Correlation ids of one VU: the VU's own id in every block of `stride` ids, wrapping within the id range. */
export class SequenceIds {
  readonly #start: number;
  readonly #usable: number;
  readonly #stride: number;
  #index: number;

  /** `vu` is 1-based; `stride` is at least the number of VUs that may run at once. */
  constructor(settings: SequenceSettings, vu: number, stride: number) {
    checkIdRange(settings, stride);
    this.#start = settings.idStart;
    // Whole blocks only, so a VU's ids stay its own when they wrap.
    this.#usable = settings.idCount - (settings.idCount % stride);
    this.#stride = stride;
    this.#index = (vu - 1) % stride;
  }

  /** The next sequence's id. */
  next(): number {
    const id = this.#start + this.#index;
    this.#index = (this.#index + this.#stride) % this.#usable;
    return id;
  }
}

/** Throws when the id range holds fewer ids than `vus`, naming a range that fits. */
export function checkIdRange(settings: SequenceSettings, vus: number): void {
  if (vus <= settings.idCount) return;
  throw new Error(
    `invalid SEQUENCE_ID_RANGE: ${settings.idCount} ids for up to ${vus} VUs; give each VU an id of its own, e.g. ${settings.idStart}:${settings.idStart + vus * 100}`,
  );
}

/** A sequence's length: perf_analyzer's rule, the base length moved by up to ± variation, at least 1. */
export function drawLength(settings: SequenceSettings, random: Random): number {
  const offset = Math.round((2 * random.float() - 1) * (settings.variation_pct / 100) * settings.length);
  return Math.max(1, settings.length + offset);
}

/** The request parameters of step `step` of a sequence of `length` requests (flags only where they are true). */
export function sequenceParameters(id: number, step: number, length: number): Record<string, ParameterValue> {
  const parameters: Record<string, ParameterValue> = { sequence_id: id };
  if (step === 0) parameters.sequence_start = true;
  if (step === length - 1) parameters.sequence_end = true;
  return parameters;
}

/** The echo input of a step: INT32 [1, 2] holding the id's low 32 bits and the step. */
export function echoInput(name: string, id: number, step: number): InferInput {
  return {
    name,
    datatype: 'INT32',
    shape: [1, 2],
    data: new Uint8Array(new Int32Array([id | 0, step]).buffer),
  };
}

/** Whether a response carries back [id, step] in `output`. */
export function echoes(result: InferResult, output: string, id: number, step: number): boolean {
  const tensor = result.outputs.find((o) => o.name === output);
  const data = tensor?.data as ArrayLike<number> | undefined;
  return data !== undefined && data.length === 2 && Number(data[0]) === (id | 0) && Number(data[1]) === step;
}
