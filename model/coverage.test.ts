import { describe, expect, it } from 'vitest';
import { exploreCounting, machineTransitions, replayCounting, TransitionCounts } from './coverage.ts';
import { machineDiagrams } from './mermaid.ts';
import { enabledActions, initialState, step } from './system.ts';
import type { TraceEvent } from '../vocab/index.ts';
import type { ModelConfig } from './config.ts';

const persist = { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 1 << 20 };
const cfg = (variant: ModelConfig['variant']): ModelConfig => ({
  variant,
  replicas: 1,
  processes: 1,
  workersPerProcess: 2,
  intervals: 1,
  updates: [
    { id: 0, time: 0, worker: 0, size: 10 },
    { id: 1, time: 0, worker: 1, size: 100 },
  ],
  persist,
  maxBytesChoices: [0, 50, 1000],
});

/** A trace the model accepts: always the first enabled action. */
function firstTrace(c: ModelConfig): TraceEvent[] {
  let s = initialState(c);
  const out: TraceEvent[] = [];
  for (;;) {
    const [e] = enabledActions(c, s);
    if (e === undefined) return out;
    const r = step(c, s, e);
    if (!r.ok) throw new Error(r.reason);
    out.push(e);
    s = r.state;
  }
}

const keys = (c: TransitionCounts): string[] => [...c.counts.keys()].sort();

describe('machine transitions', () => {
  it('are the edges of the generated diagrams', () => {
    const all = machineTransitions();
    expect(all.map((m) => m.machine)).toEqual(machineDiagrams().map((d) => d.name));
    const edges = machineDiagrams().flatMap((d) => d.mermaid.split('\n').filter((l) => l.includes(' --> ') && !l.includes('[*]')));
    expect(all.flatMap((m) => m.transitions)).toEqual(edges.map((l) => l.trim()));
    expect(all.flatMap((m) => m.transitions)).toHaveLength(88); // 54, the fault world: mint RESUME, append INDETERMINATE_APPLIED, APPEND and MISREAD (×2) from committed; append BACKPRESSURE, BUMP, BUMP_UNANSWERED; noData finish: worker STAGE [finishesEmpty], handle opened FINISH_BEGIN; supersede: mint SUPERSEDE, worker SUPERSEDED (×2), superseded.reportingSkip SKIP; the registry lock and its sweep: 9 sweep transitions; a barrier's deadline: 11 builder transitions (TIMEOUT ×2, the completing finish, the barrier's join, a late worker's open ×3 and skip ×4)
  });
});

describe('counting the transitions the model takes', () => {
  it('counts every transition of an accepted trace, each named as in the diagrams', () => {
    const c = new TransitionCounts();
    const trace = firstTrace(cfg('best-effort'));
    expect(replayCounting(cfg('best-effort'), trace, c)).toEqual({ accepted: trace.length });
    const universe = new Set(machineTransitions().flatMap((m) => m.transitions.map((t) => `${m.machine}|${t}`)));
    expect(keys(c).every((k) => universe.has(k))).toBe(true);
    expect(c.get('mint', 'waiting --> live : MINT [lagsDesired]')).toBe(1);
    expect(c.get('worker', 'handing --> done : HAND')).toBe(2);
    const twice = new TransitionCounts();
    replayCounting(cfg('best-effort'), trace, twice);
    replayCounting(cfg('best-effort'), trace, twice);
    expect(twice.get('worker', 'handing --> done : HAND')).toBe(4);
  });

  it('stops at an event the model rejects and counts nothing of it', () => {
    const trace = firstTrace(cfg('off'));
    const bad = trace.map((e) => (e.kind === 'append' ? { ...e, batches: e.batches + 1 } : e));
    const c = new TransitionCounts();
    const r = replayCounting(cfg('off'), bad, c);
    expect(r.rejectedAt).toBe(bad.findIndex((e) => e.kind === 'append'));
    expect(c.get('append', 'ready --> appended : APPEND [matchesShardUpper]')).toBe(0);
  });

  it('explores every reachable state and counts only what each variant can do', () => {
    const off = new TransitionCounts();
    const barrier = new TransitionCounts();
    const be = new TransitionCounts();
    expect(exploreCounting(cfg('off'), off, 10_000)).toEqual({ states: 53, complete: true });
    expect(exploreCounting(cfg('barrier'), barrier, 10_000)).toEqual({ states: 134, complete: true });
    exploreCounting(cfg('best-effort'), be, 10_000);
    // off never shares: no handle, builder or sweep transition
    expect(keys(off).filter((k) => /^(handle|builder|sweep)\|/.test(k))).toEqual([]);
    // the barrier's deliverer, never best-effort's last reference; and the converse
    expect(barrier.get('builder', 'live --> finalized : FINISH_BEGIN [finalizesBarrier]')).toBeGreaterThan(0);
    expect(barrier.get('builder', 'live --> notLive_dead : FINISH_BEGIN [holdsLastRef]')).toBe(0);
    expect(be.get('builder', 'live --> notLive_dead : FINISH_BEGIN [holdsLastRef]')).toBeGreaterThan(0);
    expect(be.get('builder', 'live --> finalized : FINISH_BEGIN [finalizesBarrier]')).toBe(0);
    // a builder() call's sweep, at once; no sweep hold without the model bug; with it, there is; no
    // environment sweep without a shared registry
    expect(be.get('sweep', 'idle --> swept : SWEEP [sweepsAtOnce]')).toBeGreaterThan(0);
    expect(be.get('sweep', 'idle --> holding : SWEEP_HOLD [beginsWithHold]')).toBe(0);
    const bug = new TransitionCounts();
    exploreCounting({ ...cfg('best-effort'), bugs: { sweepUpgradeRace: true } }, bug, 10_000);
    expect(bug.get('sweep', 'idle --> holding : SWEEP_HOLD [beginsWithHold]')).toBeGreaterThan(0);
    expect(bug.get('sweep', 'idle --> idle : SWEEP [environmentSweepsAtOnce]')).toBe(0);
    expect(exploreCounting(cfg('best-effort'), new TransitionCounts(), 10)).toEqual({ states: 10, complete: false });
  });
});
