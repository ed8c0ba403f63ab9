/**
 * The k6 checks of a validated response (validity.ts judges it): status, outputs, and for labelled sets served
 * by a real model, the right answer. A wrong label is an accuracy check only, not a failed request, as a real
 * model misclassifies some real samples. Nothing here throws.
 */
import { check } from 'k6';
import type { InferResult, TensorSpec } from '../../lib/kserve/types.ts';
import type { InferOutcome } from './transport.ts';
import { type Expectations, responseProblem } from './validity.ts';

export type { Expectations } from './validity.ts';

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

/** Runs k6 checks on one outcome; returns why the request failed, or undefined when it succeeded. */
export function checkOutcome(
  outcome: InferOutcome,
  expect: Expectations,
  label?: number,
): string | undefined {
  const { problem, result } = responseProblem(outcome, expect);
  check(outcome, {
    'status is OK': (o) => o.ok,
    'outputs match the model': () => problem === undefined,
  });
  if (expect.checkLabels && label !== undefined && result && expect.outputs[0]) {
    check(result, { 'answer is the label': (r) => predicted(r, expect.outputs[0]!) === label });
  }
  return problem;
}
