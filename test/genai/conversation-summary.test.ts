/**
 * A multi-turn level read back from k6 summary data (lib/genai/level-summary.ts): sessions, their duration and
 * each turn's figures from the `turn`-tagged sub-metrics; the stdout line and report.md's table.
 */
import { describe, expect, it } from 'vitest';
import { conversationLines, generativeLevels } from '../../lib/genai/level-summary.ts';
import type { K6SummaryData } from '../../lib/summary/from-summary.ts';
import { conversationTable } from '../../report/markdown.ts';

const trend = (avg: number, count: number) => ({
  values: {
    avg,
    min: avg / 2,
    med: avg,
    max: avg * 2,
    'p(50)': avg,
    'p(90)': avg,
    'p(95)': avg * 1.5,
    'p(99)': avg * 1.8,
    count,
  },
});

const SINGLE: K6SummaryData['metrics'] = {
  'genai_ttft{scenario:c2}': trend(14, 30),
  'genai_latency{scenario:c2}': trend(40, 30),
  'genai_failed{scenario:c2}': { values: { rate: 0, passes: 0, fails: 30 } },
};

const MULTI: K6SummaryData = {
  metrics: {
    ...SINGLE,
    'genai_sessions{scenario:c2}': { values: { count: 10, rate: 1 } },
    'genai_sessions_failed{scenario:c2}': { values: { count: 1, rate: 0.1 } },
    'genai_session_duration{scenario:c2}': trend(150, 10),
    'genai_ttft{scenario:c2,turn:1}': trend(10, 11),
    'genai_latency{scenario:c2,turn:1}': trend(30, 11),
    'genai_isl{scenario:c2,turn:1}': trend(20, 11),
    'genai_ttft{scenario:c2,turn:2}': trend(14, 10),
    'genai_latency{scenario:c2,turn:2}': trend(40, 10),
    'genai_isl{scenario:c2,turn:2}': trend(52, 10),
    // A turn no session reached: probed, never recorded.
    'genai_ttft{scenario:c2,turn:3}': trend(0, 0),
    'genai_latency{scenario:c2,turn:3}': trend(0, 0),
    'genai_isl{scenario:c2,turn:3}': trend(0, 0),
  },
};

const LEVELS = [{ name: 'c2', mode: 'concurrency' as const, level: 2, start_s: 0, window_s: 10 }];

describe('a multi-turn level', () => {
  const [level] = generativeLevels(MULTI, LEVELS);

  it('reads sessions, their duration and each reached turn', () => {
    const c = level!.genai!.conversation!;
    expect([c.sessions, c.failed_sessions]).toEqual([10, 1]);
    expect(c.session_duration_ms).toMatchObject({ avg: 150, p50: 150, p95: 225 });
    expect(c.turns.map((t) => [t.turn, t.requests, t.ttft_ms.p50, t.latency_ms.p95, t.isl_avg])).toEqual([
      [1, 11, 10, 45, 20],
      [2, 10, 14, 60, 52],
    ]);
  });

  it('says it in one line per level and a report table', () => {
    expect(conversationLines([level!])).toEqual([
      'c2 sessions: 10 completed, 1 failed, duration p50/p95 150.00/225.00 ms; TTFT p50 by turn 1: 10.00 ms, ISL 20; 2: 14.00 ms, ISL 52',
    ]);
    const table = conversationTable([level!]);
    expect(table).toContain('## Conversations: sessions and turns');
    expect(table).toContain(
      '| c2 | 10 / 1 | 150.00 / 225.00 | 1 | 11 | 20 | 10.00 / 15.00 | 30.00 / 45.00 |',
    );
    expect(table).toContain('| c2 |  |  | 2 | 10 | 52 | 14.00 / 21.00 | 40.00 / 60.00 |');
  });

  it('is absent from a single-turn run', () => {
    const [single] = generativeLevels({ metrics: SINGLE }, LEVELS);
    expect(single!.genai!.conversation).toBeUndefined();
    expect(conversationLines([single!])).toEqual([]);
    expect(conversationTable([single!])).toBe('');
  });
});
