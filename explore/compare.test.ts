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
