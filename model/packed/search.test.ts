import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { properties, type Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { search } from '../search.ts';
import { initialState, predict, serialize, step } from '../system.ts';
import { config, tiny, u, wide } from '../test-support/driver.ts';
import { Engine } from './engine.ts';
import { Codec, Layout, ReadSetError } from './layout.ts';
import { EVENT_RULES, eventRule } from './read-sets.ts';
import { searchPacked } from './search.ts';
import { FAULTS, check, expectAsPlain, expectPinnedAsPlain, supersede } from './test-support/plain.ts';

const replayed = (cfg: ModelConfig, trace: readonly TraceEvent[]) => {
  let s = initialState(cfg);
  for (const e of trace) {
    const r = step(cfg, s, e);
    if (!r.ok) throw new Error(r.reason);
    s = r.state;
  }
  return s;
};

describe('the packed search without reductions equals the plain search', () => {
  // The fault world's best-effort and barrier (22,053 and 7,563 states), two replicas with faults and the
  // barrier's supersede are search.deep.test.ts's: the plain search takes seconds on each.
  const pinned: [string, number, ModelConfig][] = [
    ['tiny off', 36, tiny('off')],
    ['tiny best-effort', 198, tiny('best-effort')],
    ['tiny barrier', 117, tiny('barrier')],
    ['check off', 53, check('off')],
    ['check best-effort', 215, check('best-effort')],
    ['check barrier', 134, check('barrier')],
    ['tiny off, faults', 590, { ...tiny('off'), faults: FAULTS }],
  ];
  it.each(pinned)('%s: %i states, the same finals, verdicts and traces', (_name, states, cfg) => {
    expectPinnedAsPlain(cfg, states);
  });

  it.each<[string, ModelConfig]>([
    ['two replicas (mismatch and delete)', config({ variant: 'best-effort', replicas: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 5)] })],
    ['two processes', config({ variant: 'barrier', processes: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 10), u(1, 0, 1, 20)] })],
    ['two intervals', config({ variant: 'best-effort', workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 10), u(1, 1, 0, 40)] })],
    ['the review bug', { ...check('best-effort'), bugs: { sweepUpgradeRace: true } }],
    ['the indeterminate-as-mismatch bug', { ...tiny('best-effort'), faults: { aborts: 0, indeterminate: 1, cleanup: false }, bugs: { indeterminateAsMismatch: true } }],
    // the no-data policy finish: a worker with no data opens and finishes an empty handle (route empty)
    ['no data: finish, best-effort', check('best-effort', { noData: 'finish', updates: [u(0, 0, 0, 10)] })],
    ['no data: finish, barrier', check('barrier', { noData: 'finish', updates: [u(0, 0, 0, 10)], barrierChoices: [false, true] })],
    // supersede: two replicas over two intervals, one overtaking the other while its description is in flight
    ['supersede, off', supersede('off')],
  ])('%s', (_name, cfg) => {
    expectAsPlain(cfg);
  });

  it('stops at --max-states like the plain search, and says so', () => {
    const cfg = tiny('best-effort');
    const packed = searchPacked(cfg, { maxStates: 50, properties });
    const plain = search(cfg, { maxStates: 50, properties });
    expect(packed).toMatchObject({ states: 50, complete: false, stopped: 'max-states' });
    expect(packed.unreached).toEqual(plain.unreached);
    expect(packed.dropped).toBeGreaterThan(0);
  });

  it('stops at --max-memory, reporting how far it got', () => {
    let calls = 0;
    const r = searchPacked(check('best-effort'), { maxStates: 1_000_000, maxBytes: 1000, memoryEvery: 10, memory: () => (calls++ < 5 ? 0 : 2000), properties });
    expect(r).toMatchObject({ complete: false, stopped: 'max-memory' });
    expect(r.states).toBeGreaterThan(50);
    expect(r.frontier).toBeGreaterThan(0);
    expect(r.depth).toBeGreaterThan(0);
  });

  it('calls onProgress with (expanded, states)', () => {
    const calls: number[] = [];
    searchPacked(tiny('best-effort'), { maxStates: 1000, progressEvery: 50, onProgress: (n) => calls.push(n) });
    expect(calls).toEqual([50, 100, 150]);
  });

  it('stores a state in well under 100 bytes once there are many', () => {
    const r = searchPacked(check('best-effort', { workersPerProcess: 3, updates: [u(0, 0, 0, 10), u(1, 0, 1, 100), u(2, 0, 2, 10)] }), { maxStates: 1_000_000 });
    expect(r.states).toBe(3515);
    // the figure the bench prints; the layout has 3 chunks of 4 slots for this shape
    expect(r.storeBytes / r.states).toBeLessThan(400);
  });
});

