import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../persist/latency.ts';

describe('LatencyRecorder', () => {
  it('has no summary before a sample; nearest-rank p50 / p99 / max after', () => {
    const r = new LatencyRecorder();
    expect(r.summary()).toBeUndefined();
    for (let ms = 100; ms >= 1; ms--) r.add(ms);
    expect(r.summary()).toEqual({ count: 100, p50: 50, p99: 99, max: 100 });
  });

  it('keeps the most recent `capacity` samples and counts them all', () => {
    const r = new LatencyRecorder(3);
    for (const ms of [100, 100, 100, 1, 2, 3]) r.add(ms);
    expect(r.count).toBe(6);
    expect(r.summary()).toEqual({ count: 6, p50: 2, p99: 3, max: 3 });
    r.add(4);
    expect(r.summary()).toMatchObject({ p50: 3, max: 4 });
  });
});
