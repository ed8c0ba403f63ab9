/**
 * What every response is checked for: success, the outputs the model declares (names, shapes,
 * datatypes), and for labelled sets served by a real model, the right answer.
 */
import { check } from 'k6';
import type { TensorSpec } from '../kserve/types.ts';
import { outputProblems } from '../kserve/outputs.ts';
import type { InferResult } from '../kserve/types.ts';
import type { InferOutcome } from './transport.ts';

/** What the checks compare against, fixed in setup(). */
export interface Expectations {
  outputs: TensorSpec[];
  maxBatchSize: number;
  batch: number;
  /** Compare argmax of the first output with sample labels (only where the served model is real). */
  checkLabels: boolean;
}

/** Index of the largest of the first `width` values: the predicted class of row 0. */
export function argmax(values: ArrayLike<number | bigint | boolean | string>, width: number): number {
  let best = 0;
  for (let i = 1; i < width; i++) if (Number(values[i]) > Number(values[best])) best = i;
  return best;
}

function predicted(result: InferResult, spec: TensorSpec): number {
  const output = result.outputs.find((o) => o.name === spec.name);
  if (!output) return -1;
  return argmax(output.data as ArrayLike<number>, spec.dims[spec.dims.length - 1] ?? 1);
}

/** Runs k6 checks on one outcome; returns whether the request succeeded. */
export function checkOutcome(outcome: InferOutcome, expect: Expectations, label?: number): boolean {
  let problems: string[] = [];
  const ok = check(outcome, {
    'status is OK': (o) => o.ok,
    'outputs match the model': (o) => {
      if (!o.ok) return false;
      problems = outputProblems(expect.outputs, o.outputs(), {
        batchSize: expect.batch,
        maxBatchSize: expect.maxBatchSize,
      });
      return problems.length === 0;
    },
  });
  if (expect.checkLabels && label !== undefined && outcome.ok && expect.outputs[0]) {
    check(outcome, { 'answer is the label': (o) => predicted(o.outputs(), expect.outputs[0]!) === label });
  }
  return ok;
}
