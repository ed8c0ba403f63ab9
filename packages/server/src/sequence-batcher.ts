/**
 * Triton's sequence batcher contract for a model whose config has `sequence_batching`: every request names its
 * sequence by a correlation id (uint64 or string) and flags its first and last request (sequence_start,
 * sequence_end). A sequence holds one slot from its START to its END, or until it idles longer than
 * max_sequence_idle_microseconds; sequences past the slot count wait for one in arrival order. Requests of one
 * sequence run one at a time, in the order they arrived. Refusals are Triton's, checked in its order
 * (batch size, correlation id, its datatype against a CORRID control, the START flag). A START on a live id
 * ends the old sequence early and goes on in its slot, as Triton does (it logs a warning, not an error).
 */
import type { ModelConfigJson } from './config/types.ts';
import { Errors } from './errors.ts';

/** The sequence_batching section of a model config, as far as this server reads it. */
export interface SequenceBatchingJson {
  max_sequence_idle_microseconds?: number;
  direct?: { max_queue_delay_microseconds?: number };
  oldest?: {
    max_candidate_sequences?: number;
    max_queue_delay_microseconds?: number;
    preferred_batch_size?: number[];
  };
  control_input?: { name: string; control?: { kind?: string; data_type?: string }[] }[];
}

/** A request's sequence fields, read from its parameters. */
export interface SequenceFlags {
  /** Map key: 'u:<uint64>' or 's:<text>'; undefined when the request names no sequence (absent, 0 or ''). */
  key: string | undefined;
  /** The id as Triton prints it in messages. */
  label: string;
  isString: boolean;
  start: boolean;
  end: boolean;
}

/** Reads sequence_id / sequence_start / sequence_end (types already checked by the transports). */
export function sequenceFlags(parameters: Record<string, unknown>): SequenceFlags {
  const raw = parameters.sequence_id;
  const start = parameters.sequence_start === true;
  const end = parameters.sequence_end === true;
  if (typeof raw === 'string') {
    return { key: raw === '' ? undefined : `s:${raw}`, label: raw, isString: true, start, end };
  }
  if (typeof raw === 'number' || typeof raw === 'bigint') {
    // gRPC's int64_param is read as Triton reads it: the same 64 bits as an unsigned id.
    const id = BigInt.asUintN(64, BigInt(raw)).toString();
    return { key: id === '0' ? undefined : `u:${id}`, label: id, isString: false, start, end };
  }
  return { key: undefined, label: '0', isString: false, start, end };
}

/** The config's sequence batching section, or undefined when the model has none. */
export function sequenceBatching(config: ModelConfigJson): SequenceBatchingJson | undefined {
  return config.sequence_batching as SequenceBatchingJson | undefined;
}

/** Slots per instance: max_batch_size (at least 1) for Direct, max_candidate_sequences for Oldest. */
export function slotsPerInstance(config: ModelConfigJson): number {
  const sb = sequenceBatching(config);
  if (sb?.oldest) return Math.max(1, Number(sb.oldest.max_candidate_sequences ?? 1));
  return Math.max(1, config.max_batch_size);
}

/** The datatype a CORRID control input declares ('UINT64', 'BYTES', ...), or undefined without one. */
function corrIdControl(sb: SequenceBatchingJson): { name: string; datatype: string } | undefined {
  for (const input of sb.control_input ?? []) {
    const control = input.control?.find((c) => c.kind === 'CONTROL_SEQUENCE_CORRID');
    if (control) {
      const type = (control.data_type ?? 'TYPE_UINT64').replace(/^TYPE_/, '');
      return { name: input.name, datatype: type === 'STRING' ? 'BYTES' : type };
    }
  }
  return undefined;
}

/** How a sequence batcher is set up. */
export interface SequenceBatcherOptions {
  model: string;
  config: SequenceBatchingJson;
  /** Slots over all instances. */
  slots: number;
  /** The backend reads correlation ids as numbers only (Triton's identity backend): a string id fails there. */
  uint64Only?: boolean;
}

/** One request let through: `ready` resolves when it may run; call `done` once it has settled. */
export interface SequenceTicket {
  ready: Promise<void>;
  done(): void;
}

interface Sequence {
  key: string;
  /** Resolves once the sequence holds a slot. */
  slotted: Promise<void>;
  hasSlot: boolean;
  grant(): void;
  /** Settles when the sequence's latest request has settled. */
  tail: Promise<void>;
  pending: number;
  idle: NodeJS.Timeout | undefined;
}

