/**
 * The two halves compact runs under persist_batch_max_runs independently (impl/persist/runs.ts over a
 * merge tree of runs, model/parts.ts over level counts): they must agree on the runs and on the part
 * rewrites for every part count and limit.
 */
import { describe, expect, it } from 'vitest';
import { maxRunsLimit, runsOf as implRuns } from '../impl/persist/runs.ts';
import { compaction } from '../model/parts.ts';

describe('runs: model and implementation agree', () => {
  it('for 0 … 200 parts and limits 0 … 9', () => {
    for (let m = 0; m < 10; m++) {
      for (let parts = 0; parts <= 200; parts++) {
        expect(compaction(parts, m), `parts ${parts}, max runs ${m}`).toEqual(implRuns(parts, maxRunsLimit(m)));
      }
    }
  });
});
