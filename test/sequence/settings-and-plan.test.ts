/** Sequence settings (perf_analyzer's names and defaults) and what each request of a sequence carries. */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../lib/random/random.ts';
import { drawLength, echoes, echoInput, SequenceIds, sequenceParameters } from '../../lib/sequence/plan.ts';
import { DEFAULT_SEQUENCE_SETTINGS, readSequenceSettings } from '../../lib/sequence/settings.ts';

describe('readSequenceSettings', () => {
  it("defaults to perf_analyzer's: length 20 ± 20 %, ids from 1 over UINT32_MAX ids, 4 sequences", () => {
    expect(readSequenceSettings({})).toEqual({
      length: 20,
      variation_pct: 20,
      idStart: 1,
      idCount: 4294967295,
      sequences: 4,
    });
  });

  it('reads every variable, the id range with its end excluded', () => {
    expect(
      readSequenceSettings({
        SEQUENCE_LENGTH: '5',
        SEQUENCE_LENGTH_VARIATION: '0',
        SEQUENCE_ID_RANGE: '100:200',
        NUM_OF_SEQUENCES: '3',
      }),
    ).toEqual({ length: 5, variation_pct: 0, idStart: 100, idCount: 100, sequences: 3 });
    expect(readSequenceSettings({ SEQUENCE_ID_RANGE: '7' }).idCount).toBe(DEFAULT_SEQUENCE_SETTINGS.idCount);
  });

  it('names the variable and the fix for a bad value', () => {
    expect(() => readSequenceSettings({ SEQUENCE_LENGTH: '0' })).toThrow(
      'invalid SEQUENCE_LENGTH="0"; expected a whole number >= 1',
    );
    expect(() => readSequenceSettings({ SEQUENCE_ID_RANGE: '10:5' })).toThrow(
      'invalid SEQUENCE_ID_RANGE="10:5"; expected start:end with 1 <= start < end',
    );
    expect(() => readSequenceSettings({ SEQUENCE_ID_RANGE: '0:5' })).toThrow('invalid SEQUENCE_ID_RANGE');
    expect(() => readSequenceSettings({ SEQUENCE_LENGTH_VARIATION: '150' })).toThrow(
      'invalid SEQUENCE_LENGTH_VARIATION="150"',
    );
    expect(() => readSequenceSettings({ SEQUENCE_LENGTH: '2.5' })).toThrow('invalid SEQUENCE_LENGTH="2.5"');
    expect(() => readSequenceSettings({ NUM_OF_SEQUENCES: '0' })).toThrow(
      'invalid NUM_OF_SEQUENCES="0"; expected a whole number >= 1',
    );
  });
});

describe('SequenceIds', () => {
  it('gives each VU ids no other VU uses, wrapping within the range', () => {
    const settings = readSequenceSettings({ SEQUENCE_ID_RANGE: '10:20' });
    const drawn = [1, 2, 3].map((vu) => {
      const ids = new SequenceIds(settings, vu, 3);
      return Array.from({ length: 4 }, () => ids.next());
    });
    // Nine usable ids (three whole blocks of three): VU 1 takes 10, 13, 16, then wraps to 10.
    expect(drawn).toEqual([
      [10, 13, 16, 10],
      [11, 14, 17, 11],
      [12, 15, 18, 12],
    ]);
    expect(drawn.flat().every((id) => id >= 10 && id < 20)).toBe(true);
  });

  it('refuses a range with fewer ids than VUs, naming a range that fits', () => {
    const settings = readSequenceSettings({ SEQUENCE_ID_RANGE: '1:3' });
    expect(() => new SequenceIds(settings, 1, 4)).toThrow(
      'invalid SEQUENCE_ID_RANGE: 2 ids for up to 4 VUs; give each VU an id of its own, e.g. 1:401',
    );
  });
});

describe('a sequence', () => {
  it('draws lengths within ± variation of the base, at least 1', () => {
    const random = createRandom(1);
    const lengths = Array.from({ length: 500 }, () => drawLength(DEFAULT_SEQUENCE_SETTINGS, random));
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(16);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(24);
    expect(new Set(lengths).size).toBeGreaterThan(5);
    expect(
      drawLength({ ...DEFAULT_SEQUENCE_SETTINGS, length: 1, variation_pct: 100 }, random),
    ).toBeGreaterThan(0);
  });

  it('flags START on the first request, END on the last, both on a sequence of one', () => {
    expect(sequenceParameters(9, 0, 3)).toEqual({ sequence_id: 9, sequence_start: true });
    expect(sequenceParameters(9, 1, 3)).toEqual({ sequence_id: 9 });
    expect(sequenceParameters(9, 2, 3)).toEqual({ sequence_id: 9, sequence_end: true });
    expect(sequenceParameters(9, 0, 1)).toEqual({ sequence_id: 9, sequence_start: true, sequence_end: true });
  });

  it('sends [id, step] and knows its own echo from another step', () => {
    const input = echoInput('INPUT0', 2 ** 32 - 1, 4);
    expect(input.shape).toEqual([1, 2]);
    const data = new Int32Array(input.data.buffer);
    const result = (values: number[]) => ({
      modelName: 'm',
      modelVersion: '1',
      outputs: [{ name: 'OUTPUT0', datatype: 'INT32' as const, shape: [1, 2], data: new Int32Array(values) }],
    });
    expect(echoes(result([...data]), 'OUTPUT0', 2 ** 32 - 1, 4)).toBe(true);
    expect(echoes(result([...data]), 'OUTPUT0', 2 ** 32 - 1, 5)).toBe(false);
    expect(echoes(result([7, 4]), 'OUTPUT0', 2 ** 32 - 1, 4)).toBe(false);
    expect(echoes(result([...data]), 'OTHER', 2 ** 32 - 1, 4)).toBe(false);
  });
});
