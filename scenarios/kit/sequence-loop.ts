/**
 * The sequence loop. Closed loop: one iteration runs one whole sequence, its requests one after another (each
 * waits for the previous response), so a VU never has two requests of a sequence in flight and a level's end lets
 * the sequence finish within the graceful stop instead of leaving it open. Request rate (rate.ts): one iteration
 * is one live sequence for the level's time, sending its share of the level's sends. Every response is checked
 * against the step it answers (the identity echo, plan.ts). A sequence whose response is another step's counts as
 * out of order; one abandoned after a failed request, or cut short by k6 stopping its iteration, counts as
 * orphaned (the server keeps it until its idle timeout). Everything k6 provides comes in through the context, so
 * tests run it on fakes.
 */
import { firstErrorCheck, parseLevelName, WINDOW_TAG } from '../../lib/load/names.ts';
import type { WindowClock } from '../../lib/load/windows.ts';
import { createRandom } from '../../lib/random/random.ts';
import { isInvalidResponse } from '../../lib/kserve/response.ts';
import { readOutputs } from './validity.ts';
import type {
  ExecFunction,
  LoopExecution,
  LoopMetric,
  MeasuredLoop,
  ResponseCounters,
} from './measured-loop.ts';
import type { InferOutcome, Transport } from './transport.ts';
import { drawLength, echoes, echoInput, SequenceIds, sequenceParameters } from '../../lib/sequence/plan.ts';
import type { ScenarioSends } from '../../lib/sequence/rate.ts';
import type { SequenceSettings } from '../../lib/sequence/settings.ts';
import type { SequenceCounters } from '../../lib/sequence/names.ts';

/** What the loop needs from k6, the run plan and the model. */
export interface SequenceLoopContext {
  transport: Transport;
  exec: LoopExecution;
  clock: WindowClock;
  modelName: string;
  /** The echo tensors: the model's input and output names. */
  input: string;
  output: string;
  settings: SequenceSettings;
  /** At least the number of VUs that may run at once (ids are split by it). */
  stride: number;
  counters: SequenceCounters;
  /** gRPC's failed-request Rate (infer_errors), added to on every request; HTTP has k6's http_req_failed. */
  inferErrors?: LoopMetric;
  /** Every response's outputs are checked; an invalid one is a failed request. */
  responses: ResponseCounters;
  /** Request-rate levels: each iteration is one live sequence for its level's time (rate.ts). */
  rate?: SequenceRate;
  /** Blocking calls (real k6) or promises (the Node runtime). */
  blocking: boolean;
  check(value: unknown, checks: Record<string, () => boolean>): boolean;
  warn(message: string): void;
}

/** What a request-rate level's sequences need: the scenario's sends, a wait, the scheduled-start latency. */
export interface SequenceRate {
  /** Live sequences of a level (NUM_OF_SEQUENCES): send k goes to sequence k mod this. */
  sequences: number;
  sends(scenario: string): ScenarioSends | undefined;
  sleep(ms: number): void | Promise<void>;
  /** Epoch ms the wait is read on; a sub-millisecond clock where the runtime has one. @default Date.now */
  now?(): number;
  scheduledLatency: LoopMetric;
}

/** One VU's sequence in progress. */
interface Live {
  id: number;
  length: number;
  outOfOrder: boolean;
  /** Counted as orphaned when its VU moved on; a runtime that lets the old iteration run on must not send more. */
  cut: boolean;
  /** In a level's window, not a warm-up: its requests carry the sub-window tag. */
  measured: boolean;
}