describe('the read-set table is checked on every cache miss', () => {
  const cfg = tiny('best-effort');

  it('a read set that is too small throws instead of memoizing', () => {
    // push without its handle and builder: only what stage reads
    const rules = { ...EVENT_RULES, push: { reads: (e: TraceEvent, L: Layout) => [L.mint(e.replica), L.superseded(e.replica), L.worker(e.replica, 'worker' in e ? (e.worker ?? 0) : 0)] } };
    expect(() => searchPacked(cfg, { maxStates: 1000 }, new Engine(cfg, [], { eventRules: rules }))).toThrow(ReadSetError);
    expect(() => searchPacked(cfg, { maxStates: 1000 }, new Engine(cfg, [], { eventRules: rules }))).toThrow(/r0\.handles\[\d\]|r0\.p0\.builders\[0\]/);
  });

  it('an actor read set that is too small throws', () => {
    const actorRules = { faults: () => [], cleanup: () => [], mint: () => [], worker: () => [], append: () => [], registry: () => [] };
    expect(() => searchPacked(cfg, { maxStates: 1000 }, new Engine(cfg, [], { actorRules }))).toThrow(/actorCandidates.*read r0\.(up|mint)/);
  });

  it('a counter declared as added to, but read otherwise, throws', () => {
    // a broken model whose finish-begin depends on how many finishes began
    const broken: typeof predict = (c, s, e) => {
      if (e.kind === 'finish-begin' && s.history.finishesBegun > 0) return { ok: false, reason: 'broken' };
      return predict(c, s, e);
    };
    expect(() => searchPacked(cfg, { maxStates: 1000 }, new Engine(cfg, [], { predict: broken }))).toThrow(/depends on history\.finishesBegun beyond adding/);
  });

  it('an unknown event kind is an error, not a silent skip', () => {
    const L = new Layout(cfg);
    expect(() => eventRule({ kind: 'supersede', replica: 0 } as unknown as TraceEvent, L)).toThrow(/no rule for event kind "supersede"/);
    const rules = { ...EVENT_RULES, open: { reads: EVENT_RULES.open.reads, adds: () => [L.appends] } };
    expect(() => eventRule({ kind: 'open', replica: 0, process: 0, worker: 0, sharedId: 0, created: false, participants: null }, L, rules)).toThrow(/history\.appends, which is not a counter/);
  });

  it('a guard that moves to another slot is refused', () => {
    const L = new Layout(cfg);
    const codec = new Codec(L);
    const vec = new Int32Array(L.slots);
    codec.pack(initialState(cfg), vec);
    const s = codec.materialize(vec, [L.mint(0)]);
    const swapped = { ...s, replicas: [{ ...s.replicas[0], workers: [s.replicas[0]?.workers[1], s.replicas[0]?.workers[0]] }] } as typeof s;
    expect(() => codec.extract(swapped, Int32Array.from(vec))).toThrow(/moved r0\.workers\[1\] to r0\.workers\[0\]/);
  });

  it('packs and materializes a state back to the same serialization', () => {
    const w = wide({ variant: 'barrier' });
    const L = new Layout(w);
    const codec = new Codec(L);
    const vec = new Int32Array(L.slots);
    const s = initialState(w);
    codec.pack(s, vec);
    expect(serialize(codec.materialize(vec))).toBe(serialize(s));
  });
});

describe('every trace the packed search returns is a real run', () => {
  it('witnesses and violations replay with step from the initial state and show what they claim', () => {
    const cfg: ModelConfig = { ...check('best-effort'), bugs: { sweepUpgradeRace: true } };
    const r = searchPacked(cfg, { maxStates: 100_000, properties });
    expect(r.violations.map((v) => v.property)).toContain('no-loss-no-duplication');
    for (const v of [...r.violations, ...r.witnesses]) {
      const prop = properties.find((p) => p.name === v.property) as Property;
      expect(() => replayed(cfg, v.trace)).not.toThrow();
      expect(prop).toBeDefined();
    }
  });
});
