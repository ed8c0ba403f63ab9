/**
 * Compares a parsed infer response with the catalog's output specs, for k6 checks:
 * `check(res, { 'outputs match': () => outputProblems(specs, result).length === 0 })`.
 */
import type { TensorSpec } from './types.ts';
import { elementCount, formatShape, shapeMatches } from '../tensor/datatypes.ts';
import type { InferResult } from './types.ts';

/** How outputs are compared. */
export interface OutputCheckOptions {
  /** Samples in the request; omitted, any batch dimension size is accepted. */
  batchSize?: number;
  /** The model's max_batch_size; > 0 means outputs carry a leading batch dimension. @default 0 */
  maxBatchSize?: number;
  /** Only these outputs were requested; others in `specs` are not expected. */
  requested?: readonly string[];
  /** Accept outputs the specs do not name. @default false */
  allowExtra?: boolean;
}

/** One line per mismatch: missing or unexpected outputs, wrong datatype, shape or element count. */
export function outputProblems(
  specs: readonly TensorSpec[],
  result: InferResult,
  options: OutputCheckOptions = {},
): string[] {
  const problems: string[] = [];
  const maxBatchSize = options.maxBatchSize ?? 0;
  const expectedSpecs = options.requested
    ? specs.filter((spec) => options.requested!.includes(spec.name))
    : specs;
  const byName = new Map(result.outputs.map((output) => [output.name, output]));
  for (const spec of expectedSpecs) {
    const output = byName.get(spec.name);
    if (!output) {
      problems.push(`missing output "${spec.name}"`);
      continue;
    }
    if (output.datatype !== spec.datatype) {
      problems.push(`output "${spec.name}": expected datatype ${spec.datatype}, got ${output.datatype}`);
    }
    const expectedShape = maxBatchSize > 0 ? [options.batchSize ?? -1, ...spec.dims] : [...spec.dims];
    if (!shapeMatches(expectedShape, output.shape)) {
      problems.push(
        `output "${spec.name}": expected shape ${formatShape(expectedShape)}, got ${formatShape(output.shape)}`,
      );
      continue;
    }
    const count = safeElementCount(output.shape);
    if (count !== undefined && output.data.length !== count) {
      problems.push(
        `output "${spec.name}": shape ${formatShape(output.shape)} holds ${count} elements, got ${output.data.length}`,
      );
    }
  }
  if (!options.allowExtra) {
    const known = new Set(specs.map((spec) => spec.name));
    for (const output of result.outputs) {
      if (!known.has(output.name)) problems.push(`unexpected output "${output.name}"`);
    }
  }
  return problems;
}

/** True when `outputProblems` finds nothing. */
export function outputsMatch(
  specs: readonly TensorSpec[],
  result: InferResult,
  options: OutputCheckOptions = {},
): boolean {
  return outputProblems(specs, result, options).length === 0;
}

function safeElementCount(shape: readonly number[]): number | undefined {
  try {
    return elementCount(shape);
  } catch {
    return undefined;
  }
}
