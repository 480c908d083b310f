/**
 * Rare combinations on purpose (rare.ts): each shape, with its late worker, takes its path in a good
 * share of runs, the shaped runs pass every check, and unshaped draws stay as drawn.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runOnce } from './harness.ts';
import { reachOf } from './multi-sink.ts';
import { RARE_COMBINATIONS, RARE_PATH, STEERED_COMBINATIONS, SWEPT_COMBINATIONS, rareArb, shapedFor } from './rare.ts';
import { DEFAULT_FAULT_RATE, FAULT_CODES } from './faults.ts';
import { scheduleArb } from './schedule.ts';
import { DEFAULT_BOUNDS, workloadArb } from './workload.ts';


describe('rare combinations, drawn on purpose', () => {
  it.each([...RARE_COMBINATIONS, ...STEERED_COMBINATIONS, ...SWEPT_COMBINATIONS].map((r) => [r]))('%s: its path in a good share of 40 shaped runs, every check holding', async (rare) => {
    const draws = fc.sample(fc.tuple(workloadArb('best-effort', DEFAULT_BOUNDS), scheduleArb(DEFAULT_BOUNDS.maxReplicas, 16, 'mixed')), { numRuns: 40, seed: 5 });
    let reached = 0;
    for (const [w, s] of draws) {
      const { workload, schedule } = shapedFor(rare, w, s);
      const report = await runOnce(workload, schedule);
      expect(report.failures, JSON.stringify(report.failures)).toEqual([]);
      if (reachOf(report).has(RARE_PATH[rare])) reached += 1;
    }
    expect(reached).toBeGreaterThanOrEqual(8);
  });

  it('lost-race-delete-fails, in the fault world: the losing append\'s blob deletes fail and are retried, every check holding; a swallowed delete error is caught', async () => {
    const draws = fc.sample(fc.tuple(workloadArb('best-effort', DEFAULT_BOUNDS), scheduleArb(DEFAULT_BOUNDS.maxReplicas, 16, 'mixed', DEFAULT_FAULT_RATE)), { numRuns: 20, seed: 5 });
    let failedDeletes = 0;
    let caught = 0;
    for (const [w, s] of draws) {
      const { workload, schedule } = shapedFor('lost-race-delete-fails', w, s);
      expect(schedule.faults?.aborts).toEqual([]);
      expect(schedule.faults?.deletes?.every((c) => FAULT_CODES[c] === 'transient')).toBe(true);
      const report = await runOnce(workload, schedule);
      expect(report.failures, JSON.stringify(report.failures)).toEqual([]);
      if (report.trace.some((e) => e.kind === 'fault' && e.op === 'blob.delete') && reachOf(report).has('mismatch-deleted')) failedDeletes += 1;
      if ((await runOnce(workload, schedule, 'mismatch-delete-error-swallowed')).failures.length > 0) caught += 1;
    }
    expect(failedDeletes).toBeGreaterThanOrEqual(10);
    expect(caught).toBeGreaterThanOrEqual(10);
  });

  it('leaves a run unshaped when none is drawn, and never shapes where nothing is shared', () => {
    const [w, s] = fc.sample(fc.tuple(workloadArb('barrier', DEFAULT_BOUNDS), scheduleArb(2, 16)), { numRuns: 1, seed: 3 })[0] ?? [];
    if (w === undefined || s === undefined) throw new Error('no sample');
    expect(shapedFor(null, w, s)).toEqual({ workload: w, schedule: s });
    expect(fc.sample(rareArb('off'), { numRuns: 50, seed: 1 }).every((r) => r === null)).toBe(true);
    const drawn = fc.sample(rareArb('best-effort'), { numRuns: 600, seed: 1 });
    for (const r of RARE_COMBINATIONS) expect(drawn.filter((x) => x === r).length).toBeGreaterThan(25);
  });
});
