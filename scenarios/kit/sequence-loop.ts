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
import { createPacer, type Pacer } from '../../lib/load/pacer.ts';
import { parseLevelName, WINDOW_TAG } from '../../lib/load/names.ts';
import type { WindowClock } from '../../lib/load/windows.ts';
import { createRandom } from '../../lib/random/random.ts';
import { tensorScorer } from './tensor-scorer.ts';
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
  /** Epoch ms the wait is read on. @default epochNow (lib/load/clock.ts: sub-millisecond where it can) */
  now?(): number;
  scheduledLatency: LoopMetric;
}

/** A request-rate iteration's place: its open sequence and the step it is at. */
interface Turn {
  seq?: Live;
  step: number;
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
  const scorer = tensorScorer(ctx);
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
    scorer.outcome(typeof result === 'string' ? result : undefined);
    if (typeof result === 'string') {
      counters.orphaned.add(1);
      unfinished = undefined;
      return false;
    }
    if (!seq.outOfOrder && !echoes(result, ctx.output, seq.id, step)) {
      seq.outOfOrder = true;
      counters.outOfOrder.add(1);
      scorer.failed(`sequence ${seq.id}: the response to step ${step} is not that step's`);
    }
    if (step === seq.length - 1) {
      counters.completed.add(1);
      unfinished = undefined;
    }
    return true;
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
   * Request rate: this iteration is sequence `slot` of its level and the pacer (lib/load/pacer.ts) sends it
   * k = slot, slot + N, ... of the level's sends, each on time or, when its previous answer came late, as soon as
   * it came. A sequence that ends starts the next with a fresh id; the one open at the iteration's last send ends
   * there (END), so the level leaves no sequence open, as perf_analyzer completes its ongoing sequences when a
   * measurement stops. The turn's state is the iteration's own: one cut at its graceful stop may run on.
   */
  function turnRequest(turn: Turn, k: number): unknown {
    if (!turn.seq) {
      turn.seq = open();
      turn.step = 0;
    }
    if (k + ctx.rate!.sequences >= pacer!.sends()) turn.seq.length = turn.step + 1;
    return prepare(turn.seq, turn.step);
  }

  function turnAnswered(turn: Turn, outcome: InferOutcome): void {
    if (!settle(turn.seq!, turn.step, outcome) || ++turn.step === turn.seq!.length) turn.seq = undefined;
  }

  const pacer: Pacer<Turn> | undefined = ctx.rate
    ? createPacer<Turn>({
        exec,
        blocking: ctx.blocking,
        send: ctx.blocking
          ? (turn): void => turnAnswered(turn, transport.inferSync(turnRequest(turn, pacer!.slot())))
          : async (turn): Promise<void> =>
              turnAnswered(turn, await transport.infer(turnRequest(turn, pacer!.slot()))),
        open: {
          scheduledLatency: ctx.rate.scheduledLatency,
          schedule: ctx.rate.sends,
          sleep: ctx.rate.sleep,
          ...(ctx.rate.now ? { now: ctx.rate.now } : {}),
        },
      })
    : undefined;

  function runRate(): void | Promise<void> {
    const sequences = ctx.rate!.sequences;
    return pacer!.turns({ step: 0 }, exec.scenario.iterationInTest % sequences, sequences);
  }

  const run: ExecFunction = ctx.rate ? runRate : ctx.blocking ? runSync : runAsync;
  return { warmup: run, infer: run };
}
