/** The generative open loop: the level's schedule read back and worded (due times: test/load/pacer.test.ts). */
import { describe, expect, it } from 'vitest';
import { generativeLevels } from '../../lib/genai/level-summary.ts';
import { couldNotKeepUp, scheduleLines } from '../../lib/genai/open-loop.ts';
import type { PlannedLevel } from '../../lib/load/scenarios.ts';
import type { K6SummaryData } from '../../lib/summary/from-summary.ts';

const lag = (p50: number, p95: number, max: number) => ({
  values: { avg: p50, min: 0, med: p50, max, 'p(50)': p50, 'p(95)': p95, 'p(99)': max, count: 20 },
});

function summary(late: number, dropped: number): K6SummaryData {
  const latency = {
    values: { avg: 200, min: 190, max: 260, 'p(50)': 200, 'p(95)': 250, 'p(99)': 255, count: 20 },
  };
  return {
    metrics: {
      'genai_latency{scenario:r4}': latency,
      'genai_failed{scenario:r4}': { values: { rate: 0, passes: 0, fails: 20 } },
      'genai_output_tokens{scenario:r4}': { values: { count: 2000 } },
      'genai_send_lag{scenario:r4}': late > 0 ? lag(300, 800, 900) : lag(1, 3, 4),
      'genai_late_sends{scenario:r4}': { values: { count: late } },
      'dropped_iterations{scenario:r4}': { values: { count: dropped } },
      'k6_triton_scheduled_latency{scenario:r4}': latency,
      'genai_good{scenario:r4}': { values: { rate: 0.75, passes: 15, fails: 5 } },
    },
  } as unknown as K6SummaryData;
}

const R4: PlannedLevel = { name: 'r4', mode: 'request-rate', level: 4, start_s: 0, window_s: 5 };

describe('a generative open-loop level', () => {
  it('says the schedule held when no send was late and none was dropped', () => {
    const [level] = generativeLevels(summary(0, 0), [R4], { vus: () => 6 });
    expect(level!.genai!.schedule).toMatchObject({ sends: 20, late_sends: 0, vus: 6 });
    expect(level!.scheduled_latency_us?.p95).toBe(250_000);
    expect(couldNotKeepUp(level!)).toBe(false);
    expect(scheduleLines([level!])).toEqual(['r4: schedule held, send lag p50/p95/max 1.00/3.00/4.00 ms']);
  });

  it('says the generator could not keep up when sends waited for a VU under --max-vus', () => {
    const [level] = generativeLevels(summary(12, 0), [R4], { vus: () => 2, capped: true });
    expect(couldNotKeepUp(level!)).toBe(true);
    expect(scheduleLines([level!])).toEqual([
      'r4: could not keep up: 12 of 20 sends left over 10 ms late, all 2 VUs (--max-vus) busy streaming; ' +
        'send lag p50/p95/max 300.00/800.00/900.00 ms; the server got 4.00 req/s of the 4 asked',
    ]);
  });

  it('a multi-turn level says the sessions per second the server got, the rate it was asked', () => {
    const data = summary(12, 0);
    data.metrics['genai_sessions{scenario:r4}'] = { values: { count: 7 } };
    data.metrics['genai_sessions_failed{scenario:r4}'] = { values: { count: 1 } };
    const [level] = generativeLevels(data, [R4], { vus: () => 2, capped: true });
    expect(scheduleLines([level!])[0]).toMatch(/; the server got 1\.60 sessions\/s of the 4 asked$/);
  });

  it("counts k6's dropped iterations as not keeping up, and suggests more VUs when none were set", () => {
    const [level] = generativeLevels(summary(0, 3), [R4], { vus: () => 9 });
    expect(scheduleLines([level!])[0]).toContain(
      'left over 10 ms late and 3 were dropped, all 9 VUs busy streaming (raise --max-vus)',
    );
  });

  it('reads goodput against the SLOs it was judged on', () => {
    const slo = { ttft_ms: 150, itl_ms: 10, latency_ms: 1000 };
    const [level] = generativeLevels(summary(0, 0), [R4], { slo });
    expect(level!.genai!.goodput).toEqual({
      slo,
      good_requests: 15,
      good_fraction: 0.75,
      requests_per_s: 3,
    });
  });
});
