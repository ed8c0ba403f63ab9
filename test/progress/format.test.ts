/**
 * The bench's progress lines (measure/core/progress.ts): where a run is on its planned timetable, and the line
 * that says it, with the live rate read from two Prometheus scrapes.
 */
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../lib/load/scenarios.ts';
import { clock, formatProgress, liveRate, progressAt, windowRate } from '../../measure/core/progress.ts';

// c1, c2, c4: 2 s warm-up and 5 s window each; windows at 2-7, 9-14, 16-21 s, total 23 s.
const plan = buildPlan({ mode: 'concurrency', levels: [1, 2, 4], warmup_s: 2, window_s: 5, exec: 'infer' });

describe('progress', () => {
  it('finds the level and its phase on the timetable', () => {
    expect(plan.levels.map((l) => l.start_s)).toEqual([2, 9, 16]);
    const at = (t: number) => {
      const p = progressAt(plan.levels, plan.total_s, t);
      return `${p.index}/${p.levels} ${p.name} ${p.phase} ${p.remaining_s}`;
    };
    expect(at(0)).toBe('1/3 c1 warm-up 23');
    expect(at(3)).toBe('1/3 c1 measuring 20');
    expect(at(8)).toBe('2/3 c2 warm-up 15');
    expect(at(20)).toBe('3/3 c4 measuring 3');
    expect(at(22)).toBe('3/3 c4 finishing 1');
    expect(at(30)).toBe('3/3 c4 finishing 0');
  });

  it('formats the line with the times and, when scraped, the live rate', () => {
    const point = progressAt(plan.levels, plan.total_s, 10.4);
    expect(formatProgress(point)).toBe('level 2 of 3 (c2, measuring): 0:10 elapsed, 0:13 remaining');
    expect(formatProgress(point, { infer_s: 1234.4, queue_ms: 0.2, compute_ms: 1.1 })).toBe(
      'level 2 of 3 (c2, measuring): 0:10 elapsed, 0:13 remaining; server: 1,234 infer/s, queue 0.20 ms, compute 1.10 ms',
    );
    expect(formatProgress(progressAt(plan.levels, plan.total_s, 25))).toBe(
      'levels done (3 of 3), finishing: 0:25 elapsed, 0:00 remaining',
    );
    expect(clock(3725)).toBe('1:02:05');
  });

  it('reads the live rate from the last two scrapes, inferences counting the batch', () => {
    const scrape = (t_ms: number, n: number) => ({
      t_ms,
      samples: [
        { name: 'nv_inference_request_success', labels: { model: 'm' }, value: n },
        { name: 'nv_inference_queue_duration_us', labels: { model: 'm' }, value: n * 50 },
      ],
    });
    expect(liveRate([scrape(0, 0), scrape(500, 10), scrape(1000, 60)], 'm', 4)).toEqual({
      infer_s: 400,
      queue_ms: 0.05,
    });
    expect(liveRate([scrape(0, 0)], 'm', 1)).toBeUndefined();
  });

  it("reads the measuring level's rate over its window so far, the final figure's rule, not the last interval", () => {
    const scrape = (t_ms: number, n: number) => ({
      t_ms,
      samples: [{ name: 'nv_inference_request_success', labels: { model: 'm' }, value: n }],
    });
    // The window opens at 1,000 ms: 3,000 requests/s in it; the gap before it served almost nothing, and the
    // last interval alone dipped (a busy generator), as a 500 ms rate may.
    const scrapes = [
      scrape(0, 0),
      scrape(500, 10),
      scrape(1000, 20),
      scrape(2000, 3020),
      scrape(3000, 6020),
      scrape(3500, 6520),
    ];
    expect(liveRate(scrapes, 'm', 1)?.infer_s).toBe(1000);
    expect(windowRate(scrapes, 1000, 'm', 1)?.infer_s).toBe(2600);
    expect(windowRate(scrapes, 900, 'm', 1)?.infer_s).toBe(2600);
    // Until two scrapes fall inside the window there is no window figure.
    expect(windowRate(scrapes, 3200, 'm', 1)).toBeUndefined();
    const point = progressAt(plan.levels, plan.total_s, 3);
    expect(formatProgress(point, { infer_s: 2600 }, 'over the window so far')).toBe(
      'level 1 of 3 (c1, measuring): 0:03 elapsed, 0:20 remaining; server over the window so far: 2,600 infer/s',
    );
  });
});
