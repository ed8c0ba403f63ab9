/**
 * The checks Triton's ONNX Runtime backend makes when a model instance loads (onnxruntime_backend's
 * ModelInstanceState::ValidateInputs and ValidateOutputs, CompareDimsSupported), with its wording: the config's
 * input count, names, datatypes and dims against what the model declares. Inputs compare loosely (a -1 in the model
 * takes any config dim), outputs exactly; with max_batch_size > 0 the model's first dim must be -1 and the config's
 * dims follow it. Pure: the onnx backend feeds it the session's metadata.
 */
import type { Datatype } from '@k6-triton/lib/tensor/datatypes.ts';
import { dimsToString } from '../errors.ts';
import type { ModelConfigJson, ModelTensorConfigJson } from '../config/types.ts';

/** A model input or output as onnxruntime reports it: dims -1 where symbolic; no datatype where Triton has none. */
export interface ModelTensorInfo {
  name: string;
  datatype: Datatype | undefined;
  dims: number[];
}

/** What an ONNX model declares. */
export interface ModelIo {
  inputs: ModelTensorInfo[];
  outputs: ModelTensorInfo[];
}

/** Why Triton refuses a config: its status code and message (the model's state reason is "<code text>: <message>"). */
export interface ConfigMismatch {
  code: 'INVALID_ARG' | 'INTERNAL';
  message: string;
}

/** Triton's TRITONSERVER_ErrorCodeString for the codes this check gives. */
export const CODE_TEXT: Readonly<Record<ConfigMismatch['code'], string>> = {
  INVALID_ARG: 'Invalid argument',
  INTERNAL: 'Internal',
};

/** The config data_type strings the backend maps to an ONNX type (ModelConfigDataTypeToOnnxDataType); no BF16. */
const ONNX_CONFIG_TYPES: Readonly<Record<string, Datatype>> = {
  TYPE_BOOL: 'BOOL',
  TYPE_UINT8: 'UINT8',
  TYPE_UINT16: 'UINT16',
  TYPE_UINT32: 'UINT32',
  TYPE_UINT64: 'UINT64',
  TYPE_INT8: 'INT8',
  TYPE_INT16: 'INT16',
  TYPE_INT32: 'INT32',
  TYPE_INT64: 'INT64',
  TYPE_FP16: 'FP16',
  TYPE_FP32: 'FP32',
  TYPE_FP64: 'FP64',
  TYPE_STRING: 'BYTES',
};

/** onnxruntime-node's tensor type names as Triton's datatypes (ConvertFromOnnxDataType; bfloat16 has none). */
const DATATYPE_BY_ORT_TYPE: Readonly<Record<string, Datatype>> = {
  float32: 'FP32',
  uint8: 'UINT8',
  int8: 'INT8',
  uint16: 'UINT16',
  int16: 'INT16',
  int32: 'INT32',
  int64: 'INT64',
  string: 'BYTES',
  bool: 'BOOL',
  float16: 'FP16',
  float64: 'FP64',
  uint32: 'UINT32',
  uint64: 'UINT64',
};

/** A model tensor from onnxruntime-node's metadata ({ name, type, shape } with symbolic dims as strings). */
export function tensorInfoFromOrt(meta: {
  name: string;
  type?: string;
  shape?: readonly (number | string)[];
}): ModelTensorInfo {
  return {
    name: meta.name,
    datatype: meta.type === undefined ? undefined : DATATYPE_BY_ORT_TYPE[meta.type],
    dims: (meta.shape ?? []).map((d) => (typeof d === 'number' && d >= 0 ? d : -1)),
  };
}

class Mismatch extends Error {
  constructor(readonly mismatch: ConfigMismatch) {
    super(mismatch.message);
  }
}

const fail = (message: string, code: ConfigMismatch['code'] = 'INVALID_ARG'): never => {
  throw new Mismatch({ code, message });
};

/**
 * The first reason Triton's ONNX Runtime backend would refuse `config` for a model declaring `model`, or undefined
 * when it loads. A config without inputs or without outputs is left alone: Triton fills those in from the model.
 */
export function onnxConfigMismatch(config: ModelConfigJson, model: ModelIo): ConfigMismatch | undefined {
  const inputs = config.input ?? [];
  const outputs = config.output ?? [];
  if (inputs.length === 0 || outputs.length === 0) return undefined;
  try {
    checkInputs(config, model);
    checkOutputs(config, model);
    return undefined;
  } catch (err) {
    if (err instanceof Mismatch) return err.mismatch;
    throw err;
  }
}

