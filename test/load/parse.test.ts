import { describe, expect, it } from 'vitest';
import { formatDuration_ms, parseDuration_ms } from '../../lib/duration.ts';
import { parseDuration_s, parseLevels, parsePositiveNumber } from '../../lib/load/parse.ts';

describe('parseLevels', () => {
  it('expands perf_analyzer ranges with the step defaulting to 1', () => {
    expect(parseLevels('CONCURRENCY', '1:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseLevels('CONCURRENCY', '2:16:4')).toEqual([2, 6, 10, 14]);
    expect(parseLevels('CONCURRENCY', '4:4')).toEqual([4]);
  });

  it('reads lists, sorting and de-duplicating them', () => {
    expect(parseLevels('CONCURRENCY', '8, 1,2,4,2')).toEqual([1, 2, 4, 8]);
    expect(parseLevels('CONCURRENCY', '16')).toEqual([16]);
  });

  it('allows fractional request rates without drift', () => {
    expect(parseLevels('REQUEST_RATE', '0.5:2:0.5', { integer: false })).toEqual([0.5, 1, 1.5, 2]);
    expect(parseLevels('REQUEST_RATE', '100,250.5', { integer: false })).toEqual([100, 250.5]);
  });

  it.each([
    ['', 'it is empty'],
    ['abc', '"abc" is not a number'],
    ['8:1', 'end 1 is below start 8'],
    ['1:2:3:4', 'at most three parts'],
    ['0:4', 'must be greater than 0'],
    ['1.5,2', 'not a whole number'],
    ['1:100000', 'expands to 100000 levels'],
    ['1,,2', '"" is not a number'],
  ])('rejects %j with one line naming the variable and the fix', (text, reason) => {
    const error = (() => {
      try {
        parseLevels('CONCURRENCY', text);
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a throw');
    })();
    expect(error.message).toContain(`CONCURRENCY="${text}" is invalid`);
    expect(error.message).toContain(reason);
    expect(error.message).toContain('e.g. CONCURRENCY=');
    expect(error.message).not.toContain('\n');
  });
});

describe('parseDuration_s', () => {
  it('reads k6 durations', () => {
    expect(parseDuration_s('STEP_DURATION', '5s')).toBe(5);
    expect(parseDuration_s('STEP_DURATION', '500ms')).toBe(0.5);
    expect(parseDuration_s('STEP_DURATION', '1m')).toBe(60);
    expect(parseDuration_s('STEP_DURATION', '1m30s')).toBe(90);
    expect(parseDuration_s('WARMUP_DURATION', '0', { allowZero: true })).toBe(0);
  });

  it('refuses a bare number, which k6 would read as milliseconds', () => {
    expect(() => parseDuration_s('STEP_DURATION', '2')).toThrow(
      'STEP_DURATION="2" is invalid: a number without a unit is ambiguous; use a duration with a unit, such as STEP_DURATION=5s',
    );
  });

  it('rejects bad or zero durations naming the variable', () => {
    expect(() => parseDuration_s('STEP_DURATION', '5 sec')).toThrow(
      /STEP_DURATION="5 sec" is invalid.*STEP_DURATION=5s/,
    );
    expect(() => parseDuration_s('STEP_DURATION', '0s')).toThrow(/longer than 0/);
    expect(parseDuration_s('WARMUP_DURATION', '0s', { allowZero: true })).toBe(0);
  });

  it('formats milliseconds back into k6 durations that parse to the same value', () => {
    expect(formatDuration_ms(5000)).toBe('5s');
    expect(formatDuration_ms(7500)).toBe('7.5s');
    expect(formatDuration_ms(0)).toBe('0s');
    expect(formatDuration_ms(250)).toBe('250ms');
    expect(formatDuration_ms(90_000)).toBe('1m30s');
    expect(formatDuration_ms(3_600_000 + 1500)).toBe('1h0m1.5s');
    for (const ms of [0, 1, 250, 999.5, 1000, 7500, 59_999, 90_000, 3_601_500]) {
      expect(parseDuration_ms(formatDuration_ms(ms), 'd')).toBeCloseTo(ms, 6);
    }
  });
});

describe('parsePositiveNumber', () => {
  it('accepts positive numbers and rejects the rest', () => {
    expect(parsePositiveNumber('STABILITY', '12.5')).toBe(12.5);
    expect(() => parsePositiveNumber('STABILITY', '-1')).toThrow('STABILITY="-1" is invalid');
    expect(() => parsePositiveNumber('P95_MS', '0', '20')).toThrow('e.g. P95_MS=20');
  });
});
