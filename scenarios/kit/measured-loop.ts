/**
 * The measured loop, defined once for its four shapes: how a request is sent (blocking under real k6,
 * async under the Node runtime) times when it is sent (closed loop, or open loop with its scheduled-start
 * latency). One body reads the next sample, keeps the sub-window tag current and sends; the shape only
 * picks two small functions, once per run: `send` (blocking or promise) and what follows a request
 * (the open loop adds its scheduled-start latency). Whatever the loop does per request is load-generator
 * time the server never sees, so the body makes no closure and no object per request: real k6
 * interprets every call in it.
 *
 * It records a gRPC request's outcome in infer_errors (HTTP has k6's own http_req_failed). Every response is checked for its status and content
 * type (the transport's send does it, for nothing per request); the outputs are checked (checks.ts) on each
 * VU's first `warmupChecks` warm-up requests, after which the warm-up sends as the measured loop does, and on
 * one in `validateEvery` measured ones. A response that fails a check is a failed request, counted in
 * infer_invalid too; nothing is thrown. Everything k6 provides comes in through LoopContext, so a test runs
 * all four shapes on fakes.
 */
import type { TensorSpec } from '../../lib/kserve/types.ts';
import type { LevelSchedule } from '../../lib/load/pacing.ts';
import { firstErrorCheck, parseLevelName, WINDOW_TAG } from '../../lib/load/names.ts';
import type { WindowClock } from '../../lib/load/windows.ts';
import { isInvalidResponse } from '../../lib/kserve/response.ts';
import { checkOutcome, type Expectations } from './checks.ts';
import type { Sample } from './samples.ts';
import type { BoundRequest, InferOutcome, Transport } from './transport.ts';

/** What setup() hands every VU (JSON round trip, as k6 does). */
export interface SetupData {
  expect: Expectations;
  /** Generic models only: the inputs read from the server, to make random requests from. */
  inputs?: TensorSpec[];
}

/** An exec function: blocking under real k6, async under the Node runtime. */
export type ExecFunction = (data: SetupData) => void | Promise<void>;

/** The parts of k6/execution the loop reads. */
export interface LoopExecution {
  vu: { idInTest: number; metrics: { tags: Record<string, unknown> } };
  scenario: { name: string; startTime: number; iterationInTest: number };
}

/** A metric the loop adds to (k6's Rate, Trend or Counter). */
export interface LoopMetric {
  add(value: number | boolean): void;
}

/** Counters of the responses a loop validates; `invalid` is added to only when one fails. */
export interface ResponseCounters {
  checked: LoopMetric;
  invalid: LoopMetric;
}

/** What the loop needs from k6 and the run plan. */
export interface LoopContext {
  transport: Transport;
  exec: LoopExecution;
  clock: WindowClock;
  /** The model's name, for the first failure's warning. */
  modelName: string;
  /** Requests built in the init context; empty for a generic model, whose requests wait for setup(). */
  samples: Sample[];
  /**
   * Build the request bodies on the VU's first request of this model instead of in the init context. A mix
   * (mix-test.ts) sets it: every VU evaluates every model's init code but runs one model's scenarios at a
   * time, and under the Node runtime a VU initialised mid-run stalls every request in flight.
   */
  prepareOnFirstUse?: boolean;
  /** A generic model's requests, made from what setup() read from the server (once per VU). */
  samplesFrom(data: SetupData): Sample[];
  /** Validate one in this many measured requests (0: none). */
  validateEvery: number;
  /** Warm-up requests each VU validates first. */
  warmupChecks: number;
  /**
   * gRPC's failed-request Rate (infer_errors), added to on every request: the error-rate budget judges it.
   * Absent for HTTP, whose k6 http_req_failed costs the script nothing (an invalid answer goes to `responses`).
   */
  inferErrors?: LoopMetric;
  /** Responses checked and found invalid (infer_checked, infer_invalid): the report's validation counts. */
  responses: ResponseCounters;
  /** The open loop's scheduled-start latency Trend; present only in request-rate mode. */
  scheduledLatency?: LoopMetric;
  /**
   * An open loop the script paces (Poisson, gamma, a schedule file; lib/load/pacing.ts): each level's
   * send times by scenario name, and how to wait for one (k6's sleep, or a timer under the Node runtime).
   */
  pacing?: LoopPacing;
  /** Blocking calls (real k6) or promises (the Node runtime). */
  blocking: boolean;
  /** k6's check(), for the first-failure check. */
  check(value: unknown, checks: Record<string, () => boolean>): boolean;
  warn(message: string): void;
}

