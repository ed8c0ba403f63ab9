/**
 * The tensor kinds' scorer (the measured loop's requests, a sequence's steps): what a response counts as. Ok;
 * an error (a failed status, no answer); or invalid (a 200 that is no infer response, or outputs that fail
 * their check: a failed request counted in infer_invalid too). Each VU warns once, and records its first
 * failure in each measured level as a failing check (firstErrorCheck), and its first invalid response even
 * when another failure came first, so the report says why a level's requests failed instead of blaming the
 * generator. Nothing is thrown. Runs inside k6; everything k6 provides comes in through the context.
 */
import { isInvalidResponse } from '../../lib/kserve/response.ts';
import { firstErrorCheck, parseLevelName, SCENARIO_TAG } from '../../lib/load/names.ts';
import type { Transport } from './transport.ts';

/** A metric the scorer adds to (k6's Rate or Counter). */
interface ScoreMetric {
  add(value: number | boolean): void;
}

/** What the scorer needs. */
export interface TensorScorerContext {
  transport: Pick<Transport, 'target' | 'noResponse'>;
  /** The scenario the VU is in (k6/execution), and its tags: a ramp's window is its `scenario` tag. */
  exec: { scenario: { name: string }; vu?: { metrics: { tags: Record<string, unknown> } } };
  modelName: string;
  /** gRPC's failed-request Rate (infer_errors), added to on every outcome; HTTP has k6's http_req_failed. */
  inferErrors?: ScoreMetric;
  /** infer_invalid, added to on each invalid response. */
  responses: { invalid: ScoreMetric };
  check(value: unknown, checks: Record<string, () => boolean>): boolean;
  warn(message: string): void;
}

/** One VU's scorer. */
export interface TensorScorer {
  /** Counts a request's outcome: undefined when it succeeded, else why it failed. */
  outcome(error: string | undefined): void;
  /** Notes a failure found beyond the response's own checks (a sequence's answer to another step). */
  failed(error: string): void;
}

/** Builds one VU's scorer. */
export function tensorScorer(ctx: TensorScorerContext): TensorScorer {
  const { transport, exec, inferErrors, responses } = ctx;
  let warned = false;
  /** The scenario whose first failure this VU has noted, and its first invalid response. */
  let errorScenario = '';
  let invalidScenario = '';

  /** The level a request is judged in: a ramp's window (the tag the measured loop set), else the scenario. */
  function level(): string {
    const tag = exec.vu?.metrics.tags[SCENARIO_TAG];
    return typeof tag === 'string' ? tag : exec.scenario.name;
  }

  function noteFirstError(error: string, noResponse: boolean): void {
    errorScenario = level();
    if (!parseLevelName(errorScenario)) return;
    ctx.check(null, { [firstErrorCheck(errorScenario, error, noResponse)]: () => false });
  }

  function failed(error: string): void {
    const invalid = isInvalidResponse(error);
    if (!warned) {
      warned = true;
      ctx.warn(`${ctx.modelName} on ${transport.target}: ${error}`);
    }
    const scenario = level();
    // The level's line names its first invalid response even when another failure came first.
    if (invalid && scenario !== invalidScenario) {
      invalidScenario = scenario;
      if (scenario === errorScenario) noteFirstError(error, false);
    }
    if (scenario !== errorScenario) noteFirstError(error, !invalid && transport.noResponse(error));
  }

  return {
    outcome(error) {
      inferErrors?.add(error !== undefined);
      if (error === undefined) return;
      if (isInvalidResponse(error)) responses.invalid.add(1);
      failed(error);
    },
    failed,
  };
}
