/**
 * The measured loop of tensor requests, blocking under real k6 or async under the Node runtime. The pacer
 * (lib/load/pacer.ts) decides when each request is sent (closed loop, k6's arrival rate, or a paced level's
 * send time) and records its scheduled-start latency; this loop is the request it sends: the next sample, the
 * sub-window tag kept current, the send. Whatever the loop does per request is load-generator time the server
 * never sees, so the body makes no closure and no object per request: real k6 interprets every call in it.
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
import { createPacer } from '../../lib/load/pacer.ts';
import { SCENARIO_TAG, WINDOW_TAG } from '../../lib/load/names.ts';
import type { WindowClock } from '../../lib/load/windows.ts';
import { checkOutcome, type Expectations } from './checks.ts';
import type { Sample } from './samples.ts';
import { tensorScorer } from './tensor-scorer.ts';
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
  /** An open-loop ramp: when its send number `slot` is due, ms from its start (lib/load/ramp.ts rampDue_ms). */
  rampDue_ms?: (slot: number) => number;
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
  /** Epoch ms the wait is read on. @default epochNow (lib/load/clock.ts: sub-millisecond where it can) */
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
  const scorer = tensorScorer(ctx);
  let windowTagged = -1;
  let segmentTagged: string | undefined;
  let windowChange_ms = 0;
  let warmupChecks = ctx.warmupChecks;

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

  function validated(outcome: InferOutcome, data: SetupData, i: number): void {
    if (outcome.ok) responses.checked.add(1);
    scorer.outcome(checkOutcome(outcome, data.expect, labels[i]));
  }

  /**
   * Tags this VU's samples with the sub-window it is in, for the stability verdict. A VU tag is set
   * three times a level, where a tag in the request params would cost k6 a new tag set per request;
   * the loop only compares the time with windowChange_ms.
   */
  function tagWindow(now_ms: number): void {
    const window = clock.index(now_ms);
    windowChange_ms = clock.nextChange_ms(now_ms);
    // A ramp's window is its level: the request's scenario tag names it, as a level's own scenario would.
    const segment = clock.segment;
    if (segment !== segmentTagged && segment !== undefined) {
      segmentTagged = segment;
      exec.vu.metrics.tags[SCENARIO_TAG] = segment;
      windowTagged = -1;
    }
    if (window === windowTagged) return;
    windowTagged = window;
    exec.vu.metrics.tags[WINDOW_TAG] = String(window);
  }

  /** Whether this measured request is one of the sampled, validated ones (the first, then 1 in N). */
  function sampled(): boolean {
    if (validateEvery === 0 || measured-- > 0) return false;
    measured = validateEvery - 1;
    return true;
  }

  // What follows a request; `then` takes functions made once, here.
  function sent(error: string | undefined): void {
    if (error !== undefined || inferErrors) scorer.outcome(error);
  }

  // How to send: the same calls, blocking or as promises.
  type Send = (i: number) => void | Promise<void>;
  type SendChecked = (i: number, data: SetupData) => void | Promise<void>;
  const send: Send = ctx.blocking ? (i) => sent(bound[i]!.sendSync()) : (i) => bound[i]!.send().then(sent);
  const sendChecked: SendChecked = ctx.blocking
    ? (i, data) => validated(transport.inferSync(prepared[i]), data, i)
    : (i, data) => transport.infer(prepared[i]).then((outcome) => validated(outcome, data, i));

  /**
   * The tensor request the pacer sends when it is due: the next sample (or the one a replayed schedule
   * names), the sub-window tag at the send time, then one in validateEvery checked, the rest sent and recorded.
   */
  function sendTensor(data: SetupData): void | Promise<void> {
    let i = next < 0 ? pick(data) : next++ % prepared.length;
    const named = pacer.named();
    if (named !== undefined) i = named % prepared.length;
    const now = Date.now();
    if (now >= windowChange_ms) tagWindow(now);
    if (measured === 0 && sampled()) return sendChecked(i, data);
    measured--;
    return send(i);
  }

  // When to send: at once (closed loop), when k6 starts the iteration (its arrival rate, the due time noted
  // for the scheduled-start latency), or at a paced level's send time (lib/load/pacer.ts).
  const pacing = scheduledLatency ? ctx.pacing : undefined;
  const pacer = createPacer<SetupData>({
    exec,
    send: sendTensor,
    blocking: ctx.blocking,
    ...(scheduledLatency
      ? {
          open: {
            scheduledLatency,
            sleep: pacing?.sleep ?? noSleep,
            ...(pacing ? { schedule: pacing.schedule } : {}),
            ...(pacing?.now ? { now: pacing.now } : {}),
            ...(ctx.rampDue_ms ? { rampDue_ms: ctx.rampDue_ms } : {}),
          },
        }
      : {}),
  });

  return {
    warmup(data) {
      const i = pick(data);
      if (warmupChecks > 0) {
        warmupChecks--;
        return sendChecked(i, data);
      }
      return send(i);
    },
    // The hot path: one comparison per request for the sub-window, one for the sampled check.
    infer: pacer.iteration,
  };
}

/** k6's arrival rate starts an iteration when it is due: nothing to wait for. */
function noSleep(): void {}
