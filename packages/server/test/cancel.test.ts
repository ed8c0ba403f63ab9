import { describe, expect, it } from 'vitest';
import { Cancellation } from '../src/infer/cancel.ts';

describe('Cancellation', () => {
  it('runs each listener once on cancel, in order, and not after removal', () => {
    const c = new Cancellation();
    const seen: string[] = [];
    const a = () => seen.push('a');
    const b = () => seen.push('b');
    const removed = () => seen.push('removed');
    c.addEventListener('abort', a);
    c.addEventListener('abort', removed);
    c.addEventListener('abort', b);
    c.removeEventListener('abort', removed);
    expect(c.aborted).toBe(false);
    c.cancel();
    c.cancel();
    expect(c.aborted).toBe(true);
    expect(seen).toEqual(['a', 'b']);
  });

  it('does not call a listener added after the cancel (callers check aborted first, as with AbortSignal)', () => {
    const c = new Cancellation();
    c.cancel();
    let called = false;
    c.addEventListener('abort', () => {
      called = true;
    });
    expect(called).toBe(false);
    expect(c.aborted).toBe(true);
  });
});