/** Builds the exec functions of one VU; warm-up and measured iterations both run whole sequences. */
export function sequenceLoop(ctx: SequenceLoopContext): MeasuredLoop {
  const { transport, exec, clock, counters } = ctx;
  let ids: SequenceIds | undefined;
  let random: ReturnType<typeof createRandom> | undefined;
  let warned = false;
  let errorScenario = '';
  let windowChange_ms = 0;
  /** The sequence this VU is in; still set at the next open() when k6 cut the iteration that ran it. */
  let unfinished: Live | undefined;

  function open(): Live {
    // Per VU, on its first iteration (k6 runs the init context before VU ids are final).
    ids ??= new SequenceIds(ctx.settings, exec.vu.idInTest, ctx.stride);
    random ??= createRandom(exec.vu.idInTest);
    counters.started.add(1);
    // Adding 0 makes the gated counters exist in the summary even when nothing goes wrong.
    counters.outOfOrder.add(0);
    counters.orphaned.add(unfinished ? 1 : 0);
    if (unfinished) unfinished.cut = true;
    unfinished = {
      id: ids.next(),
      length: drawLength(ctx.settings, random),
      outOfOrder: false,
      cut: false,
      measured: parseLevelName(exec.scenario.name) !== undefined,
    };
    return unfinished;
  }

  function prepare(seq: Live, step: number): unknown {
    const now = Date.now();
    // Only a window's requests: the clock takes the scenario it is first read in for a window, and a warm-up
    // shorter than the window would leave it on the warm-up's.
    if (seq.measured && now >= windowChange_ms) {
      exec.vu.metrics.tags[WINDOW_TAG] = String(clock.index(now));
      windowChange_ms = clock.nextChange_ms(now);
    }
    return transport.prepare(
      [echoInput(ctx.input, seq.id, step)],
      sequenceParameters(seq.id, step, seq.length),
    );
  }

  /**
   * Records one response; false when the request failed (an error status, or a body that is no infer response)
   * and the sequence is abandoned.
   */
  function settle(seq: Live, step: number, outcome: InferOutcome): boolean {
    if (seq.cut) return false;
    if (outcome.ok) ctx.responses.checked.add(1);
    const result = outcome.ok ? readOutputs(outcome) : (outcome.error() ?? 'request failed');
    ctx.inferErrors?.add(typeof result === 'string');
    if (typeof result === 'string') {
      if (isInvalidResponse(result)) ctx.responses.invalid.add(1);
      failed(result);
      counters.orphaned.add(1);
      unfinished = undefined;
      return false;
    }
    if (!seq.outOfOrder && !echoes(result, ctx.output, seq.id, step)) {
      seq.outOfOrder = true;
      counters.outOfOrder.add(1);
      failed(`sequence ${seq.id}: the response to step ${step} is not that step's`);
    }
    if (step === seq.length - 1) {
      counters.completed.add(1);
      unfinished = undefined;
    }
    return true;
  }

  /** Warns once per VU and records the first failure of a measured level as a failing check. */
  function failed(error: string): void {
    if (!warned) {
      warned = true;
      ctx.warn(`${ctx.modelName} on ${transport.target}: ${error}`);
    }
    if (exec.scenario.name === errorScenario) return;
    errorScenario = exec.scenario.name;
    if (!parseLevelName(errorScenario)) return;
    ctx.check(null, {
      [firstErrorCheck(errorScenario, error, !isInvalidResponse(error) && transport.noResponse(error))]: () =>
        false,
    });
  }

  function runSync(): void {
    const seq = open();
    for (let step = 0; step < seq.length; step++) {
      if (!settle(seq, step, transport.inferSync(prepare(seq, step)))) return;
    }
  }

  async function runAsync(): Promise<void> {
    const seq = open();
    for (let step = 0; step < seq.length; step++) {
      if (!settle(seq, step, await transport.infer(prepare(seq, step)))) return;
    }
  }

  /**
   * Request rate: this iteration is sequence `slot` of its level and sends k = slot, slot + N, ... of the
   * level's sends, each on time or, when its previous answer came late, as soon as it came. A sequence that ends
   * starts the next with a fresh id; the one open at the iteration's last send ends there (END), so the level
   * leaves no sequence open, as perf_analyzer completes its ongoing sequences when a measurement stops.
   */
  function rateTurns() {
    const rate = ctx.rate!;
    const sends = rate.sends(exec.scenario.name);
    const offsets = sends?.offsets_ms ?? [];
    let seq: Live | undefined;
    let step = 0;
    let due_ms = 0;
    return {
      offsets,
      first: exec.scenario.iterationInTest % rate.sequences,
      stride: rate.sequences,
      /** Ms to wait before send k; notes when it is due. */
      wait(k: number): number {
        due_ms = exec.scenario.startTime + offsets[k]!;
        return due_ms - (rate.now ?? Date.now)();
      },
      /** Send k's request: the next step of the open sequence, or the first of a new one. */
      request(k: number): unknown {
        if (!seq) {
          seq = open();
          step = 0;
        }
        if (k + rate.sequences >= offsets.length) seq.length = step + 1;
        return prepare(seq, step);
      },
      answered(outcome: InferOutcome): void {
        if (sends?.measured) rate.scheduledLatency.add(Date.now() - due_ms);
        if (!settle(seq!, step, outcome) || ++step === seq!.length) seq = undefined;
      },
    };
  }

  function runRateSync(): void {
    const turns = rateTurns();
    for (let k = turns.first; k < turns.offsets.length; k += turns.stride) {
      const wait_ms = turns.wait(k);
      if (wait_ms > 0) ctx.rate!.sleep(wait_ms);
      turns.answered(transport.inferSync(turns.request(k)));
    }
  }

  async function runRateAsync(): Promise<void> {
    const turns = rateTurns();
    for (let k = turns.first; k < turns.offsets.length; k += turns.stride) {
      const wait_ms = turns.wait(k);
      if (wait_ms > 0) await ctx.rate!.sleep(wait_ms);
      turns.answered(await transport.infer(turns.request(k)));
    }
  }

  const run: ExecFunction = ctx.rate
    ? ctx.blocking
      ? runRateSync
      : runRateAsync
    : ctx.blocking
      ? runSync
      : runAsync;
  return { warmup: run, infer: run };
}
