/** Which sends the scenario cancels (an exact, evenly spread share) and how a cancelled one is told apart. */
import { describe, expect, it } from 'vitest';
import { cancelPicker, cancelTimeout, wasCancelled } from '../../scenarios/kit/genai/cancel.ts';
import { newRecord, failRecord } from '../../lib/genai/record.ts';

const picks = (share: number, n: number) => {
  const p = cancelPicker(share);
  return Array.from({ length: n }, () => p.next());
};

describe('request cancellation', () => {
  it('cancels an exact share of sends, spread evenly; 0 cancels none, 100% all', () => {
    expect(picks(0.25, 8)).toEqual([false, false, false, true, false, false, false, true]);
    expect(picks(0.5, 4)).toEqual([false, true, false, true]);
    for (const share of [0.1, 0.33, 0.7])
      expect(picks(share, 1000).filter(Boolean)).toHaveLength(Math.floor(1000 * share));
    expect(picks(0, 50).some(Boolean)).toBe(false);
    expect(picks(1, 50).every(Boolean)).toBe(true);
  });

  it('the stream timeout is the delay in whole ms, at least 1 (0 would mean none)', () => {
    expect([cancelTimeout(0), cancelTimeout(20), cancelTimeout(2.6)]).toEqual(['1ms', '20ms', '3ms']);
  });

  it('a cancelled request failed at its deadline; one that finished or failed otherwise is not', () => {
    const at = (error?: string) => {
      const r = newRecord(0, 10);
      if (error) failRecord(r, error, 20);
      return wasCancelled(r);
    };
    expect(at('context deadline exceeded')).toBe(true);
    expect(at('4 DEADLINE_EXCEEDED: Deadline exceeded after 0.021s')).toBe(true);
    expect(at('HTTP 500 from http://x/v1/chat/completions')).toBe(false);
    expect(at()).toBe(false);
  });
});
