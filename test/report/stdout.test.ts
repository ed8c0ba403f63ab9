import { describe, expect, it } from 'vitest';
import { formatG } from '../../lib/summary/format.ts';
import { perfAnalyzerSummary } from '../../lib/summary/stdout.ts';
import { level } from './fixture.ts';

describe('perfAnalyzerSummary', () => {
  it('prints perf_analyzer closing lines exactly as seed 003 shows them', () => {
    const seed: [number, number, number][] = [
      [1, 709.111, 1402],
      [2, 1247.22, 1606],
      [3, 1388.56, 2158],
      [8, 2108.97, 3792],
    ];
    const results = seed.map(([c, tp, avg]) =>
      level({
        level: c,
        throughput_infer_s: tp,
        latency_us: { ...level({ level: 1, throughput_infer_s: 1 }).latency_us, avg: avg + 0.9 },
      }),
    );
    expect(perfAnalyzerSummary(results)).toBe(
      [
        'Inferences/Second vs. Client Average Batch Latency',
        'Concurrency: 1, throughput: 709.111 infer/sec, latency 1402 usec',
        'Concurrency: 2, throughput: 1247.22 infer/sec, latency 1606 usec',
        'Concurrency: 3, throughput: 1388.56 infer/sec, latency 2158 usec',
        'Concurrency: 8, throughput: 2108.97 infer/sec, latency 3792 usec',
        '',
      ].join('\n'),
    );
  });

  it('prints Request Rate for open-loop levels and nothing without results', () => {
    const r = level({ level: 100, throughput_infer_s: 99.8, mode: 'request-rate', name: 'r100' });
    expect(perfAnalyzerSummary([r])).toContain(
      'Request Rate: 100, throughput: 99.8 infer/sec, latency 1402 usec',
    );
    expect(perfAnalyzerSummary([])).toBe('');
  });
});

describe('formatG', () => {
  it.each([
    [709.1114, '709.111'],
    [1515, '1515'],
    [1776030, '1.77603e+06'],
    [69.2, '69.2'],
    [0.000012345, '1.2345e-05'],
    [0.5, '0.5'],
    [100, '100'],
    [999999.6, '1e+06'],
    [0, '0'],
    [-2.5, '-2.5'],
  ])('formats %d like C++ ostream as %s', (value, text) => {
    expect(formatG(value)).toBe(text);
  });
});