/** What a paced open loop reads: the level's send times and a wait. */
export interface LoopPacing {
  schedule(scenario: string): LevelSchedule | undefined;
  sleep(ms: number): void | Promise<void>;
  /** Epoch ms the wait is read on; a sub-millisecond clock where the runtime has one. @default Date.now */
  now?(): number;
}

/** The loop's exec functions. */
export interface MeasuredLoop {
  /** Warm-up iterations: the VU's first warmupChecks responses validated, then the measured path. */
  warmup: ExecFunction;
  /** Measured iterations: send and record; one in validateEvery validated. */
  infer: ExecFunction;
}

/** Builds the exec functions of one VU (k6 evaluates the scenario once per VU). */
export function measuredLoop(ctx: LoopContext): MeasuredLoop {
  const { transport, exec, clock, inferErrors, responses, scheduledLatency, validateEvery } = ctx;
  // Per VU: the requests, built once, and where the VU is in them.
  let labels: (number | undefined)[] = [];
  let prepared: unknown[] = [];
  let bound: BoundRequest[] = [];
  let next = -1;
  let measured = 0;
  let warned = false;
  /** The scenario whose first failure this VU has noted (see noteFirstError), and its first invalid response. */
  let errorScenario = '';
  let invalidScenario = '';
  let windowTagged = -1;
  let windowChange_ms = 0;
  let warmupChecks = ctx.warmupChecks;
  // Open loop: the level's schedule, read when the sub-window changes, and this request's due time.
  let levelStart_ms = 0;
  let period_ms = 0;
  let due_ms = 0;

  function prepare(source: Sample[]): void {
    labels = source.map((s) => s.label);
    prepared = source.map((s) => transport.prepare(s.inputs));
    bound = prepared.map((p) => transport.bind(p));
  }
  // Request bodies are built in the init context (or on first use), never per request.
  if (ctx.samples.length > 0 && !ctx.prepareOnFirstUse) prepare(ctx.samples);

  /** The next sample's index; VUs start at different samples so they do not send the same one in step. */
  function pick(data: SetupData): number {
    if (next < 0) {
      if (prepared.length === 0) prepare(ctx.samples.length > 0 ? ctx.samples : ctx.samplesFrom(data));
      next = exec.vu.idInTest;
    }
    return next++ % prepared.length;
  }

  /** Counts a request's outcome: failed on an error status, no answer, or an invalid response. */
  function failed(error: string | undefined): void {
    inferErrors?.add(error !== undefined);
    if (error === undefined) return;
    const invalid = isInvalidResponse(error);
    if (invalid) responses.invalid.add(1);
    if (!warned) {
      warned = true;
      ctx.warn(`${ctx.modelName} on ${transport.target}: ${error}`);
    }
    const scenario = exec.scenario.name;
    // The level's line names its first invalid response even when another failure came first.
    if (invalid && scenario !== invalidScenario) {
      invalidScenario = scenario;
      if (scenario === errorScenario) noteFirstError(error, false);
    }
    if (scenario !== errorScenario) noteFirstError(error, !invalid && transport.noResponse(error));
  }

  /**
   * Records this VU's first failure in a measured level as a failing check (firstErrorCheck), once per
   * level: the report says why a level's requests failed with it instead of blaming the generator.
   */
  function noteFirstError(error: string, noResponse: boolean): void {
    errorScenario = exec.scenario.name;
    if (!parseLevelName(errorScenario)) return;
    ctx.check(null, { [firstErrorCheck(errorScenario, error, noResponse)]: () => false });
  }

  function validated(outcome: InferOutcome, data: SetupData, i: number): void {
    if (outcome.ok) responses.checked.add(1);
    failed(checkOutcome(outcome, data.expect, labels[i]));
  }

  /**
   * Tags this VU's samples with the sub-window it is in, for the stability verdict. A VU tag is set
   * three times a level, where a tag in the request params would cost k6 a new tag set per request;
   * the loop only compares the time with windowChange_ms.
   */
  function tagWindow(now_ms: number): void {
    const window = clock.index(now_ms);
    windowChange_ms = clock.nextChange_ms(now_ms);
    if (window === windowTagged) return;
    windowTagged = window;
    exec.vu.metrics.tags[WINDOW_TAG] = String(window);
  }

  /**
   * Open loop: iteration i of a constant-arrival-rate level is due at its start + i / rate (k6's schedule).
   * A started iteration takes the next slot even after dropped ones, so when the generator falls behind,
   * the lag shows as latency (wrk2's rule), as a client queueing every scheduled request would see it.
   */
  function schedule(now_ms: number): void {
    tagWindow(now_ms);
    levelStart_ms = exec.scenario.startTime;
    period_ms = 1000 / (parseLevelName(exec.scenario.name)?.level ?? Infinity);
  }

  /** Whether this measured request is one of the sampled, validated ones (the first, then 1 in N). */
  function sampled(): boolean {
    if (validateEvery === 0 || measured-- > 0) return false;
    measured = validateEvery - 1;
    return true;
  }

  // What follows a request; the open loop first records how late it finished against its schedule.
  function sent(error: string | undefined): void {
    if (error !== undefined || inferErrors) failed(error);
  }
  function sentOpen(error: string | undefined): void {
    scheduledLatency!.add(Date.now() - due_ms);
    if (error !== undefined || inferErrors) failed(error);
  }
  function checkedOpen(): void {
    scheduledLatency!.add(Date.now() - due_ms);
  }
  function nothing(): void {}

  // How to send: the same calls, blocking or as promises; `then` takes functions made once, above.
  type Send = (i: number, after: (error: string | undefined) => void) => void | Promise<void>;
  type SendChecked = (i: number, data: SetupData, after: () => void) => void | Promise<void>;
  const send: Send = ctx.blocking
    ? (i, after) => after(bound[i]!.sendSync())
    : (i, after) => bound[i]!.send().then(after);
  const sendChecked: SendChecked = ctx.blocking
    ? (i, data, after) => {
        validated(transport.inferSync(prepared[i]), data, i);
        after();
      }
    : (i, data, after) =>
        transport.infer(prepared[i]).then((outcome) => {
          validated(outcome, data, i);
          after();
        });

  // When to send: the closed loop sends at once; the open loop also notes when the request was due.
  const open = scheduledLatency !== undefined;
  const windowChanged = open ? schedule : tagWindow;
  const afterSend = open ? sentOpen : sent;
  const afterCheck = open ? checkedOpen : nothing;

  /** A measured send: one in validateEvery checked, the rest sent and recorded. */
  function measuredSend(i: number, data: SetupData): void | Promise<void> {
    if (measured === 0 && sampled()) return sendChecked(i, data, afterCheck);
    measured--;
    return send(i, afterSend);
  }

  /** A paced send once it is due: the sub-window tag at the send time, then the measured send. */
  function sendDue(i: number, data: SetupData): void | Promise<void> {
    const now = Date.now();
    if (now >= windowChange_ms) tagWindow(now);
    return measuredSend(i, data);
  }

  // Paced open loop: iteration i of the level's shared-iterations scenario is send i of its schedule.
  const pacing = open ? ctx.pacing : undefined;
  const epochNow = pacing?.now ?? Date.now;
  let pacedScenario = '';
  let offsets: readonly number[] = [];
  let payloads: readonly (number | undefined)[] | undefined;
  function inferPaced(data: SetupData): void | Promise<void> {
    if (exec.scenario.name !== pacedScenario) {
      pacedScenario = exec.scenario.name;
      const level = pacing!.schedule(pacedScenario);
      offsets = level?.offsets_ms ?? [];
      payloads = level?.payloads;
    }
    const n = exec.scenario.iterationInTest;
    if (n >= offsets.length) return;
    let i = next < 0 ? pick(data) : next++ % prepared.length;
    const named = payloads?.[n];
    if (named !== undefined) i = named % prepared.length;
    due_ms = exec.scenario.startTime + offsets[n]!;
    const wait_ms = due_ms - epochNow();
    if (wait_ms <= 0) return sendDue(i, data);
    if (ctx.blocking) {
      pacing!.sleep(wait_ms);
      return sendDue(i, data);
    }
    return (pacing!.sleep(wait_ms) as Promise<void>).then(() => sendDue(i, data));
  }

  return {
    warmup(data) {
      const i = pick(data);
      if (warmupChecks > 0) {
        warmupChecks--;
        return sendChecked(i, data, nothing);
      }
      return send(i, sent);
    },
    // The hot path: one comparison per request for the sub-window, one for the sampled check.
    infer: pacing
      ? inferPaced
      : (data) => {
          const i = next < 0 ? pick(data) : next++ % prepared.length;
          const now = Date.now();
          if (now >= windowChange_ms) windowChanged(now);
          if (open) due_ms = levelStart_ms + exec.scenario.iterationInTest * period_ms;
          return measuredSend(i, data);
        },
  };
}
