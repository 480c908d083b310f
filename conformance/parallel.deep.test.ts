/**
 * Deep: a check spread over jobs stops every job when one breaks — a worker thread that throws at its
 * first run while this thread has 20,000 runs to do. This thread runs until the worker has loaded the kit
 * and failed: seconds of runs, more on a loaded machine. The seeds, shares and merging of jobs are
 * parallel.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { CheckPool } from './parallel.ts';

describe('spreading a check over jobs', () => {
  it('stops every job when one job breaks, and rejects with its error', async () => {
    // Job 1 (a worker thread) throws at its first run; job 0 (this thread) has 20,000 runs to do and
    // must stop at the shared flag instead of running them all before the error surfaces.
    const pool = new CheckPool(2);
    try {
      let ticks = 0;
      const good = { variant: 'off', runs: 20_000, seed: 1, strategy: 'mixed', shrink: false } as const;
      await expect(pool.run([good, { ...good, variant: 'nope' as never }], () => (ticks += 1))).rejects.toThrow(/variant must be one of/);
      expect(ticks).toBeLessThan(20_000);
    } finally {
      await pool.close();
    }
  });
});
