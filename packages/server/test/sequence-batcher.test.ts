/**
 * The embedded sequence batcher: Triton's refusals in Triton's order (probed on tritonserver 2.60.0, see
 * test/e2e/triton/differential-sequence.test.ts), slots held from START to END, one request of a sequence at a
 * time, and the idle timeout (on fake timers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SequenceBatcher, sequenceFlags } from '../src/sequence-batcher.ts';

const MODEL = 'seq';

function batcher(slots = 2, extra: Partial<ConstructorParameters<typeof SequenceBatcher>[0]> = {}) {
  return new SequenceBatcher({
    model: MODEL,
    config: { max_sequence_idle_microseconds: 1_000_000, direct: {} },
    slots,
    ...extra,
  });
}

/** Whether a promise has settled, after the pending microtasks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe('sequence batcher refusals', () => {
  it('checks batch size, then the correlation id, then the START flag', () => {
    const b = batcher();
    expect(() => b.admit('', 2, {})).toThrow(
      "inference request to model 'seq' must specify batch-size 1 due to requirements of sequence batcher",
    );
    for (const parameters of [{}, { sequence_id: 0, sequence_start: true }, { sequence_id: '' }]) {
      expect(() => b.admit('', 1, parameters)).toThrow(
        "inference request to model 'seq' must specify a non-zero or non-empty correlation ID",
      );
    }
    expect(() => b.admit('', 1, { sequence_id: 5 })).toThrow(
      "inference request for sequence 5 to model 'seq' must specify the START flag on the first request of the sequence",
    );
    expect(() => b.admit('', 1, { sequence_id: 'abc', sequence_end: true })).toThrow(
      'inference request for sequence abc to model',
    );
  });

  it('answers every refusal as INVALID_ARG (HTTP 400, gRPC INVALID_ARGUMENT)', () => {
    try {
      batcher().admit('', 1, { sequence_id: 9 });
      expect.unreachable();
    } catch (err) {
      expect((err as { httpStatus: number }).httpStatus).toBe(400);
      expect((err as { code: string }).code).toBe('INVALID_ARG');
    }
  });

  it('refuses a string id on a backend that reads ids as numbers, after the sequence started (as identity)', () => {
    const b = batcher(2, { uint64Only: true });
    const notUint = '[request id: r1] correlation ID in request is not an unsigned int';
    expect(() => b.admit('r1', 1, { sequence_id: 'abc', sequence_start: true })).toThrow(notUint);
    // The scheduler took the START: the sequence is live, so the next request fails in the backend too.
    expect(() => b.admit('r1', 1, { sequence_id: 'abc' })).toThrow(notUint);
    expect(b.live).toBe(1);
  });

  it('holds ids to a CORRID control datatype, an absent id read as a uint64', () => {
    const b = batcher(2, {
      config: {
        control_input: [
          { name: 'CORRID', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' }] },
        ],
      },
    });
    const mismatch =
      "sequence batching control 'CORRID' data-type is 'UINT64', but model 'seq' expects 'BYTES'";
    expect(() => b.admit('', 1, { sequence_id: 5, sequence_start: true })).toThrow(mismatch);
    expect(() => b.admit('', 1, {})).toThrow(mismatch);
    expect(b.admit('', 1, { sequence_id: 'a', sequence_start: true })).toBeDefined();
  });
});

describe('sequence batcher lifetimes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a sequence at its END and accepts a START on a live id', async () => {
    const b = batcher();
    b.admit('', 1, { sequence_id: 7, sequence_start: true }).done();
    b.admit('', 1, { sequence_id: 7, sequence_start: true }).done();
    expect(b.live).toBe(1);
    const end = b.admit('', 1, { sequence_id: 7, sequence_end: true });
    await end.ready;
    end.done();
    expect(b.live).toBe(0);
    expect(() => b.admit('', 1, { sequence_id: 7 })).toThrow('must specify the START flag');
  });

  it("runs a sequence's requests one at a time, in arrival order", async () => {
    const b = batcher();
    const first = b.admit('', 1, { sequence_id: 1, sequence_start: true });
    const second = b.admit('', 1, { sequence_id: 1 });
    expect(await settled(first.ready)).toBe(true);
    expect(await settled(second.ready)).toBe(false);
    first.done();
    expect(await settled(second.ready)).toBe(true);
  });

  it('makes a sequence past the slot count wait until a slot frees', async () => {
    const b = batcher(1);
    const a = b.admit('', 1, { sequence_id: 1, sequence_start: true });
    a.done();
    const c = b.admit('', 1, { sequence_id: 2, sequence_start: true });
    expect(b.waiting).toBe(1);
    expect(await settled(c.ready)).toBe(false);
    b.admit('', 1, { sequence_id: 1, sequence_end: true }).done();
    expect(await settled(c.ready)).toBe(true);
    expect(b.waiting).toBe(0);
  });

  it('force-ends a sequence idle longer than max_sequence_idle_microseconds', () => {
    vi.useFakeTimers();
    const b = batcher();
    b.admit('', 1, { sequence_id: 3, sequence_start: true }).done();
    vi.advanceTimersByTime(999);
    b.admit('', 1, { sequence_id: 3 }).done();
    vi.advanceTimersByTime(999);
    expect(b.live).toBe(1);
    vi.advanceTimersByTime(2);
    expect(b.live).toBe(0);
    expect(() => b.admit('', 1, { sequence_id: 3 })).toThrow('must specify the START flag');
  });
});

describe('sequenceFlags', () => {
  it('reads ids as Triton does: int64 as the same 64 bits unsigned, strings as they are', () => {
    expect(sequenceFlags({ sequence_id: -5 }).label).toBe('18446744073709551611');
    expect(sequenceFlags({ sequence_id: 'x', sequence_start: true, sequence_end: true })).toEqual({
      key: 's:x',
      label: 'x',
      isString: true,
      start: true,
      end: true,
    });
    expect(sequenceFlags({}).key).toBeUndefined();
  });
});
