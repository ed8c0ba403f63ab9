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

  it('adds the --verbose-csv columns: avg latency, send+recv, the wait, and GPU metrics as perf_analyzer spells them', () => {
    const r = level({
      level: 1,
      throughput_infer_s: 10,
      latency_us: { avg: 1500.7, p50: 1400, p90: 1600, p95: 1700, p99: 1900, min: 1000, max: 2500 },
      client_send_us: 50,
      client_recv_us: 100,
      server_metrics: {
        interval_s: 2,
        scrapes: 4,
        request_success: 20,
        request_failure: 0,
        gpu_utilization_avg_pct: 45,
        gpu_power_usage_avg_w: 70.5,
        gpu_memory_used_max_bytes: 2048,
        gpu_memory_total_bytes: 4096,
      },
    });
    const [header, row] = perfAnalyzerCsv([r], { verbose: true }).trim().split('\n');
    expect(header).toBe(
      `${HEADER},Avg latency,request/response,response wait,Avg GPU Utilization,Avg GPU Power Usage,Max GPU Memory Usage,Total GPU Memory`,
    );
    expect(row!.split(',').slice(-7)).toEqual([
      '1500',
      '150',
      '1350',
      'all:0.45;',
      'all:70.5;',
      'all:2048;',
      'all:4096;',
    ]);
  });
});
