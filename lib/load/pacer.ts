/**
 * The pacer: when each request of a load level is sent, as perf_analyzer's load managers call a worker's
 * Infer(). Each kind of request (a tensor, a sequence step, a stream) supplies its `send`; the pacer owns the
 * rest of the timing, once for the three loops (scenarios/kit/measured-loop.ts, scenarios/kit/sequence-loop.ts,
 * scenarios/kit/genai/stream-test.ts):
 * - closed loop: each iteration sends at once (CONCURRENCY: k6 holds the VUs, the pacer adds nothing);
 * - request rate, k6's constant-arrival-rate: k6 starts iteration n when it is due, at the scenario's start +
 *   n / rate, and the pacer only notes that due time;
 * - paced (Poisson or gamma arrivals, a replayed schedule, perf_analyzer's interval file: lib/load/pacing.ts,
 *   a sequence level's sends: lib/sequence/rate.ts): send n is due at the scenario's start + its offset, and
 *   the VU waits for it on the sub-millisecond clock (clock.ts) where the runtime has one;
 * - scheduled-start latency: from the due time to the end of the request, so a generator that fell behind
 *   shows its lag as latency (wrk2's rule; a started iteration takes the next slot even after dropped ones).
 * Blocking calls under real k6, promises under the Node runtime; both run the same steps. The hot path makes
 * no closure and no object per request: what a send needs is kept in the pacer's state (a VU runs one
 * iteration at a time). Runs inside k6: imports only lib/.
 */
import { epochNow } from './clock.ts';
import { parseLevelName } from './names.ts';
import { RAMP_SCENARIO } from './ramp.ts';

/** The parts of k6/execution the pacer reads. */
export interface PacerExecution {
  scenario: { name: string; startTime: number; iterationInTest: number };
}

/** A metric the pacer adds to (k6's Trend or Counter). */
export interface PacerMetric {
  add(value: number): void;
}

/** A paced scenario's send times, ms from its start; the sample each names (a schedule); whether measured. */
export interface PacedSends {
  offsets_ms: readonly number[];
  payloads?: readonly (number | undefined)[];
  /** A warm-up's sends are paced but record no latency. @default true */
  measured?: boolean;
}

/**
 * One request of a kind, sent when it is due, with `data` as the iteration got it (pacer.slot() and
 * pacer.named() say which send it is). It returns when its response has ended (blocking), or a promise of that.
 */
export type Send<D> = (data: D) => void | Promise<void>;

/** The open loop's settings: what is recorded against the schedule, and how to wait. */
export interface OpenLoop {
  /** Scheduled-start latency, ms (k6_triton_scheduled_latency). */
  scheduledLatency: PacerMetric;
  /**
   * Paced scenarios' send times by name; absent for k6's constant-arrival-rate, which starts iteration n when
   * it is due. A scenario it gives nothing for sends nothing.
   */
  schedule?: (scenario: string) => PacedSends | undefined;
  /** Waits ms (k6's sleep, or a timer's promise under the Node runtime). */
  sleep(ms: number): void | Promise<void>;
  /** An open-loop ramp (ramp.ts): when its scenario's send number `slot` is due, ms from its start. */
  rampDue_ms?: (slot: number) => number;
  /** Epoch ms the wait is read on. @default epochNow (sub-millisecond where the runtime has one) */
  now?(): number;
  /** How late each send left (ms from its due time), and a count of those later than `lateAfter_ms`. */
  sendLag?: { lag: PacerMetric; late: PacerMetric; lateAfter_ms: number };
  /**
   * The kind calls ended() when its response has ended, rather than the pacer when send returns: a stream
   * outlives the send that opened it.
   */
  endsLater?: boolean;
}

/** What a pacer needs. */
export interface PacerOptions<D> {
  exec: PacerExecution;
  send: Send<D>;
  /** Blocking calls (real k6) or promises (the Node runtime). */
  blocking: boolean;
  /** Request rate; absent for a closed loop. */
  open?: OpenLoop;
}

/** One VU's pacer. */
export interface Pacer<D> {
  /** This iteration's send: at once (closed loop), noted as due (k6's arrival rate), or at its paced time. */
  iteration(data: D): void | Promise<void>;
  /**
   * Sends slot first, first + stride, ... of the scenario's paced sends in turn, each at its due time or, when
   * the previous one ended late, as soon as it did (a sequence's steps: scenarios/kit/sequence-loop.ts).
   */
  turns(data: D, first: number, stride: number): void | Promise<void>;
  /** The scenario's send number of the send in progress: the iteration's (read when asked), or a turn's. */
  slot(): number;
  /** The sample a replayed schedule names for the send in progress; undefined: the kind picks its next. */
  named(): number | undefined;
  /** How many sends the current paced scenario has (0 for a scenario without a schedule). */
  sends(): number;
  /** Epoch ms the send in progress was due; 0 in a closed loop. */
  due(): number;
  /** Records the scheduled-start latency of a send due at `due_ms` whose response ended now (endsLater). */
  ended(due_ms: number): void;
}

