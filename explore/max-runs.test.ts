import { describe, expect, it } from 'vitest';
import { maxRunsFinding, renderMaxRunsFinding } from './max-runs.ts';

describe('the persist_batch_max_runs finding', () => {
  it('own batches compact to the configured runs; a shared batch keeps one run per part; at the default both agree', async () => {
    const workers = 4;
    const f = await maxRunsFinding({ maxRuns: [1, 2, 3], workers, intervals: 2, rows: 800, rowBytes: 500, blobTargetSize: 8 * 1024 });
    expect(f.rows).toHaveLength(9);
    for (const r of f.rows) {
      expect(r.lost).toBe(0);
      expect(r.appends).toBe(2);
      if (r.maxRuns === 1 || r.case === 'shared (unlimited threshold)') {
        // None: every part a run of its own, nothing compacted
        expect(r.runsPerAppend).toBe(r.partsPerAppend);
        expect(r.compactionRewrites).toBe(0);
      } else {
        // at most max_runs runs per own batch (one batch per worker), paid for with rewrites
        expect(r.runsPerAppend).toBeLessThanOrEqual(r.maxRuns * workers);
        expect(r.runsPerAppend).toBeLessThan(r.partsPerAppend);
        expect(r.compactionRewrites).toBeGreaterThan(0);
      }
    }
    const text = renderMaxRunsFinding(f);
    expect(text.split('\n')).toHaveLength(3 + 9);
    expect(text).toMatch(/^ +2 {2}shared \(unlimited threshold\) +\d+\.\d\d +\d+\.\d\d +0$/m);
  });
});
