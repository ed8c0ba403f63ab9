/**
 * The JSON object of a KServe v2 REST infer request, shared by the JSON form and
 * the binary tensor extension (where it is the header before the tensor bytes).
 */
import type { Datatype } from '../tensor/datatypes.ts';
import type { InferRequestOptions, ParameterValue, RequestedOutput } from './types.ts';

/** One entry of the request's "inputs" array. */
export interface InputJson {
  name: string;
  shape: number[];
  datatype: Datatype;
  parameters?: Record<string, ParameterValue>;
  data?: unknown[];
}

/** One entry of the request's "outputs" array. */
export interface OutputJson {
  name: string;
  parameters?: Record<string, ParameterValue>;
}

/** The request object, keys in the order they are serialised. */
export interface InferRequestJson {
  id?: string;
  parameters?: Record<string, ParameterValue>;
  inputs: InputJson[];
  outputs?: OutputJson[];
}

/** Assembles the request object around already-built inputs; `binaryByDefault` picks binary_data for outputs. */
export function inferRequestJson(
  inputs: InputJson[],
  options: InferRequestOptions,
  binaryByDefault: boolean,
): InferRequestJson {
  const binary = options.binaryOutputs ?? binaryByDefault;
  const parameters: Record<string, ParameterValue> = { ...options.parameters };
  let outputs: OutputJson[] | undefined;
  if (options.outputs && options.outputs.length > 0) {
    outputs = options.outputs.map((output) => outputJson(output, binary));
  } else if (binary) {
    // No outputs listed: Triton's request-wide switch returns every output as binary.
    parameters['binary_data_output'] = true;
  }
  // Built key by key so the serialised order is fixed: id, parameters, inputs, outputs.
  const request = {} as InferRequestJson;
  if (options.id !== undefined) request.id = options.id;
  if (Object.keys(parameters).length > 0) request.parameters = parameters;
  request.inputs = inputs;
  if (outputs) request.outputs = outputs;
  return request;
}

function outputJson(output: string | RequestedOutput, binaryByDefault: boolean): OutputJson {
  const spec = typeof output === 'string' ? { name: output } : output;
  const parameters: Record<string, ParameterValue> = {};
  if (spec.binary ?? binaryByDefault) parameters['binary_data'] = true;
  if (spec.classification !== undefined) parameters['classification'] = spec.classification;
  return Object.keys(parameters).length > 0 ? { name: spec.name, parameters } : { name: spec.name };
}
