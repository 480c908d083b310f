/** Each `always`/`eventually` property fails on a hand-built bad view; each `sometimes` is witnessed. */
import { describe, expect, it } from 'vitest';
import type { BatchSummary, TraceEvent } from '../vocab/index.ts';
import { config, Driver, ev, tiny, u } from '../model/test-support/driver.ts';
import { viewOf } from '../model/view.ts';
import {
  atMostOneReceiver,
  barrierEveryFinishReturns,
  barrierOneSharedBatchPerGroup,
  barrierOneSharedBatchPerProcess,
  convergesAfterFaults,
  fallbackAndSharedInOneAppend,
  indeterminateCommit,
  leaksCollected,
  leaksOnlyFromAborts,
  noReferencedBlobDeleted,
  nothingDuplicated,
  replicaRestarted,
  intervalSealedWithData,
  noBatchToNobody,
  noLeakedParts,
  noLossNoDuplication,
  properties,
  propertyByName,
  refusedAppend,
  replacementProperties,
  sealedExactlyOnce,
  severalBatchesForOneId,
  uppersOnlyAdvance,
  type Property,
} from './properties.ts';
import { viewFromTrace, type AppendView, type BuilderView, type SystemView } from './view.ts';

/** A good final view: barrier, worker 0 shares (10 bytes < 50), worker 1 falls back (100 bytes). */
function goodView(): SystemView {
  const d = new Driver(tiny('barrier'));
  d.all(ev.frontier(), ev.mint(50));
  d.drain();
  return viewOf(d.cfg, d.state);
}

/**
 * A second good final view, best-effort with two replicas: replica 0 appends two instances of shared
 * batch 0 (each worker finished before the other opened); replica 1 is refused and deletes its 2 batches.
 */
function twoReplicasView(): SystemView {
  const d = new Driver(config({ variant: 'best-effort', replicas: 2 }));
  d.all(ev.frontier(0), ev.mint(1000, 0));
  d.drain();
  return viewOf(d.cfg, d.state);
}

const good = goodView();
const good2 = twoReplicasView();
/** Clean storage facts (what an implementation's audit would report for a good run). */
const storage = { leakedFromAborted: 0, leakedFromLive: 0, leakedAfterCleanup: 0, referencedDeleted: 0, lost: 0, duplicated: 0 };
const withFaults = (faults: Partial<SystemView['faults']>): SystemView => ({ ...good, faults: { ...good.faults, ...faults } });
const firstAppend = good.appends[0] as AppendView;
const withAppend = (change: Partial<AppendView>, view: SystemView = good): SystemView => ({
  ...view,
  appends: [{ ...firstAppend, ...change }],
});
/** good2 with its refused append (replica 1's) changed. */
const withRefused = (change: Partial<AppendView>): SystemView => ({
  ...good2,
  appends: [good2.appends[0] as AppendView, { ...(good2.appends[1] as AppendView), ...change }],
});
const builder: BuilderView = {
  replica: 0,
  incarnation: 0,
  process: 0,
  sharedId: 0,
  instance: 0,
  handles: 1,
  receivers: 1,
  updates: [0],
  deliveredToNobody: false,
};

const sharedBatch = firstAppend.batches[0] as AppendView['batches'][number];

/**
 * `good` after an abort and a restart: incarnation 0 built id 0's instance with [0] and was aborted
 * before its append; incarnation 1 (whose mint starts at id 0 again) appended [0] as id 0's shared
 * batch while its own instance of id 0 received [0, 9]. `incarnation` sets the append's.
 */
function restartedView(incarnation = 1): SystemView {
  const retired = good.builders.map((b) => ({ ...b, incarnation: 0 }));
  const live = good.builders.map((b) => ({ ...b, incarnation: 1, updates: [...b.updates, 9] }));
  return { ...withFaults({ aborts: 1, restarts: 1 }), builders: [...retired, ...live], appends: [{ ...firstAppend, incarnation }] };
}
const toNobody: BuilderView = { ...builder, receivers: 0, deliveredToNobody: true };

