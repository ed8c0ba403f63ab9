/**
 * Request validation against the model config, in Triton's order and words (infer_request.cc Normalize):
 * requested outputs, input count, batch dimension, batch size, then per input datatype, shape and byte size.
 */
import { DATATYPE_BYTES, fromConfigDatatype } from '../../lib/tensor/datatypes.ts';
import type { Datatype } from '../../models/types.ts';
import type { TensorData } from '../backends/types.ts';
import type { ModelConfigJson } from '../config/types.ts';
import { Errors } from '../errors.ts';
import type { InferRequest } from './types.ts';

/** A config's inputs and outputs, prepared once per model load. */
export interface TensorPlan {
  modelName: string;
  maxBatchSize: number;
  inputs: { name: string; datatype: Datatype; dims: number[]; optional: boolean }[];
  inputIndex: Map<string, number>;
  outputNames: string[];
  outputSet: Set<string>;
}

/** Prepares the validation plan of a config. */
export function planFor(config: ModelConfigJson): TensorPlan {
  const inputs = config.input.map((t) => ({
    name: t.name,
    datatype: fromConfigDatatype(t.data_type),
    dims: t.dims,
    optional: t.optional === true,
  }));
  const outputNames = config.output.map((t) => t.name);
  return {
    modelName: config.name,
    maxBatchSize: config.max_batch_size,
    inputs,
    inputIndex: new Map(inputs.map((t, i) => [t.name, i])),
    outputNames,
    outputSet: new Set(outputNames),
  };
}

/** A valid request: inputs in config order, the output names to compute, and its inference count. */
export interface ValidRequest {
  batchSize: number;
  inputs: TensorData[];
  outputNames: string[];
}

/** Validates a request; throws the ServerError Triton would answer with. */
export function validateRequest(plan: TensorPlan, req: InferRequest): ValidRequest {
  const model = plan.modelName;
  const id = req.id;
  let outputNames = plan.outputNames;
  if (req.outputs && req.outputs.length > 0) {
    outputNames = [];
    for (const o of req.outputs) {
      if (!plan.outputSet.has(o.name)) throw Errors.unknownOutput(id, o.name, model);
      // Triton's class count is unsigned: a negative or fractional one is the client's mistake, not ours.
      if (o.classCount !== undefined && !(Number.isInteger(o.classCount) && o.classCount >= 0))
        throw Errors.badClassification(o.name, o.classCount);
      outputNames.push(o.name);
    }
  }
  const seen = new Set<string>();
  for (const t of req.inputs) {
    if (seen.has(t.name)) throw Errors.duplicateInput(id, t.name);
    seen.add(t.name);
  }
  const required = plan.inputs.filter((t) => !t.optional).length;
  if (req.inputs.length > plan.inputs.length || req.inputs.length < required) {
    throw Errors.inputCount(
      id,
      model,
      plan.inputs.map((t) => t.name),
      req.inputs.map((t) => t.name),
    );
  }
  let batchSize = 0;
  if (plan.maxBatchSize > 0) {
    for (const t of req.inputs) {
      if (!plan.inputIndex.has(t.name)) throw Errors.unknownInput(id, t.name, model);
      if (t.shape.length === 0) throw Errors.noBatchDim(id, t.name, model);
      if (batchSize === 0) batchSize = t.shape[0]!;
      else if (t.shape[0] !== batchSize) throw Errors.batchMismatch(id, t.name, model);
    }
    if (batchSize > plan.maxBatchSize) throw Errors.batchTooLarge(id, plan.maxBatchSize, model);
    if (batchSize < 1)
      throw Errors.badRequest(
        `${id ? `[request id: ${id}] ` : ''}inference request batch-size must be >= 1 for '${model}'`,
      );
  }
  const ordered: TensorData[] = new Array(plan.inputs.length);
  for (const t of req.inputs) {
    const index = plan.inputIndex.get(t.name);
    if (index === undefined) throw Errors.unknownInput(id, t.name, model);
    const spec = plan.inputs[index]!;
    if (t.datatype !== spec.datatype) throw Errors.datatype(id, t.name, t.datatype, model, spec.datatype);
    const dims = plan.maxBatchSize > 0 ? t.shape.slice(1) : t.shape;
    if (!dimsMatch(spec.dims, dims)) {
      const expected = plan.maxBatchSize > 0 ? [-1, ...spec.dims] : spec.dims;
      throw Errors.shape(id, t.name, model, expected, t.shape, plan.maxBatchSize > 0);
    }
    checkByteSize(id, model, t);
    ordered[index] = t;
  }
  return { batchSize: Math.max(1, batchSize), inputs: ordered.filter(Boolean), outputNames };
}

function dimsMatch(expected: number[], got: number[]): boolean {
  if (expected.length !== got.length) return false;
  for (let i = 0; i < expected.length; i++) {
    if (!Number.isInteger(got[i]) || got[i]! < 0) return false;
    if (expected[i] !== -1 && expected[i] !== got[i]) return false;
  }
  return true;
}

function checkByteSize(id: string, model: string, t: TensorData): void {
  let elements = 1;
  for (const d of t.shape) elements *= d;
  const size = DATATYPE_BYTES[t.datatype];
  if (size > 0) {
    if (t.data.length !== elements * size)
      throw Errors.byteSize(id, t.name, model, elements * size, t.data.length);
    return;
  }
  // BYTES: count length-prefixed elements; they must fill the buffer exactly.
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.length);
  let offset = 0;
  let count = 0;
  while (offset + 4 <= t.data.length) {
    offset += 4 + view.getUint32(offset, true);
    count += 1;
  }
  if (offset !== t.data.length || count !== elements) {
    throw Errors.badRequest(
      `${id ? `[request id: ${id}] ` : ''}unexpected number of string elements ${count} for inference input '${t.name}' for model '${model}', expecting ${elements}`,
    );
  }
}
