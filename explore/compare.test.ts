import { describe, expect, it } from 'vitest';
import { newRunMemo, runComparison, runSweeps } from './compare.ts';
import type { Setup } from './types.ts';

const setup: Setup = { replicas: 1, processes: 1, workers: 2, intervals: 2, rows: 40, rowBytes: 100, threshold: 1 << 20, seed: 5 };

describe('runSweeps', () => {
  it('runs a point two sweeps share once, with the figures a fresh run gives', async () => {
    const [thresholds, workers] = await runSweeps('steady', setup, ['off', 'barrier'], [
      { param: 'threshold', values: [0, setup.threshold] },
      { param: 'workers', values: [1, setup.workers] },
    ]);
    const shared = thresholds?.points[1]?.comparison;
    expect(shared?.setup).toEqual(setup);
    expect(workers?.points[1]?.comparison).toBe(shared);
    expect(thresholds?.points[0]?.comparison.setup.threshold).toBe(0);
    expect(workers?.points[0]?.comparison.setup.workers).toBe(1);
    expect(shared).toEqual(await runComparison('steady', setup, ['off', 'barrier']));
  });

  it('generates a workload once per shape', async () => {
    const memo = newRunMemo();
    await runComparison('steady', setup, ['off'], undefined, memo);
    await runComparison('steady', { ...setup, workers: 3, threshold: 0 }, ['off'], undefined, memo);
    expect(memo.workloads.size).toBe(1);
    expect(memo.comparisons.size).toBe(2);
    await runComparison('steady', { ...setup, rows: 41 }, ['off'], undefined, memo);
    expect(memo.workloads.size).toBe(2);
  });
});

describe('a sweep of one variant\'s option', () => {
  it("runs the other variants once: a case depends on its own variant's options only", async () => {
    const memo = newRunMemo();
    const first = await runComparison('steady', setup, ['off'], undefined, memo);
    const again = await runComparison('steady', { ...setup, variantOptions: { probe: { timeout: 5 } } }, ['off'], undefined, memo);
    expect(memo.comparisons.size).toBe(2);
    expect(memo.cases.size).toBe(1);
    expect(again.rows).toEqual(first.rows);
  });
});

describe('the small-writes scenario', () => {
  const small: Setup = { replicas: 1, processes: 1, workers: 8, intervals: 6, rows: 1000, rowBytes: 20, threshold: 1 << 20, seed: 1 };

  it('off writes inline parts and no PUT; the barrier one hollow part, one PUT per append, and pays its latency', async () => {
    const c = await runComparison('small-writes', small, ['off', 'barrier']);
    const [off, barrier] = c.rows;
    expect(off).toMatchObject({ blobPuts: 0, inlineParts: 48, hollowParts: 0, shardParts: 48, partsPerAppend: 8, modelAgrees: true });
    expect(barrier).toMatchObject({ blobPuts: 6, inlineParts: 0, hollowParts: 6, shardParts: 6, partsPerAppend: 1, modelAgrees: true });
    // one blob PUT (8 ms + bytes) more per interval
    const extra = (barrier?.latencyP50Ms ?? 0) - (off?.latencyP50Ms ?? 0);
    expect(extra).toBeGreaterThan(7);
    expect(extra).toBeLessThan(12);
  });
});
