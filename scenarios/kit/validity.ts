/**
 * Whether a response is a valid answer: a success status, a body that parses as an infer response, and the
 * outputs the model declares (names, shapes, datatypes). A response that fails after its status is an invalid
 * response, its cause worded INVALID_RESPONSE first: a failed request, never a thrown iteration. Pure; no k6.
 */
import { outputProblems } from '../../lib/kserve/outputs.ts';
import { INVALID_RESPONSE } from '../../lib/kserve/response.ts';
import type { InferResult, TensorSpec } from '../../lib/kserve/types.ts';
import type { InferOutcome } from './transport.ts';

/** What the checks compare against, fixed in setup(). */
export interface Expectations {
  outputs: TensorSpec[];
  maxBatchSize: number;
  batch: number;
  /** Compare argmax of the first output with sample labels (only where the served model is real). */
  checkLabels: boolean;
}

/** A successful outcome's parsed outputs, or why its body is not an infer response (INVALID_RESPONSE first). */
export function readOutputs(outcome: InferOutcome): InferResult | string {
  try {
    return outcome.outputs();
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return text.startsWith(INVALID_RESPONSE) ? text : `${INVALID_RESPONSE}${text}`;
  }
}

/** Why an outcome failed (its error, or why the response is invalid), or undefined when it is a valid answer. */
export function responseProblem(
  outcome: InferOutcome,
  expect: Expectations,
): { problem?: string; result?: InferResult } {
  if (!outcome.ok) return { problem: outcome.error() ?? 'request failed' };
  const result = readOutputs(outcome);
  if (typeof result === 'string') return { problem: result };
  const problems = outputProblems(expect.outputs, result, {
    batchSize: expect.batch,
    maxBatchSize: expect.maxBatchSize,
  });
  return problems.length === 0 ? { result } : { problem: `${INVALID_RESPONSE}${problems.join('; ')}` };
}
