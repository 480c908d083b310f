import { describe, expect, it } from 'vitest';
import type { VariantOutcome } from './check-variant.ts';
import { mergeOutcomes, seedFor, shares } from './parallel.ts';

describe('spreading a check over jobs and shards', () => {
  it('keeps the seed for the one job of the whole budget, and gives every other (shard, job) its own', () => {
    expect(seedFor(1234, 0, 0)).toBe(1234);
    const seeds = new Set<number>();
    for (let shard = 0; shard < 16; shard++) for (let job = 0; job < 16; job++) seeds.add(seedFor(1234, shard, job));
    expect(seeds.size).toBe(256);
    for (const s of seeds) expect(s >= 0 && s < 2 ** 31 && Number.isInteger(s)).toBe(true);
    expect(seedFor(1234, 3, 1)).toBe(seedFor(1234, 3, 1));
    expect(seedFor(1235, 3, 1)).not.toBe(seedFor(1234, 3, 1));
  });

  it('splits runs into shares that add up, never empty', () => {
    expect(shares(10, 3)).toEqual([4, 3, 3]);
    expect(shares(2, 4)).toEqual([1, 1]);
    expect(shares(500, 2).reduce((a, b) => a + b, 0)).toBe(500);
  });

  it('adds up what the jobs saw and keeps the failing job as the verdict', () => {
    const ok = (runs: number, w: number): VariantOutcome => ({ variant: 'off', runs, failed: false, witnessed: { a: w }, reached: { x: 1 }, faults: { injected: { transient: 1 }, aborts: 1, restarts: 1, leaked: 0, collected: 0 } });
    const failed: VariantOutcome = { ...ok(3, 1), failed: true, runsToFailure: 3 };
    const m = mergeOutcomes([ok(5, 2), failed, ok(4, 0)]);
    expect(m.runs).toBe(12);
    expect(m.failed).toBe(true);
    expect(m.runsToFailure).toBe(3);
    expect(m.witnessed).toEqual({ a: 3 });
    expect(m.reached).toEqual({ x: 3 });
    expect(m.faults).toEqual({ injected: { transient: 3 }, aborts: 3, restarts: 3, leaked: 0, collected: 0 });
    expect(mergeOutcomes([ok(5, 2)]).failed).toBe(false);
  });
});
