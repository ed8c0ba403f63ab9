/**
 * Request validation against the model config, in Triton's order and words (infer_request.cc Normalize):
 * requested outputs, input count, batch dimension, batch size, then per input datatype, shape and byte size.
 * Triton keeps a request's inputs in an unordered_map, which (libstdc++, a handful of names) walks them
 * newest first; the per-input checks do the same, so the input named in an error is the one Triton names.
 */
import { DATATYPE_BYTES, fromConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { TensorData } from '../backends/types.ts';
import type { ModelConfigJson } from '../config/types.ts';
import { Errors } from '../errors.ts';
import type { InferRequest, RequestInput } from './types.ts';

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
  const outputNames = byName(config.output.map((t) => t.name));
  return {
    modelName: config.name,
    maxBatchSize: config.max_batch_size,
    inputs,
    inputIndex: new Map(inputs.map((t, i) => [t.name, i])),
    outputNames,
    outputSet: new Set(outputNames),
  };
}

/**
 * Output names in the order Triton answers them: its requested outputs are a std::set, so by name (byte
 * order), whatever the order asked or the config's (the ONNX Runtime backend keeps its outputs in a std::map).
 */
function byName(names: string[]): string[] {
  return names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** A valid request: inputs in config order, the output names to compute (by name), and its inference count. */
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
      if (!plan.outputSet.has(o.name)) throw Errors.unknownOutput(o.name, model);
      // Triton keeps requested outputs in a set: a name asked twice is computed and answered once.
      if (!outputNames.includes(o.name)) outputNames.push(o.name);
    }
    byName(outputNames);
  }
  const inputs = req.inputs;
  const required = plan.inputs.filter((t) => !t.optional).length;
  const countError = () =>
    Errors.inputCount(
      id,
      model,
      plan.inputs,
      newestFirst(inputs).map((t) => t.name),
    );
  if (inputs.length > plan.inputs.length || inputs.length < required) throw countError();
  const specOf = (t: RequestInput) => {
    const index = plan.inputIndex.get(t.name);
    if (index === undefined) throw Errors.unknownInput(t.name, model);
    return index;
  };
  // With optional inputs the count can hold while a required one is missing: refused alike, after unknown names.
  for (let i = inputs.length - 1; i >= 0; i--) specOf(inputs[i]!);
  if (plan.inputs.some((spec) => !spec.optional && !inputs.some((t) => t.name === spec.name)))
    throw countError();
  let batchSize = 0;
  for (let i = inputs.length - 1; i >= 0; i--) {
    const t = inputs[i]!;
    if (plan.maxBatchSize === 0) continue;
    if (t.shape.length === 0) throw Errors.noBatchDim(id, t.name, model);
    // Triton takes the first input's batch size, and takes it again while it is 0.
    if (batchSize === 0) batchSize = t.shape[0]!;
    else if (t.shape[0] !== batchSize) throw Errors.batchMismatch(id, t.name, model);
  }
  if (batchSize > plan.maxBatchSize) throw Errors.batchTooLarge(id, plan.maxBatchSize, model);
  const ordered: TensorData[] = new Array(plan.inputs.length);
  for (let i = inputs.length - 1; i >= 0; i--) {
    const t = inputs[i]!;
    const index = specOf(t);
    const spec = plan.inputs[index]!;
    if (t.datatype !== spec.datatype) throw Errors.datatype(id, t.name, t.datatype, model, spec.datatype);
    const dims = plan.maxBatchSize > 0 ? t.shape.slice(1) : t.shape;
    checkDims(id, model, t, spec.dims, dims, plan.maxBatchSize > 0);
    // With batch size 0, Triton sizes the tensor by its dims without the batch dimension.
    const sized = batchSize === 0 ? dims : t.shape;
    checkByteSize(id, model, t.label ?? t.name, spec.datatype, sized, t.data);
    ordered[index] = t as TensorData;
  }
  return { batchSize: Math.max(1, batchSize), inputs: ordered.filter(Boolean), outputNames };
}

/** The request's inputs in the order Triton's map walks them. */
function newestFirst<T>(items: readonly T[]): T[] {
  return [...items].reverse();
}

function checkDims(
  id: string,
  model: string,
  t: RequestInput,
  expected: number[],
  got: number[],
  batched: boolean,
): void {
  let match = expected.length === got.length;
  if (match) {
    for (let i = 0; i < expected.length; i++) {
      if (got[i] === -1) throw Errors.wildcardDim(id, t.name, model, t.shape);
      if (expected[i] !== -1 && expected[i] !== got[i]) {
        match = false;
        break;
      }
    }
  }
  if (!match) throw Errors.shape(id, t.name, model, batched ? [-1, ...expected] : expected, t.shape, batched);
}

function checkByteSize(
  id: string,
  model: string,
  name: string,
  datatype: Datatype,
  shape: readonly number[],
  data: Uint8Array,
): void {
  let elements = 1;
  for (const d of shape) elements *= d;
  const size = DATATYPE_BYTES[datatype];
  if (size > 0) {
    if (data.length !== elements * size) throw Errors.byteSize(id, name, model, elements * size, data.length);
    return;
  }
  checkStrings(id, model, name, elements, data);
}

/**
 * BYTES: walks the 4-byte length prefixes as Triton's ValidateBytesInputs does over one buffer (none when the
 * data is empty). An element whose length runs past the end is not an error of its own: only the count is.
 */
function checkStrings(id: string, model: string, name: string, expected: number, data: Uint8Array): void {
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  let offset = 0;
  let checked = 0;
  while (offset < data.length) {
    const available = data.length - offset;
    if (available < 4) throw Errors.stringIndicator(id, name, model, available);
    const length = view.getUint32(offset, true);
    checked += 1;
    if (checked > expected) throw Errors.tooManyStrings(id, checked, name, model, expected);
    offset = Math.min(data.length, offset + 4 + length);
  }
  if (checked !== expected) throw Errors.stringCount(id, expected, name, model, checked);
}
