/** Execution segment arithmetic against the values k6's lib/execution_segment.go documents and real k6 gives. */
import { describe, expect, it } from 'vitest';
import { consolidateOptions, InvalidConfigError } from '../src/options/index.ts';
import { ExecutionTuple, parseSegment, parseSequence, segmentString } from '../src/options/segment.ts';

const thirds = parseSequence('0,1/3,2/3,1');
const tuples = (seq: string, segs: string[]) =>
  segs.map((s) => ExecutionTuple.of(parseSegment(s), parseSequence(seq)));

describe('execution segments', () => {
  it('parses fractions, decimals, percentages and the "to" shorthand', () => {
    expect(segmentString(parseSegment('1/3:2/3'))).toBe('1/3:2/3');
    expect(segmentString(parseSegment('0.5:75%'))).toBe('1/2:3/4');
    expect(segmentString(parseSegment('20%'))).toBe('0:1/5');
    expect(segmentString(parseSegment(''))).toBe('0:1');
    expect(thirds.map(segmentString)).toEqual(['0:1/3', '1/3:2/3', '2/3:1']);
  });

  it("rejects bad segments and sequences with k6's wording", () => {
    expect(() => parseSegment('1/3:1/4')).toThrow('segment start(0.33) must be less than its end(0.25)');
    expect(() => parseSegment('abc')).toThrow(
      "'abc' is not a valid percentage, decimal, fraction or interval value",
    );
    expect(() => parseSegment('1/2:3/2')).toThrow("segment end value can't be more than 1 but was 1.50");
    expect(() => parseSegment('x%')).toThrow("'x%' is not a valid percentage");
    expect(() => parseSequence('1/3')).toThrow(
      'at least 2 points are needed for an execution segment sequence, 1 given',
    );
    expect(() => ExecutionTuple.of(parseSegment('1/3:1'), parseSequence('0,1/3'))).toThrow(
      "provided segment 1/3:1 can't be found in sequence 0,1/3",
    );
  });

  it('splits 10 VUs over thirds 4, 3, 3 and any value so that the shares add up', () => {
    const ts = tuples('0,1/3,2/3,1', ['0:1/3', '1/3:2/3', '2/3:1']);
    expect(ts.map((t) => t.scale(10))).toEqual([4, 3, 3]);
    for (let v = 0; v <= 50; v++) expect(ts.reduce((a, t) => a + t.scale(v), 0)).toBe(v);
  });

  it("matches k6's documented table for the sequence 0,1/2,3/4,1", () => {
    const ts = tuples('0,1/2,3/4,1', ['0:1/2', '1/2:3/4', '3/4:1']);
    const values = Array.from({ length: 12 }, (_, i) => i + 1);
    expect(values.map((v) => ts[0]!.scale(v))).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    expect(values.map((v) => ts[1]!.scale(v))).toEqual([0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]);
    expect(values.map((v) => ts[2]!.scale(v))).toEqual([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3]);
    // The striped iterators: 0,2,4,… / 1,5,9,… / 3,7,11,…
    const owned = (t: ExecutionTuple) => Array.from({ length: 12 }, (_, k) => k).filter((k) => t.owns(k));
    expect(ts.map(owned)).toEqual([
      [0, 2, 4, 6, 8, 10],
      [1, 5, 9],
      [3, 7, 11],
    ]);
  });

  it('a segment alone is filled to a full sequence; none is the whole test', () => {
    const t = ExecutionTuple.of(parseSegment('1/3:2/3'), []);
    expect(t.scale(10)).toBe(3);
    expect(ExecutionTuple.of(null, []).segmented).toBe(false);
    expect(ExecutionTuple.of(null, []).scale(7)).toBe(7);
  });
});

describe('segmented scenarios (real k6 v2.2.0: 40/30/30 iterations, vus_max 12/9/9)', () => {
  const script = {
    scenarios: {
      si: { executor: 'shared-iterations', vus: 10, iterations: 100 },
      pv: { executor: 'per-vu-iterations', vus: 10, iterations: 2 },
      car: { executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 10 },
      one: { executor: 'constant-vus', vus: 1, duration: '1s' },
    },
  };
  const at = (seg: string) =>
    consolidateOptions(script, { executionSegment: seg, executionSegmentSequence: '0,1/3,2/3,1' }).scenarios;

  it('scales VUs and re-cuts shared iterations and arrival rates by the VUs, as k6', () => {
    const segs = ['0:1/3', '1/3:2/3', '2/3:1'].map(at);
    expect(segs.map((s) => s[0]!.iterations)).toEqual([40, 30, 30]);
    expect(segs.map((s) => s[1]!.vus)).toEqual([4, 3, 3]);
    expect(segs.map((s) => s[1]!.iterations)).toEqual([2, 2, 2]);
    expect(segs.map((s) => s[2]!.preAllocatedVUs)).toEqual([4, 3, 3]);
    // Arrival-rate iterations 0..99 of the full schedule, split by the re-cut tuple: rate 100 → 40/30/30.
    const started = segs.map((s) =>
      Array.from({ length: 100 }, (_, k) => k).filter((k) => s[2]!.iterationTuple!.owns(k)),
    );
    expect(started.map((a) => a.length)).toEqual([40, 30, 30]);
    expect(new Set(started.flat()).size).toBe(100);
    // One VU goes to the first segment only; the others have nothing to do.
    expect(segs.map((s) => s[3]!.noWork)).toEqual([false, true, true]);
  });

  it('bad segment options are configuration errors', () => {
    expect(() => consolidateOptions({ executionSegment: '1/3:1/4' })).toThrow(InvalidConfigError);
    expect(() => consolidateOptions({ executionSegment: 3 })).toThrow('invalid option executionSegment');
  });
});
