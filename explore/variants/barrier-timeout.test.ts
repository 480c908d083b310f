/** `barrier-timeout` in compare: its two ends (T = inf is the barrier, T = 0 is close to best-effort). */
import { describe, expect, it } from 'vitest';
import { runComparison } from '../compare.ts';
import { DEFAULT_STRAGGLER_SLOWDOWN } from '../timing.ts';
import type { Figures, Setup } from '../types.ts';

// Stragglers: the wait the deadline bounds shows.
const setup: Setup = {
  replicas: 1,
  processes: 1,
  workers: 4,
  intervals: 12,
  rows: 200,
  rowBytes: 200,
  threshold: 1 << 20,
  seed: 11,
  stragglers: { probability: 0.2, slowdown: DEFAULT_STRAGGLER_SLOWDOWN },
};
const withT = (timeout: number): Setup => ({ ...setup, variantOptions: { 'barrier-timeout': { timeout } } });
const row = (rows: readonly Figures[], name: string): Figures => rows.find((r) => r.variant === name) as Figures;
const withoutName = (f: Figures): Omit<Figures, 'variant'> => {
  const { variant: _name, ...rest } = f;
  return rest;
};

describe('barrier-timeout in compare', () => {
  it('with T = inf has every figure of the barrier', async () => {
    const c = await runComparison('steady', withT(Number.POSITIVE_INFINITY), ['barrier', 'barrier-timeout']);
    expect(withoutName(row(c.rows, 'barrier-timeout'))).toEqual(withoutName(row(c.rows, 'barrier')));
  });

  it('with T = 0 is close to best-effort: as many parts per append or fewer, and far below the barrier in p99', async () => {
    const c = await runComparison('steady', withT(0), ['best-effort', 'barrier', 'barrier-timeout']);
    const t0 = row(c.rows, 'barrier-timeout');
    const be = row(c.rows, 'best-effort');
    const barrier = row(c.rows, 'barrier');
    expect(t0.lost + t0.duplicated + t0.leakedBlobs).toBe(0);
    expect(t0.modelAgrees).toBe(true);
    // The barrier's p99 pays for the stragglers; T = 0's is within a tenth of that gap of best-effort's.
    expect(barrier.latencyP99Ms - be.latencyP99Ms).toBeGreaterThan(0);
    expect(Math.abs(t0.latencyP99Ms - be.latencyP99Ms)).toBeLessThanOrEqual((barrier.latencyP99Ms - be.latencyP99Ms) / 10);
    expect(t0.partsPerAppend).toBeGreaterThanOrEqual(barrier.partsPerAppend);
    expect(Math.abs(t0.partsPerAppend - be.partsPerAppend)).toBeLessThanOrEqual(0.5);
  });
});
