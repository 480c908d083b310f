import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { noLossNoDuplication, properties, propertyByName } from '../spec/properties.ts';
import { viewFromTrace } from '../spec/view.ts';
import type { ModelConfig } from './config.ts';
import { search, shortestTrace } from './search.ts';
import type { SystemState } from './state.ts';
import { initialState, isFinal, isSealed, step } from './system.ts';
import { config, tiny, u } from './test-support/driver.ts';
import { PINNED_FAULTS, expectFaultWorldHolds } from './test-support/fault-world.ts';
import { viewOf } from './view.ts';

/** Pinned: a change to the model changes these (2 workers, 1 process, 1 interval, knob ∈ {50, 1000}). */
/** Events of the shortest trace that seals an interval without data under the sweep's upgrade race
 * (model/CONTEXT.md: measured, compared with SPIN's 14-step trail). */
const SWEEP_RACE_SHORTEST = 18;
const PINNED = { off: 36, 'best-effort': 198, barrier: 117 } as const;

function replay(cfg: ModelConfig, trace: readonly TraceEvent[]): SystemState {
  let s = initialState(cfg);
  for (const e of trace) {
    const r = step(cfg, s, e);
    if (!r.ok) throw new Error(r.reason);
    s = r.state;
  }
  return s;
}

describe('exhaustive search of the tiny configuration', () => {
  for (const variant of ['off', 'best-effort', 'barrier'] as const) {
    it(`${variant}: ${PINNED[variant]} reachable states, every property holds, no deadlock`, () => {
      const cfg = tiny(variant);
      const r = search(cfg, { maxStates: 100_000, properties });
      expect(r.complete).toBe(true);
      expect(r.states).toBe(PINNED[variant]);
      expect(r.violations).toEqual([]);
      expect(r.finals).toBeGreaterThan(0);
      expect(shortestTrace(cfg, (s) => isFinal(cfg, s) && !isSealed(s), 100_000)).toBeNull();
    });
  }

  it('reaches the sometimes properties where the variant allows them', () => {
    const witnessed = (cfg: ModelConfig) => search(cfg, { maxStates: 100_000, properties }).witnesses.map((w) => w.property);
    expect(witnessed(tiny('best-effort'))).toEqual(
      expect.arrayContaining([
        'sometimes-several-batches-for-one-id',
        'sometimes-fallback-and-shared-in-one-append',
        'sometimes-interval-sealed-with-data',
      ]),
    );
    expect(witnessed(tiny('barrier'))).toEqual(
      expect.arrayContaining(['sometimes-fallback-and-shared-in-one-append', 'sometimes-interval-sealed-with-data']),
    );
    // the barrier builds one batch per process and interval: never a second instance.
    expect(witnessed(tiny('barrier'))).not.toContain('sometimes-several-batches-for-one-id');
    const twoReplicas = config({ variant: 'off', replicas: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 5)] });
    expect(witnessed(twoReplicas)).toContain('sometimes-refused-append');
  });

  it('every witness trace is a trace the model accepts, and the view from it shows the witness', () => {
    const cfg = tiny('best-effort');
    const { witnesses } = search(cfg, { maxStates: 100_000, properties });
    expect(witnesses.length).toBe(3);
    for (const w of witnesses) {
      const s = replay(cfg, w.trace);
      const prop = propertyByName(w.property);
      expect(prop?.check(viewOf(cfg, s)).ok).toBe(true);
      expect(prop?.check(viewFromTrace(cfg, w.trace, { final: isFinal(cfg, s) })).ok).toBe(true);
    }
  });

  it('reports progress every `progressEvery` expanded states', () => {
    const calls: [number, number][] = [];
    const r = search(tiny('best-effort'), { maxStates: 100_000, progressEvery: 50, onProgress: (expanded, states) => calls.push([expanded, states]) });
    expect(calls.map(([expanded]) => expanded)).toEqual([50, 100, 150]);
    for (const [expanded, states] of calls) expect(states).toBeGreaterThan(expanded);
    expect(calls.at(-1)?.[1]).toBeLessThanOrEqual(r.states);
  });

  it('stops at the hard state limit and says so, listing the sometimes properties it did not reach', () => {
    const r = search(tiny('best-effort'), { maxStates: 50, properties });
    expect(r.complete).toBe(false);
    expect(r.states).toBe(50);
    const sometimes = properties.filter((p) => p.kind === 'sometimes').map((p) => p.name);
    expect(r.unreached.length).toBeGreaterThan(0);
    expect([...r.unreached, ...r.witnesses.map((w) => w.property)].sort()).toEqual([...sometimes].sort());
  });
});

