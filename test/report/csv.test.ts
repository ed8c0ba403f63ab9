import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { perfAnalyzerCsv } from '../../report/csv.ts';
import { level } from './fixture.ts';

const HEADER =
  'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,' +
  'Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency';

describe('perfAnalyzerCsv', () => {
  it('writes perf_analyzer header exactly, integer microseconds, %g throughput', () => {
    const text = perfAnalyzerCsv([level({ level: 1, throughput_infer_s: 709.1114 })]);
    const lines = text.split('\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines[1]).toBe('1,709.111,30,169,64,206,900,19,12,1390,1800,2000,3000');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('sorts rows by ascending Inferences/Second as perf_analyzer does', () => {
    const text = perfAnalyzerCsv([
      level({ level: 1, throughput_infer_s: 709.111 }),
      level({ level: 2, throughput_infer_s: 1247.22 }),
      level({ level: 3, throughput_infer_s: 1924.72 }),
      level({ level: 4, throughput_infer_s: 1716.81 }),
    ]);
    const rows = Papa.parse<string[]>(text.trim()).data.slice(1);
    expect(rows.map((row) => row[0])).toEqual(['1', '2', '4', '3']);
  });

  it('writes zeros for server columns when the server gave no statistics', () => {
    const { server: _omit, ...rest } = level({ level: 8, throughput_infer_s: 10 });
    const row = perfAnalyzerCsv([rest]).split('\n')[1]!.split(',');
    expect(row.slice(4, 8)).toEqual(['0', '0', '0', '0']);
  });

  it('heads open-loop runs with Request Rate and refuses mixed modes', () => {
    const r = level({ level: 2.5, throughput_infer_s: 2.5, mode: 'request-rate', name: 'r2_5' });
    expect(perfAnalyzerCsv([r]).split('\n')[0]).toBe(HEADER.replace('Concurrency', 'Request Rate'));
    expect(perfAnalyzerCsv([r]).split('\n')[1]!.startsWith('2.5,2.5,')).toBe(true);
    expect(() => perfAnalyzerCsv([r, level({ level: 1, throughput_infer_s: 1 })])).toThrow(/mix concurrency/);
    expect(perfAnalyzerCsv([])).toBe(`${HEADER}\n`);
  });
});
