import { describe, expect, it } from 'vitest';
import {
  formatScheduleLine,
  intervalOffsets_ms,
  intervalsRate,
  parseRequestIntervals,
  parseScheduleFile,
  scaleSchedule,
} from '../../lib/load/schedule-file.ts';
import { thrown } from './thrown.ts';

describe('parseScheduleFile (JSON lines)', () => {
  it('reads send times from the first request, the payloads and the line numbers', () => {
    const text = `${[
      formatScheduleLine(1000.5, 'mnist', 3),
      '',
      formatScheduleLine(1002, 'mnist'),
      formatScheduleLine(1002),
    ].join('\n')}\n`;
    expect(parseScheduleFile(text, 'rec.jsonl')).toEqual({
      source: 'rec.jsonl',
      offsets_ms: [0, 1.5, 1.5],
      payloads: [3, undefined, undefined],
      lines: [1, 3, 4],
    });
  });

  it("keeps only the run's model; lines without a model belong to every run", () => {
    const text = [
      '{"at_ms": 0, "model": "bert"}',
      '{"at_ms": 5, "model": "mnist", "payload": 1}',
      '{"at_ms": 9}',
    ].join('\n');
    const s = parseScheduleFile(text, 'mix.jsonl', { models: ['mnist'] });
    expect(s.offsets_ms).toEqual([0, 4]);
    expect(s.lines).toEqual([2, 3]);
  });

  it.each([
    ['{"at_ms": 0}\nnot json', 'schedule f.jsonl line 2: not a JSON object; each line is {"at_ms"'],
    ['[1]', 'schedule f.jsonl line 1: not a JSON object'],
    ['{"t": 3}', 'schedule f.jsonl line 1: at_ms undefined is not a number >= 0'],
    ['{"at_ms": "3"}', 'schedule f.jsonl line 1: at_ms "3" is not a number >= 0'],
    [
      '{"at_ms": 5}\n{"at_ms": 4}',
      "schedule f.jsonl line 2: at_ms 4 is before the previous request's 5; sort the file by at_ms",
    ],
    ['{"at_ms": 1, "payload": 1.5}', 'schedule f.jsonl line 1: payload 1.5 is not a whole number >= 0'],
    ['{"at_ms": 1, "model": 7}', 'schedule f.jsonl line 1: model 7 is not a string'],
    ['\n\n', 'schedule f.jsonl has no request for model mnist; add lines'],
    ['{"at_ms": 1, "model": "bert"}', 'schedule f.jsonl has no request for model mnist (it names bert)'],
  ])('refuses %j in one line naming the file, the line and the fix', (text, message) => {
    const error = thrown(() => parseScheduleFile(text, 'f.jsonl', { models: ['mnist'] }));
    expect(error).toContain(message);
    expect(error).not.toContain('\n');
  });

  it('scales a schedule to a faster or slower pace', () => {
    const s = parseScheduleFile('{"at_ms": 0}\n{"at_ms": 10}\n{"at_ms": 30}', 'f.jsonl');
    expect(scaleSchedule(s, 2).offsets_ms).toEqual([0, 5, 15]);
    expect(scaleSchedule(s, 0.5).offsets_ms).toEqual([0, 20, 60]);
    expect(thrown(() => scaleSchedule(s, 0))).toContain('schedule speed 0 must be greater than 0');
  });
});

describe("parseRequestIntervals (perf_analyzer's --request-intervals)", () => {
  it('reads one gap in microseconds per line and loops over them from the first gap, as perf_analyzer does', () => {
    // perf_analyzer's docs: 100000, 200000, 500000 send at 0.1 s, 0.3 s, 0.8 s, 0.9 s, 1.1 s, 1.6 s...
    const intervals = parseRequestIntervals('100000\n200000\n500000\n', 'gaps.txt');
    expect(intervals).toEqual([100000, 200000, 500000]);
    expect(intervalOffsets_ms(intervals, 1.7)).toEqual([100, 300, 800, 900, 1100, 1600]);
    expect(intervalsRate(intervals)).toBeCloseTo(3 / 0.8, 9);
  });

  it.each([
    ['100\n\n200', 'request intervals gaps.txt line 2 is empty'],
    ['100\n2.5', 'request intervals gaps.txt line 2 "2.5" is not a whole number of microseconds'],
    ['-100', 'request intervals gaps.txt line 1 "-100" is not a whole number'],
    ['', 'request intervals gaps.txt line 1 is empty'],
    ['0\n0', 'request intervals gaps.txt has no gap longer than 0'],
  ])('refuses %j in one line naming the file, the line and the fix', (text, message) => {
    const error = thrown(() => parseRequestIntervals(text, 'gaps.txt'));
    expect(error).toContain(message);
    expect(error).toContain('put one whole number of microseconds per line');
    expect(error).not.toContain('\n');
  });
});