describe('the review bug: the sweep\'s weak.upgrade() race (#37591)', () => {
  const base = config({ variant: 'best-effort', updates: [u(0, 0, 0, 10), u(1, 0, 1, 20)], maxBytesChoices: [1000] });
  const buggy: ModelConfig = { ...base, bugs: { sweepUpgradeRace: true } };
  /** An interval sealed without some of its updates. */
  const sealedWithout = (s: SystemState) =>
    s.history.appends.some((a) => a.result.ok && base.updates.some((x) => x.time >= a.lower && x.time < a.upper && !a.updates.includes(x.id)));

  it("a short search finds a shortest trace: another worker's builder() call sweeps and holds the entry while its last handle finishes; no-loss fails on it", () => {
    const trace = shortestTrace(buggy, sealedWithout, 100_000);
    expect(trace).not.toBeNull();
    const t = trace as readonly TraceEvent[];
    expect(t.length).toBe(SWEEP_RACE_SHORTEST);
    const hold = t.find((e) => e.kind === 'sweep-hold');
    const orphaned = t.find((e) => e.kind === 'finish-begin' && !e.last);
    // The sweeper and the finisher are different workers; the release closes the batch for nobody.
    expect(hold?.kind === 'sweep-hold' && orphaned?.kind === 'finish-begin' && hold.worker !== orphaned.worker).toBe(true);
    expect(t.indexOf(hold as TraceEvent)).toBeLessThan(t.indexOf(orphaned as TraceEvent));
    expect(t.some((e) => e.kind === 'sweep-release' && e.closed)).toBe(true);
    const s = replay(buggy, t);
    expect(noLossNoDuplication.check(viewOf(buggy, s)).ok).toBe(false);
    expect(noLossNoDuplication.check(viewFromTrace(buggy, t, { final: false })).ok).toBe(false);
  });

  it('search reports the no-loss violation with a shortest trace ending in the append', () => {
    const r = search(buggy, { maxStates: 100_000, properties: [noLossNoDuplication], stopAtFirstViolation: true });
    expect(r.violations).toHaveLength(1);
    expect(r.complete).toBe(false);
    const v = r.violations[0];
    expect(v?.property).toBe('no-loss-no-duplication');
    expect(v?.trace.at(-1)?.kind).toBe('append');
    expect(v?.why).toMatch(/appended \[0, 1\) with updates/);
  });

  it('with the bug off, no-loss holds on every reachable state', () => {
    const r = search(base, { maxStates: 100_000, properties });
    expect(r.complete).toBe(true);
    expect(r.violations).toEqual([]);
  });

  it('the barrier is immune: its deliverer does not depend on reference counts', () => {
    const r = search({ ...buggy, variant: 'barrier' }, { maxStates: 100_000, properties });
    expect(r.complete).toBe(true);
    expect(r.violations).toEqual([]);
  });
});

describe('the fault world (aborts, restarts, indeterminate compare-and-set, cleanup)', () => {
  // best-effort (22,053 states) and barrier (7,563) are search.deep.test.ts's: seconds of plain search each.
  it(`off: ${PINNED_FAULTS.off} states, every property holds, no deadlock, the fault world is reached`, () => {
    expectFaultWorldHolds('off');
  });

  it('finds the indeterminate-as-mismatch bug with a shortest counterexample that deletes what the shard took', () => {
    const cfg = { ...tiny('best-effort'), faults: { aborts: 0, indeterminate: 1, cleanup: false }, bugs: { indeterminateAsMismatch: true } };
    const r = search(cfg, { maxStates: 100_000, properties });
    const v = r.violations.find((x) => x.property === 'no-referenced-blob-deleted');
    expect(v?.why).toMatch(/which the shard took/);
    expect(v?.trace.map((e) => e.kind)).toEqual(expect.arrayContaining(['fault', 'append', 'delete']));
    expect(v?.trace.length).toBe(14);
    expect(() => replay(cfg, v?.trace ?? [])).not.toThrow();
  });

  it('without the fault world none of its events is enabled', () => {
    const cfg = tiny('off');
    const s = initialState(cfg);
    for (const e of [
      { kind: 'abort', replica: 0, reason: 'x' },
      { kind: 'restart', replica: 0, lower: 0 },
      { kind: 'cleanup', replica: 0, deleted: 0 },
      { kind: 'fault', replica: 0, op: 'blob.set', fault: 'transient' },
    ] as const) {
      const r = step(cfg, s, e);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/only in the fault world/);
    }
  });
});