/** One model's sequences: admission, slots, per-sequence order and the idle timeout. */
export class SequenceBatcher {
  readonly #opts: SequenceBatcherOptions;
  readonly #idle_ms: number;
  readonly #corrId: { name: string; datatype: string } | undefined;
  readonly #live = new Map<string, Sequence>();
  readonly #waiting: Sequence[] = [];
  #freeSlots: number;

  constructor(opts: SequenceBatcherOptions) {
    this.#opts = opts;
    this.#idle_ms = Number(opts.config.max_sequence_idle_microseconds ?? 1_000_000) / 1000;
    this.#corrId = corrIdControl(opts.config);
    this.#freeSlots = Math.max(1, opts.slots);
  }

  /** Live sequences (started, not ended, not idled out). */
  get live(): number {
    return this.#live.size;
  }

  /** Sequences waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Checks a request as Triton's sequence batcher does and queues it behind its sequence's earlier requests. */
  admit(requestId: string, batchSize: number, parameters: Record<string, unknown>): SequenceTicket {
    const { model } = this.#opts;
    if (batchSize !== 1) throw Errors.sequenceBatchSize(model);
    const flags = sequenceFlags(parameters);
    const control = this.#corrId;
    const sent = flags.isString ? 'BYTES' : 'UINT64';
    // A CORRID control of another kind refuses the id, even an absent one (read as uint64 0), before anything else.
    if (control && control.datatype !== sent && (flags.key !== undefined || sent === 'UINT64')) {
      throw Errors.sequenceCorrIdType(requestId, control.name, sent, model, control.datatype);
    }
    if (flags.key === undefined) throw Errors.sequenceNoCorrelationId(model);
    let seq = this.#live.get(flags.key);
    if (!seq && !flags.start) throw Errors.sequenceNoStart(flags.label, model);
    if (!seq) seq = this.#open(flags.key);
    // A START on a live id ends the old sequence early: the new one goes on in its slot, after its requests.
    if (flags.end) this.#live.delete(flags.key);
    const ticket = this.#enqueue(seq, flags.end);
    if (flags.isString && this.#opts.uint64Only) {
      ticket.done();
      throw Errors.correlationIdNotUint(requestId);
    }
    return ticket;
  }

  /** Ends every sequence (the model unloads). */
  close(): void {
    for (const seq of this.#live.values()) clearTimeout(seq.idle);
    this.#live.clear();
    this.#waiting.length = 0;
  }

  #open(key: string): Sequence {
    let grant = () => {};
    const slotted = new Promise<void>((resolve) => {
      grant = resolve;
    });
    const seq: Sequence = {
      key,
      slotted,
      hasSlot: false,
      grant: () => {
        seq.hasSlot = true;
        grant();
      },
      tail: Promise.resolve(),
      pending: 0,
      idle: undefined,
    };
    this.#live.set(key, seq);
    if (this.#freeSlots > 0) {
      this.#freeSlots -= 1;
      seq.grant();
    } else {
      this.#waiting.push(seq);
    }
    return seq;
  }

  #enqueue(seq: Sequence, end: boolean): SequenceTicket {
    clearTimeout(seq.idle);
    seq.idle = undefined;
    seq.pending += 1;
    const ready = seq.tail.then(() => seq.slotted);
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    seq.tail = settled;
    let finished = false;
    return {
      ready,
      done: () => {
        if (finished) return;
        finished = true;
        seq.pending -= 1;
        settle();
        if (end) this.#release(seq);
        else if (seq.pending === 0 && this.#live.get(seq.key) === seq) this.#armIdle(seq);
      },
    };
  }

  /** An idle sequence is force-ended after max_sequence_idle_microseconds without a request. */
  #armIdle(seq: Sequence): void {
    seq.idle = setTimeout(() => {
      seq.idle = undefined;
      if (seq.pending > 0 || this.#live.get(seq.key) !== seq) return;
      this.#live.delete(seq.key);
      this.#release(seq);
    }, this.#idle_ms);
    seq.idle.unref?.();
  }

  /** Frees the sequence's slot for the longest-waiting sequence. */
  #release(seq: Sequence): void {
    clearTimeout(seq.idle);
    if (!seq.hasSlot) {
      const at = this.#waiting.indexOf(seq);
      if (at >= 0) this.#waiting.splice(at, 1);
      return;
    }
    seq.hasSlot = false;
    const next = this.#waiting.shift();
    if (next) next.grant();
    else this.#freeSlots += 1;
  }
}