function checkInputs(config: ModelConfigJson, model: ModelIo): void {
  const name = config.name;
  const batchInputs = Array.isArray(config.batch_input) ? config.batch_input.length : 0;
  const expected = config.input.filter((io) => io.optional !== true).length + batchInputs;
  if (model.inputs.length !== expected) {
    fail(
      `unable to load model '${name}', configuration expects ${expected} inputs, model provides ${model.inputs.length}`,
    );
  }
  for (const io of config.input) {
    if (io.optional === true && config.max_batch_size !== 0) {
      fail(
        `unable to load model '${name}', optional input '${io.name}' is not supported for models that support batching`,
      );
    }
    const found = find(model.inputs, io.name, 'input');
    checkDatatype(name, io, found, 'input');
    const dims = configDims(io);
    if (io.allow_ragged_batch === true) {
      if (io.optional === true) {
        fail(
          `unable to load model '${name}', configuration expects model provides input with shape [-1] for ragged input '${io.name}', which is not supported for optional input`,
        );
      }
      if (found.dims.length !== 1 || found.dims[0] !== -1) {
        fail(
          `unable to load model '${name}', configuration expects model provides input with shape [-1]  for ragged input '${io.name}', model provides ${dimsToString(found.dims)}`,
        );
      }
    } else {
      checkDims(config, io.name, found.dims, dims, false);
    }
  }
}

function checkOutputs(config: ModelConfigJson, model: ModelIo): void {
  const batchOutputs = new Set(
    (Array.isArray(config.batch_output) ? (config.batch_output as { target_name?: string[] }[]) : []).flatMap(
      (b) => b.target_name ?? [],
    ),
  );
  for (const io of config.output) {
    const found = find(model.outputs, io.name, 'output');
    checkDatatype(config.name, io, found, 'output');
    // A batch output's shape need not match the model's.
    if (!batchOutputs.has(io.name)) checkDims(config, io.name, found.dims, configDims(io), true);
  }
}

function find(tensors: ModelTensorInfo[], name: string, kind: 'input' | 'output'): ModelTensorInfo {
  const found = tensors.find((t) => t.name === name);
  if (found) return found;
  // Triton lists the allowed names from a std::set: sorted, comma separated.
  const allowed = tensors
    .map((t) => t.name)
    .sort()
    .join(', ');
  return fail(`unexpected inference ${kind} '${name}', allowed ${kind}s are: ${allowed}`);
}

function checkDatatype(
  model: string,
  io: ModelTensorConfigJson,
  found: ModelTensorInfo,
  kind: 'input' | 'output',
): void {
  const wanted = ONNX_CONFIG_TYPES[io.data_type];
  if (!wanted) {
    fail(`unsupported datatype ${io.data_type} for ${kind} '${io.name}' for model '${model}'`, 'INTERNAL');
  }
  if (wanted !== found.datatype) {
    fail(
      `unable to load model '${model}', configuration expects datatype ${io.data_type} for ${kind} '${io.name}', model provides TYPE_${found.datatype ?? '<invalid>'}`,
    );
  }
}

/** A reshape, when the config has one, is what the model must match. */
function configDims(io: ModelTensorConfigJson): number[] {
  return (io.reshape?.shape ?? io.dims ?? []).map(Number);
}

/** CompareDimsSupported, or the scalar rule when the model's tensor has no dims. */
function checkDims(
  config: ModelConfigJson,
  tensor: string,
  modelDims: number[],
  dims: number[],
  exact: boolean,
): void {
  const name = config.name;
  if (modelDims.length === 0) {
    if (dims.some((d) => d !== 1)) {
      fail(
        `unable to load model '${name}', scalar tensor '${tensor}', should only provide 1 in the model configuration when the model doesn't support batching. Model configuration provided: ${dimsToString(dims)}.`,
      );
    }
    return;
  }
  const same = (full: number[]) =>
    modelDims.length === full.length && modelDims.every((d, i) => (!exact && d === -1) || d === full[i]);
  const head = `model '${name}', tensor '${tensor}': the model expects ${modelDims.length} dimensions (shape ${dimsToString(modelDims)}) but the model configuration specifies`;
  if (config.max_batch_size > 0) {
    if (modelDims[0] !== -1) {
      fail(
        `model '${name}', tensor '${tensor}': for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; but shape expected by the model is ${dimsToString(modelDims)}`,
      );
    }
    const full = [-1, ...dims];
    if (!same(full)) {
      fail(
        `${head} ${full.length} dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape ${dimsToString(full)})`,
      );
    }
  } else if (!same(dims)) {
    fail(`${head} ${dims.length} dimensions (shape ${dimsToString(dims)})`);
  }
}