/** Bad views, each with the reason the property must give (so it fails for the intended cause). */
const failing: [Property, SystemView, RegExp][] = [
  [noLossNoDuplication, withAppend({ updates: [0] }), /with updates \[0\], desired \[0, 1\]/],
  [noLossNoDuplication, withAppend({ updates: [0, 1, 1] }), /with updates \[0, 1, 1\]/],
  [sealedExactlyOnce, { ...good, shardUppers: [0] }, /shard's upper at 0, not 1/],
  [sealedExactlyOnce, withAppend({ updates: [1] }), /holds \[1\], desired \[0, 1\]/],
  [sealedExactlyOnce, withRefused({ result: { ok: true } }), /holds \[0, 0, 1, 1\]/],
  [atMostOneReceiver, { ...good, builders: [{ ...builder, receivers: 2 }] }, /instance 0.*received 2 times/],
  [atMostOneReceiver, { ...good2, builders: good2.builders.map((b, i) => (i === 1 ? { ...b, receivers: 2 } : b)) }, /instance 1.*received 2 times/],
  [noBatchToNobody, { ...good, builders: [toNobody] }, /closed with updates \[0\] and no receiver/],
  [barrierOneSharedBatchPerProcess, withAppend({ batches: [...firstAppend.batches, sharedBatch] }), /has 2 shared batches/],
  [barrierOneSharedBatchPerProcess, withAppend({ batches: firstAppend.batches.filter((b) => b !== sharedBatch) }), /has 0 shared batches/],
  [barrierOneSharedBatchPerProcess, withAppend({ routes: ['own', 'own'] }), /has 1 shared batches .*no sharing worker/],
  [barrierOneSharedBatchPerGroup, withAppend({ batches: [...firstAppend.batches, sharedBatch] }), /two shared batches from process 0 holding \[0\]/],
  [barrierOneSharedBatchPerGroup, withAppend({ batches: firstAppend.batches.filter((b) => b !== sharedBatch) }), /no shared batch from process 0, whose workers shared/],
  [barrierOneSharedBatchPerGroup, withAppend({ routes: ['own', 'own'] }), /1 shared batches from process 0, with no sharing worker/],
  // the barrier completed while a handle still pushed: its instance received [0, 9], the batch holds [0]
  [barrierOneSharedBatchPerGroup, { ...good, builders: good.builders.map((b) => ({ ...b, updates: [...b.updates, 9] })) }, /holding \[0\]: no builder instance of id 0 received exactly that \(they received \[0, 9\]\)/],
  // a restarted replica's mint numbers from 0 again: incarnation 1's append of id 0 holds [0], which only
  // the aborted incarnation 0's instance of id 0 received (incarnation 1's timer sealed [0, 9])
  [barrierOneSharedBatchPerGroup, restartedView(), /replica 0's append of \[0, 1\) has a shared batch from process 0 holding \[0\]: no builder instance of id 0 received exactly that \(they received \[0, 9\]\)/],
  [noLeakedParts, { ...good, batches: { ...good.batches, written: good.batches.written + 1 } }, /3 batches written, 2 appended/],
  [noLeakedParts, { ...good, builders: [toNobody] }, /closed for nobody/],
  [noLeakedParts, { ...good2, batches: { ...good2.batches, deleted: 0 } }, /4 batches written, 2 appended, 0 deleted/],
  [uppersOnlyAdvance, withAppend({ lower: 1, upper: 1 }), /empty range/],
  [uppersOnlyAdvance, withAppend({ lower: 1, upper: 2 }), /appended at 1 while the shard was at 0/],
  [uppersOnlyAdvance, withAppend({ result: { ok: false, current: 7 } }), /reported upper 7, the shard was at 0/],
  [uppersOnlyAdvance, { ...good, shardUppers: [0, 1, 1] }, /went from 1 to 1/],
  [uppersOnlyAdvance, withRefused({ result: { ok: false, current: 0 } }), /replica 1's refused append reported upper 0/],
  [uppersOnlyAdvance, withRefused({ result: { ok: true } }), /replica 1 appended at 0 while the shard was at 1/],
  [barrierEveryFinishReturns, { ...good, finishes: { begun: 2, ended: 1, abandoned: 0 } }, /1 of 2 finishes never returned/],
  [barrierEveryFinishReturns, { ...good, finishes: { begun: 3, ended: 1, abandoned: 1 } }, /1 of 3 finishes never returned \(besides 1 abandoned/],
  [noLeakedParts, { ...good2, batches: { ...good2.batches, written: 6, abandoned: 1 } }, /6 batches written, 2 appended, 2 deleted, 1 abandoned by aborts/],
  [nothingDuplicated, { ...good2, appends: [good2.appends[0] as AppendView, { ...(good2.appends[0] as AppendView), replica: 1 }] }, /update 0 was appended twice/],
  [nothingDuplicated, { ...good, storage: { ...storage, duplicated: 3 } }, /holds 3 update\(s\) more often than desired/],
  [noReferencedBlobDeleted, { ...good, appends: [firstAppend, { ...firstAppend, result: { ok: false, current: 1 }, deleted: 2 }] }, /deleted the 2 batch\(es\) of \[0, 1\), which the shard took/],
  [noReferencedBlobDeleted, { ...good, storage: { ...storage, referencedDeleted: 1 } }, /references 1 blob\(s\) that were deleted/],
  [convergesAfterFaults, { ...good, shardUppers: [0] }, /pending: the shard's upper is 0, not 1/],
  [convergesAfterFaults, withAppend({ updates: [0] }), /the shard holds \[0\], desired \[0, 1\]/],
  [convergesAfterFaults, { ...good, storage: { ...storage, lost: 2 } }, /finds 2 lost and 0 duplicated/],
  [leaksOnlyFromAborts, { ...good, storage: { ...storage, leakedFromLive: 2 } }, /2 blob\(s\) leaked from writers that were never aborted/],
  [leaksCollected, { ...good, storage: { ...storage, leakedFromAborted: 3, leakedAfterCleanup: 1 } }, /1 leaked blob\(s\) are still there after the final cleanup/],
];

describe('properties', () => {
  it.each([
    ['barrier, one replica', good],
    ['best-effort, two instances of one id, a refused append', good2],
  ] as const)('hold on a good final view: %s', (_, view) => {
    expect(view.final).toBe(true);
    for (const p of properties.filter((x) => x.kind !== 'sometimes')) expect([p.name, p.check(view)]).toEqual([p.name, { ok: true }]);
  });

  it('the good views are not trivial: between them they witness every sometimes property (but the fault world\'s)', () => {
    const faultWorld = new Set([replicaRestarted.name, indeterminateCommit.name]);
    for (const p of properties.filter((x) => x.kind === 'sometimes' && !faultWorld.has(x.name))) expect([p.name, p.check(good2).ok]).toEqual([p.name, true]);
    for (const p of [good, good2]) expect(p.faults).toEqual({ aborts: 0, restarts: 0, indeterminateCommits: 0 });
    expect(good.builders).toHaveLength(1);
    expect(good2.appends.map((a) => [a.result.ok, a.deleted])).toEqual([
      [true, null],
      [false, 2],
    ]);
  });

  it.each(failing.map(([p, v, why], i) => [`${p.name} #${i}`, p, v, why] as const))('%s fails on a bad view', (_, p, view, why) => {
    expect(p.check(view)).toEqual({ ok: false, why: expect.stringMatching(why) });
  });

  it('every always and eventually property has a failing view', () => {
    const covered = new Set(failing.map(([p]) => p.name));
    expect([...properties, ...replacementProperties].filter((p) => p.kind !== 'sometimes' && !covered.has(p.name))).toEqual([]);
  });

  it("a barrier with a deadline's property holds on both good views and allows late workers' groups", () => {
    for (const view of [good, good2]) expect(barrierOneSharedBatchPerGroup.check(view)).toEqual({ ok: true });
    // a second group (instance 1: workers that came after the barrier timed out) handing its own batch
    const late = { ...sharedBatch, worker: 1, updates: [1] };
    const view: SystemView = {
      ...withAppend({ routes: ['shared', 'shared'], batches: [sharedBatch, late] }),
      builders: [builder, { ...builder, instance: 1, updates: [1] }],
    };
    expect(barrierOneSharedBatchPerGroup.check(view)).toEqual({ ok: true });
    expect(barrierOneSharedBatchPerProcess.check(view).ok).toBe(false);
  });

  it("a barrier with a deadline's property matches builders by incarnation: an aborted incarnation's instance vouches for its own appends only", () => {
    // the same builders: incarnation 0's instance holds exactly the batch, incarnation 1's does not
    expect(barrierOneSharedBatchPerGroup.check(restartedView(0))).toEqual({ ok: true });
    expect(barrierOneSharedBatchPerGroup.check(restartedView(1)).ok).toBe(false);
  });

  it("barrier-one-shared-batch-per-group on a trace: a restarted incarnation's batch that only the aborted incarnation's group held", () => {
    // barrier-timeout, both workers share; incarnation 0 groups [0, 1] in id 0's instance and is aborted
    // before its append; incarnation 1 mints id 0 again, its barrier times out after worker 0 (instance 0:
    // [0]) and worker 1 comes late (instance 1: [1])
    const d = new Driver(config({ variant: 'barrier-timeout', updates: [u(0, 0, 0, 10), u(1, 0, 1, 10)], faults: { aborts: 1, indeterminate: 0, cleanup: false } }));
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1), ev.push(0, [0]), ev.push(1, [1]));
    d.take('abort');
    d.take('restart');
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1), ev.open(0), ev.push(0, [0]), ev.finishBegin(0));
    d.take('timeout');
    d.all(ev.finishEnd(0), ev.open(1), ev.push(1, [1]), ev.finishBegin(1), ev.finishEnd(1), ev.hand(0), ev.hand(1), ev.append());
    const view = (trace: readonly TraceEvent[]) => viewFromTrace(d.cfg, trace, { final: true });
    expect(barrierOneSharedBatchPerGroup.check(view(d.trace))).toEqual({ ok: true });
    // the planted bug: the late worker's updates go into the batch the timer completed — worker 0 hands
    // [0, 1], worker 1 nothing
    const hands = d.trace.filter((e): e is Extract<TraceEvent, { kind: 'hand' }> => e.kind === 'hand');
    const [h0, h1] = hands.slice(-2) as [Extract<TraceEvent, { kind: 'hand' }>, Extract<TraceEvent, { kind: 'hand' }>];
    const merged = { ...(h0.batches[0] as BatchSummary), updates: [0, 1], parts: { hollow: 0, inline: 2 }, partBytes: [10, 10] };
    const buggy = d.trace.map((e) => (e === h0 ? { ...h0, batches: [merged] } : e === h1 ? { ...h1, batches: [] } : e));
    expect(barrierOneSharedBatchPerGroup.check(view(buggy))).toEqual({
      ok: false,
      why: "replica 0's append of [0, 1) has a shared batch from process 0 holding [0, 1]: no builder instance of id 0 received exactly that (they received [0], [1])",
    });
    // matched without the incarnation, the aborted incarnation's instance [0, 1] would vouch for it
    const blind = (v: SystemView): SystemView => ({ ...v, appends: v.appends.map((a) => ({ ...a, incarnation: 0 })), builders: v.builders.map((b) => ({ ...b, incarnation: 0 })) });
    expect(barrierOneSharedBatchPerGroup.check(blind(view(buggy)))).toEqual({ ok: true });
  });

  it('eventually properties judge only final views', () => {
    for (const [p, v] of failing.filter(([p]) => p.kind === 'eventually')) expect(p.check({ ...v, final: false }).ok).toBe(true);
  });

  it('the barrier property concerns descriptions minted with the barrier, with sharing on, only', () => {
    const bad = withAppend({ routes: ['own', 'own'] });
    expect(barrierOneSharedBatchPerProcess.check(bad).ok).toBe(false);
    expect(barrierOneSharedBatchPerProcess.check(withAppend({ routes: ['own', 'own'], barrier: false })).ok).toBe(true);
    expect(barrierOneSharedBatchPerProcess.check(withAppend({ routes: ['own', 'own'], maxBytes: 0 })).ok).toBe(true);
  });

  it('sometimes properties: witnessed on views that show them, not on the empty view', () => {
    const empty: SystemView = { ...good, appends: [], builders: [], shardUppers: [0] };
    const witnesses: [Property, SystemView][] = [
      [severalBatchesForOneId, { ...good, builders: [builder, { ...builder, instance: 1 }] }],
      [fallbackAndSharedInOneAppend, good],
      [intervalSealedWithData, good],
      [refusedAppend, withAppend({ result: { ok: false, current: 1 }, deleted: 2 })],
      [replicaRestarted, withFaults({ aborts: 1, restarts: 1 })],
      [indeterminateCommit, withFaults({ indeterminateCommits: 1 })],
    ];
    for (const [p, v] of witnesses) {
      expect(p.kind).toBe('sometimes');
      expect(p.check(v).ok).toBe(true);
      expect(p.check(empty).ok).toBe(false);
    }
    expect(witnesses.length).toBe(properties.filter((p) => p.kind === 'sometimes').length);
  });

  it('are data: unique names, one-line statements, what they guard', () => {
    const all = [...properties, ...replacementProperties];
    expect(new Set(all.map((p) => p.name)).size).toBe(all.length);
    for (const p of all) {
      expect(p.statement).not.toContain('\n');
      expect(p.guards.length).toBeGreaterThan(0);
      expect(propertyByName(p.name)).toBe(p);
    }
    expect(propertyByName('nope')).toBeUndefined();
  });
});