/** Builds one VU's pacer (once, in the init context or on the VU's first iteration). */
export function createPacer<D>(options: PacerOptions<D>): Pacer<D> {
  const { exec, send, blocking, open } = options;
  const now = open?.now ?? epochNow;
  const paced = open?.schedule;
  const lag = open?.sendLag;
  // The scenario the state below was read for.
  let scenario = '';
  let period_ms = 0;
  let rampDue: ((slot: number) => number) | undefined;
  let offsets: readonly number[] = [];
  let payloads: readonly (number | undefined)[] | undefined;
  let measured = true;
  // The send in progress: its due time and slot, and the data the iteration got.
  let due_ms = 0;
  let slot = 0;
  let pending: D;

  // Under real k6 each read of exec.scenario is a call into Go that builds its object: read once a send.
  /** Reads the scenario's timing once per scenario: its paced sends, or k6's 1 / rate. */
  function enter(name: string): void {
    if (name === scenario) return;
    scenario = name;
    const sends = paced?.(name);
    offsets = sends?.offsets_ms ?? [];
    payloads = sends?.payloads;
    measured = sends?.measured ?? true;
    period_ms = 1000 / (parseLevelName(name)?.level ?? Number.POSITIVE_INFINITY);
    rampDue = name === RAMP_SCENARIO ? open?.rampDue_ms : undefined;
  }

  /**
   * The one wait until a send is due, read on the sub-millisecond clock: undefined when it is due (or was, a
   * send that goes late) or after a blocking sleep, else the promise of the wait.
   */
  function untilDue(due: number): Promise<void> | undefined {
    const wait_ms = due - now();
    if (wait_ms <= 0) return undefined;
    const slept = open!.sleep(wait_ms);
    return blocking ? undefined : (slept as Promise<void>);
  }

  /** How late a send due at `due` leaves, recorded as it leaves (generative levels). */
  function noteSend(due: number): void {
    if (!lag) return;
    const late_ms = Date.now() - due;
    lag.lag.add(late_ms);
    lag.late.add(late_ms > lag.lateAfter_ms ? 1 : 0);
  }

  function ended(due: number): void {
    if (measured) open!.scheduledLatency.add(Date.now() - due);
  }

  function endedPending(): void {
    ended(due_ms);
  }

  /** Sends the pending request now; its latency recorded when it ended, unless the kind reports that. */
  function sendPending(): void | Promise<void> {
    noteSend(due_ms);
    const sent = send(pending);
    if (open!.endsLater) return sent;
    if (sent === undefined) return endedPending();
    return sent.then(endedPending);
  }

  function iterationArrivalRate(data: D): void | Promise<void> {
    const current = exec.scenario;
    enter(current.name);
    slot = current.iterationInTest;
    due_ms = current.startTime + (rampDue ? rampDue(slot) : slot * period_ms);
    pending = data;
    return sendPending();
  }

  function iterationPaced(data: D): void | Promise<void> {
    const current = exec.scenario;
    enter(current.name);
    slot = current.iterationInTest;
    if (slot >= offsets.length) return;
    due_ms = current.startTime + offsets[slot]!;
    pending = data;
    const wait = untilDue(due_ms);
    return wait ? wait.then(sendPending) : sendPending();
  }

  function turnsSync(data: D, first: number, stride: number): void {
    const { name, startTime: start } = exec.scenario;
    enter(name);
    for (let k = first; k < offsets.length; k += stride) {
      const due = start + offsets[k]!;
      untilDue(due);
      noteSend(due);
      slot = k;
      send(data);
      if (!open!.endsLater) ended(due);
    }
  }

  async function turnsAsync(data: D, first: number, stride: number): Promise<void> {
    const { name, startTime: start } = exec.scenario;
    enter(name);
    // Local copies: under the Node runtime an iteration cut at its graceful stop may run on beside the next
    // (send reads slot before its first await).
    const sends = offsets;
    for (let k = first; k < sends.length; k += stride) {
      const due = start + sends[k]!;
      await untilDue(due);
      noteSend(due);
      slot = k;
      await send(data);
      if (!open!.endsLater) ended(due);
    }
  }

  return {
    // The closed loop is the kind's send itself: nothing per request.
    iteration: !open ? send : paced ? iterationPaced : iterationArrivalRate,
    turns: blocking ? turnsSync : turnsAsync,
    slot: open ? () => slot : () => exec.scenario.iterationInTest,
    named: () => payloads?.[slot],
    sends: () => offsets.length,
    due: () => due_ms,
    ended: open ? ended : () => {},
  };
}
