/**
 * The fault world in the conformance harness: the fault schedule, its plan, and the blob-level properties
 * failing on broken implementations (a property that never fails is suspect).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemBlob } from '../impl/persist/blob.ts';
import { runSink } from '../impl/run.ts';
import { ChoiceScheduler } from './choice-scheduler.ts';
import { FAULT_CODES, SchedulePlan, describeFaults, faultScheduleArb, faultWeights, parseFaultRate } from './faults.ts';
import { judge, modelConfigOf, runConfigOf, runOnce } from './harness.ts';
import { workloadOf } from './test-support/workload.ts';

const workload = workloadOf('best-effort', [
    ['medium', 'tiny'],
    ['medium', 'medium'],
    ['tiny', 'medium'],
  ], { replicas: 2 });

describe('the fault schedule', () => {
  it('weights the outcomes by the rate, ok first (what shrinking goes to)', () => {
    expect(faultWeights(0.1)).toEqual({ ok: 869, transient: 100, 'indeterminate-applied': 13, 'indeterminate-lost': 13, permanent: 5 });
    expect(faultWeights(0)).toEqual({ ok: 1000, transient: 0, 'indeterminate-applied': 0, 'indeterminate-lost': 0, permanent: 0 });
    expect(FAULT_CODES[0]).toBe('ok');
    for (const s of fc.sample(faultScheduleArb(0.1, 2), { seed: 3, numRuns: 50 })) {
      expect(s.aborts.every((a) => a.replica < 2)).toBe(true);
      expect(s.storage.every((c) => c >= 0 && c < FAULT_CODES.length)).toBe(true);
    }
  });

  it('injects by call order until the heal step, and never an indeterminate read', () => {
    let step = 0;
    const plan = new SchedulePlan({ storage: [1, 2, 3, 4, 2], aborts: [], heal: 10 }, () => step);
    expect(['blob.set', 'consensus.cas', 'blob.delete', 'blob.get', 'consensus.head'].map((op) => plan.decide(op as never))).toEqual([
      'transient',
      'indeterminate-applied',
      'indeterminate-lost',
      'permanent',
      'transient',
    ]);
    expect(plan.injected).toEqual({ transient: 2, 'indeterminate-applied': 1, 'indeterminate-lost': 1, permanent: 1 });
    step = 10;
    expect(new SchedulePlan({ storage: [1], aborts: [], heal: 10 }, () => step).decide('blob.set')).toBe('ok');
  });

  it('overrides the first deletes and compare-and-sets by their own lists, counting each kind apart', () => {
    const plan = new SchedulePlan({ storage: [1, 1, 1, 1, 1, 1], aborts: [], heal: 10, deletes: [0, 4], cas: [2] }, () => 0);
    // delete #0 ok (not the listed transient), cas #0 indeterminate-applied, set from the list,
    // delete #1 permanent, delete #2 past its list: the call's own code (transient)
    expect(['blob.delete', 'consensus.cas', 'blob.set', 'blob.delete', 'blob.delete'].map((op) => plan.decide(op as never))).toEqual([
      'ok',
      'indeterminate-applied',
      'transient',
      'permanent',
      'transient',
    ]);
    expect(describeFaults({ storage: [0, 1], aborts: [], heal: 5, cas: [2], deletes: [0, 1] })).toBe(
      'faults until step 5: storage calls [#1 transient]; first compare-and-sets (over the storage codes of those calls) [indeterminate-applied]; ' +
        'first deletes (over the storage codes of those calls) [ok, transient]; aborts []',
    );
  });

  it('draws delete overrides in about half the schedules, each of the hot rates', () => {
    const drawn = fc.sample(faultScheduleArb(0.1, 2), { seed: 5, numRuns: 600 });
    const withDeletes = drawn.filter((s) => s.deletes !== undefined);
    expect(withDeletes.length).toBeGreaterThan(240);
    expect(withDeletes.length).toBeLessThan(360);
    const codes = withDeletes.flatMap((s) => s.deletes ?? []);
    expect(codes.filter((c) => c !== 0).length / codes.length).toBeGreaterThan(0.15);
  });

  it('describes itself and refuses a rate outside [0, 1] or NaN', () => {
    expect(describeFaults({ storage: [0, 1, 0, 2], aborts: [{ step: 4, replica: 1 }], heal: 9 })).toBe(
      'faults until step 9: storage calls [#1 transient, #3 indeterminate-applied]; aborts [r1 at step 4]',
    );
    expect(() => parseFaultRate(Number.NaN)).toThrow(/--faults: expected a rate in \[0, 1\], got NaN/);
    expect(() => parseFaultRate(1.5)).toThrow(/--faults/);
    expect(parseFaultRate(0)).toBe(0);
  });

  it('a run with faults passes every check on the clean implementation, and replays exactly', async () => {
    const schedule = { choices: [], starve: [], faults: { storage: [0, 1, 0, 0, 2, 0, 1, 0, 4, 0, 3], aborts: [{ step: 30, replica: 1 }], heal: 400 } };
    const a = await runOnce(workload, schedule);
    expect(a.failures).toEqual([]);
    expect(a.trace.some((e) => e.kind === 'abort')).toBe(true);
    expect(a.trace.some((e) => e.kind === 'restart')).toBe(true);
    // Every transient fault the plan injected reached the trace as a survived fault.
    const transient = a.trace.filter((e) => e.kind === 'fault' && e.fault === 'transient').length;
    expect(transient).toBeGreaterThan(0);
    expect(a.faults.injected['transient']).toBe(transient);
    const b = await runOnce(workload, schedule);
    expect(b.trace).toEqual(a.trace);
  });
});

/** A run with an abort on a blob store whose deletes change nothing (a broken store or cleanup). */
async function brokenDeletes(): Promise<ReturnType<typeof judge>> {
  class DeafDeletes extends MemBlob {
    override async delete(): Promise<boolean> {
      return true; // reports success, deletes nothing
    }
  }
  const scheduler = new ChoiceScheduler([], { aborts: [{ step: 25, replica: 1 }] });
  // The harness's own configuration of the workload, on the broken store, with cleanup and no faults.
  const { config, trace, updates } = runConfigOf(workload, scheduler, undefined, { decide: () => 'ok' });
  const run = runSink({ ...config, blob: new DeafDeletes() });
  const outcome = await scheduler.drive(run);
  return judge(workload, trace, outcome, modelConfigOf(workload, updates, true));
}

describe('the blob-level properties fail on broken implementations', () => {
  it('leaks-collected: cleanup that deletes nothing leaves the aborted incarnation’s blobs', async () => {
    const r = await brokenDeletes();
    expect(r.trace.some((e) => e.kind === 'abort')).toBe(true);
    expect(r.failures.map((f) => f.check)).toEqual(expect.arrayContaining(['leaks-collected', 'no-leaked-blobs']));
    expect(r.failures.find((f) => f.check === 'leaks-collected')?.why).toMatch(/still there after the final cleanup/);
  });
});
