/**
 * The re-search for a smaller counterexample (research.ts): shorter, the same check, deterministic.
 * Deep: each case searches thousands of runs on small shapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runOnce, type RunReport } from './harness.ts';
import { divergenceOf } from './minimize.ts';
import { decodeToken } from './token.ts';
import { DIVERGES_SOON_ENOUGH, researchSmaller, SHORT_ENOUGH, withTunables } from './research.ts';
import { scheduleArb } from './schedule.ts';
import { DEFAULT_BOUNDS, workloadArb } from './workload.ts';

const BUG = 'drop-without-finish';

/** The first long failing run of the bug on the check's full-size shapes (seeded). */
async function longFailure(): Promise<RunReport> {
  const arb = fc.tuple(workloadArb('best-effort', { ...DEFAULT_BOUNDS, maxIntervals: 4 }), scheduleArb(2, 16, 'random'));
  for (const [w, s] of fc.sample(arb, { seed: 7, numRuns: 200 })) {
    const r = await runOnce(w, s, BUG);
    if (r.failures.length > 0 && r.trace.length > 3 * SHORT_ENOUGH) return r;
  }
  throw new Error('no long failing run in 200 draws');
}

describe('researchSmaller', () => {
  it('replaces a long counterexample by a short one failing the same check, the same each time', async () => {
    const long = await longFailure();
    const task = { variant: 'best-effort', seed: 3, bug: BUG, strategy: 'mixed', fold: false } as const;
    const a = await researchSmaller(long, task);
    expect(a.tried).toBeGreaterThan(0);
    expect(a.report.trace.length).toBeLessThanOrEqual(SHORT_ENOUGH);
    expect(a.report.failures.map((f) => f.check)).toContain(long.failures[0]?.check);
    // An ordinary run: its workload and schedule fail again, as the token replays them.
    const again = await runOnce(a.report.workload, a.report.schedule, BUG);
    expect(again.trace.length).toBe(a.report.trace.length);
    expect(again.failures.map((f) => f.check)).toEqual(a.report.failures.map((f) => f.check));
    const b = await researchSmaller(long, task);
    expect(b.report.workload).toEqual(a.report.workload);
    expect(b.report.schedule).toEqual(a.report.schedule);
  });

  it('leaves a short counterexample as it is: few events, diverging soon', async () => {
    const long = await longFailure();
    const short = { ...long, trace: long.trace.slice(0, DIVERGES_SOON_ENOUGH) };
    expect(await researchSmaller(short, { variant: 'best-effort', seed: 3, bug: BUG, strategy: 'mixed', fold: false })).toEqual({ report: short, tried: 0 });
  });

  // Real gallery counterexamples, as the greedy passes of minimize.ts left them.
  // sbkit check --bug late-handle-joins-finished-builder --seed 6: two sinks, where one suffices.
  const LATE = 'sb1.eyJ2IjoiYmVzdC1lZmZvcnQiLCJzIjpbMSwxLDIsMSw4MTkyLDEzNDIxNzcyOCwxMDQ4NTc2LDI1Nl0sImsiOls4MTkyXSwiZyI6IjAiLCJsIjpbIjAyIl0sInAiOiJsb2Nrc3RlcCIsInNsIjpbWyIwMCJdXSwiYyI6W10sInoiOltbMCwxXV0sImIiOiJsYXRlLWhhbmRsZS1qb2lucy1maW5pc2hlZC1idWlsZGVyIn0';
  // sbkit check --bug empty-finish-hands-nothing --seed 2: 15 events, diverging at the 14th.
  const EMPTY = 'sb1.eyJ2IjoiYmVzdC1lZmZvcnQiLCJzIjpbMSwxLDIsMSw4MTkyLDEzNDIxNzcyOCwxMDQ4NTc2LDI1Nl0sImsiOls4MTkyXSwiZyI6IjAxIiwibCI6WyIyMCJdLCJwIjoibG9ja3N0ZXAiLCJuIjoiZmluaXNoIiwiYyI6W10sInoiOltbMCwwXV0sImIiOiJlbXB0eS1maW5pc2gtaGFuZHMtbm90aGluZyJ9';

  it('finds a long counterexample again on the one-replica shape first', async () => {
    const c = decodeToken(LATE);
    const long = await runOnce(c.workload, c.schedule, c.bug);
    expect(long.trace.length).toBeGreaterThan(SHORT_ENOUGH);
    const a = await researchSmaller(long, { variant: 'best-effort', seed: 6, bug: c.bug, strategy: 'mixed', fold: false });
    expect(a.report.trace.length).toBeLessThanOrEqual(15);
    expect(divergenceOf(a.report)).toBeLessThanOrEqual(DIVERGES_SOON_ENOUGH);
    expect(a.report.workload.replicas).toBe(1);
    expect(a.report.failures.map((f) => f.check)).toContain(long.failures[0]?.check);
  });

  it('searches again for a counterexample short in events that diverges late', async () => {
    const c = decodeToken(EMPTY);
    const late = await runOnce(c.workload, c.schedule, c.bug);
    expect(late.trace.length).toBeLessThanOrEqual(SHORT_ENOUGH);
    expect(divergenceOf(late)).toBeGreaterThan(DIVERGES_SOON_ENOUGH);
    const a = await researchSmaller(late, { variant: 'best-effort', seed: 2, bug: c.bug, strategy: 'mixed', fold: false });
    expect(a.tried).toBeGreaterThan(0);
    expect(a.report.trace.length).toBeLessThanOrEqual(late.trace.length);
    expect(divergenceOf(a.report)).toBeLessThanOrEqual(DIVERGES_SOON_ENOUGH);
  });

  // sbkit check --bug own-batch-ignores-max-runs --seed 15, as minimization left it: 30 events, two
  // replicas, three intervals under free pacing, a run limit of 2; only the cost check sees the batch of
  // three runs (the replica that built it was superseded and never appended it).
  const RUNS = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzIsMSwxLDMsODE5MiwxLDEwNDg1NzYsMjU2XSwiayI6WzgxOTJdLCJnIjoiMCIsImwiOlsiMCIsIjAiLCIwIl0sInAiOiJmcmVlIiwibXIiOjIsImMiOlsyNSw2Miw1OCw1MywzMSw1NSwxNiw2Myw1Nyw1Niw0Niw1MiwxOSw2MCw1NiwzMSwxMCwzMCw2MSw2Myw2MywzMCwyNF0sInoiOltdLCJiIjoib3duLWJhdGNoLWlnbm9yZXMtbWF4LXJ1bnMifQ';

  it('draws the smallest shape again with the rare settings of the counterexample; a refused trace stands in for a cost failure', async () => {
    const c = decodeToken(RUNS);
    const long = await runOnce(c.workload, c.schedule, c.bug);
    expect(long.trace.length).toBe(30);
    expect(long.failures.map((f) => f.kind)).toEqual(['cost']);
    const a = await researchSmaller(long, { variant: 'off', seed: 15, bug: c.bug, strategy: 'mixed', fold: false });
    expect(a.report.trace.length).toBeLessThanOrEqual(8);
    expect(a.report.workload.replicas).toBe(1);
    expect(a.report.workload.maxRuns).toBe(2);
    expect(a.report.failures.map((f) => f.kind)).toContain('refinement');
    const again = await runOnce(a.report.workload, a.report.schedule, c.bug);
    expect(again.failures.map((f) => f.check)).toEqual(a.report.failures.map((f) => f.check));
  });

  it('keeps the drawn shape and loads and every other setting of the counterexample', () => {
    const c = decodeToken(RUNS);
    const drawn = { ...c.workload, replicas: 1, intervals: 1, knob: [4096], threshold: 4096, loads: [['cut-edge' as const]], maxRuns: undefined, pacing: 'lockstep' as const, blobTargetSize: 1000 };
    const w = withTunables(drawn, { ...c.workload, sinkLoads: [[['tiny']]] });
    expect(w).toEqual({ ...c.workload, replicas: 1, intervals: 1, knob: [4096], threshold: 4096, loads: [['cut-edge']] });
  });
});
