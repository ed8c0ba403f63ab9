import { describe, expect, it } from 'vitest';
import { subWindowKey } from '../../lib/load/names.ts';
import { subWindowIndex, windowTags } from '../../lib/load/windows.ts';

describe('sub-windows', () => {
  it('splits a window into thirds by request start time', () => {
    expect(subWindowIndex(0, 6)).toBe(0);
    expect(subWindowIndex(1999, 6)).toBe(0);
    expect(subWindowIndex(2000, 6)).toBe(1);
    expect(subWindowIndex(5999, 6)).toBe(2);
  });

  it('puts early and late requests in the first and last sub-window', () => {
    expect(subWindowIndex(-5, 6)).toBe(0);
    expect(subWindowIndex(9000, 6)).toBe(2);
    expect(subWindowIndex(100, 6, 1)).toBe(0);
  });

  it('builds request tags and the matching summary key', () => {
    expect(windowTags(4500, 6)).toEqual({ window: '2' });
    expect(windowTags(4500, 6, 4)).toEqual({ window: '3' });
    expect(subWindowKey('http_req_duration', 'c8', 1)).toBe('http_req_duration{scenario:c8,window:1}');
  });
});
