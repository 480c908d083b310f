/** Each `always`/`eventually` property fails on a hand-built bad view; each `sometimes` is witnessed. */
import { describe, expect, it } from 'vitest';
import { Driver, ev, tiny } from '../model/test-support/driver.ts';
import { viewOf } from '../model/view.ts';
import {
  atMostOneReceiver,
  barrierEveryFinishReturns,
  barrierOneSharedBatchPerProcess,
  fallbackAndSharedInOneAppend,
  intervalSealedWithData,
  noBatchToNobody,
  noLeakedParts,
  noLossNoDuplication,
  properties,
  propertyByName,
  refusedAppend,
  sealedExactlyOnce,
  severalBatchesForOneId,
  uppersOnlyAdvance,
  type Property,
} from './properties.ts';
import type { AppendView, BuilderView, SystemView } from './view.ts';

/** A good final view: barrier, worker 0 shares (10 bytes < 50), worker 1 falls back (100 bytes). */
function goodView(): SystemView {
  const d = new Driver(tiny('barrier'));
  d.all(ev.frontier(), ev.mint(50));
  d.drain();
  return viewOf(d.cfg, d.state);
}

const good = goodView();
const firstAppend = good.appends[0] as AppendView;
const withAppend = (change: Partial<AppendView>, view: SystemView = good): SystemView => ({
  ...view,
  appends: [{ ...firstAppend, ...change }],
});
const builder: BuilderView = {
  replica: 0,
  process: 0,
  sharedId: 0,
  instance: 0,
  handles: 1,
  receivers: 1,
  updates: [0],
  deliveredToNobody: false,
};

const failing: [Property, SystemView][] = [
  [noLossNoDuplication, withAppend({ updates: [0] })],
  [noLossNoDuplication, withAppend({ updates: [0, 1, 1] })],
  [sealedExactlyOnce, { ...good, shardUppers: [0] }],
  [sealedExactlyOnce, withAppend({ updates: [1] })],
  [atMostOneReceiver, { ...good, builders: [{ ...builder, receivers: 2 }] }],
  [noBatchToNobody, { ...good, builders: [{ ...builder, receivers: 0, deliveredToNobody: true }] }],
  [barrierOneSharedBatchPerProcess, withAppend({ batches: [...firstAppend.batches, { ...(firstAppend.batches[0] as AppendView['batches'][number]) }] })],
  [barrierOneSharedBatchPerProcess, withAppend({ batches: firstAppend.batches.filter((b) => b.route !== 'shared') })],
  [barrierOneSharedBatchPerProcess, withAppend({ routes: ['own', 'own'] })],
  [noLeakedParts, { ...good, batches: { ...good.batches, written: good.batches.written + 1 } }],
  [noLeakedParts, { ...good, builders: [{ ...builder, receivers: 0, deliveredToNobody: true }] }],
  [uppersOnlyAdvance, withAppend({ lower: 1, upper: 1 })],
  [uppersOnlyAdvance, withAppend({ lower: 1, upper: 2 })],
  [uppersOnlyAdvance, withAppend({ result: { ok: false, current: 7 } })],
  [uppersOnlyAdvance, { ...good, shardUppers: [0, 1, 1] }],
  [barrierEveryFinishReturns, { ...good, finishes: { begun: 2, ended: 1 } }],
];

describe('properties', () => {
  it('hold on a good final view', () => {
    for (const p of properties.filter((x) => x.kind !== 'sometimes')) expect([p.name, p.check(good)]).toEqual([p.name, { ok: true }]);
  });

  it.each(failing.map(([p, v], i) => [`${p.name} #${i}`, p, v] as const))('%s fails on a bad view', (_, p, view) => {
    const verdict = p.check(view);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.why.length).toBeGreaterThan(10);
  });

  it('every always and eventually property has a failing view', () => {
    const covered = new Set(failing.map(([p]) => p.name));
    expect(properties.filter((p) => p.kind !== 'sometimes' && !covered.has(p.name))).toEqual([]);
  });

  it('eventually properties judge only final views', () => {
    for (const [p, v] of failing.filter(([p]) => p.kind === 'eventually')) expect(p.check({ ...v, final: false }).ok).toBe(true);
  });

  it('the barrier property concerns the barrier with sharing on only', () => {
    const bad = withAppend({ routes: ['own', 'own'] });
    expect(barrierOneSharedBatchPerProcess.check({ ...bad, config: { ...bad.config, variant: 'best-effort' } }).ok).toBe(true);
    expect(barrierOneSharedBatchPerProcess.check(withAppend({ routes: ['own', 'own'], maxBytes: 0 })).ok).toBe(true);
  });

  it('sometimes properties: witnessed on views that show them, not on the empty view', () => {
    const empty: SystemView = { ...good, appends: [], builders: [] };
    const witnesses: [Property, SystemView][] = [
      [severalBatchesForOneId, { ...good, builders: [builder, { ...builder, instance: 1 }] }],
      [fallbackAndSharedInOneAppend, good],
      [intervalSealedWithData, good],
      [refusedAppend, withAppend({ result: { ok: false, current: 1 }, deleted: 2 })],
    ];
    for (const [p, v] of witnesses) {
      expect(p.kind).toBe('sometimes');
      expect(p.check(v).ok).toBe(true);
      expect(p.check(empty).ok).toBe(false);
    }
    expect(witnesses.length).toBe(properties.filter((p) => p.kind === 'sometimes').length);
  });

  it('are data: unique names, one-line statements, what they guard', () => {
    expect(new Set(properties.map((p) => p.name)).size).toBe(properties.length);
    for (const p of properties) {
      expect(p.statement).not.toContain('\n');
      expect(p.guards.length).toBeGreaterThan(0);
      expect(propertyByName(p.name)).toBe(p);
    }
    expect(propertyByName('nope')).toBeUndefined();
  });
});
