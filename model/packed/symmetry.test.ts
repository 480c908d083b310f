import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { properties, type Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import type { SystemState } from '../state.ts';
import { initialState, serialize, step, successors, type Successor } from '../system.ts';
import { isIn } from '../local.ts';
import { alternating, config, randomWalk, rng, twoReplicas, u } from '../test-support/driver.ts';
import { checkPacked } from './check.ts';
import { Engine } from './engine.ts';
import { searchPacked } from './search.ts';
import { COMPONENT_SHAPES } from './shapes.ts';
import { Loads, Renamer, compose, fixedWorkers, identity, inGroup, inverse, loadClasses, type Sym } from './symmetry.ts';
import { expectPorKeepsFinals, expectSymmetryKeepsVerdicts, replay } from './test-support/reductions.ts';

/** Every symmetry of the group at `s` (small configurations only). */
function groupAt(cfg: ModelConfig, s: SystemState): Sym[] {
  const loads = new Loads(cfg);
  const W = cfg.processes * cfg.workersPerProcess;
  const perms = (xs: number[]): number[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
  const workerPerms = perms(Array.from({ length: W }, (_, w) => w));
  const replicaPerms = perms(Array.from({ length: cfg.replicas }, (_, r) => r));
  const out: Sym[] = [];
  const choose = (r: number, acc: number[][]): void => {
    if (r === cfg.replicas) {
      for (const replicas of replicaPerms) {
        const g: Sym = { replicas, workers: acc };
        if (inGroup(cfg, loads, s, g)) out.push(g);
      }
      return;
    }
    for (const p of workerPerms) choose(r + 1, [...acc, p]);
  };
  choose(0, []);
  return out;
}

const key = (e: TraceEvent, s: SystemState) => `${JSON.stringify(e)} -> ${serialize(s)}`;

describe('a symmetry renames everything that carries a worker, a replica or an update', () => {
  const configs: [string, ModelConfig][] = [
    ['best-effort, 4 workers', alternating('best-effort', 4)],
    ['barrier, 5 workers', alternating('barrier', 5, { maxBytesChoices: [1000] })],
    // the timer is proposed by each process's first worker, which the symmetry moves like the others
    ['barrier-timeout, 5 workers', alternating('barrier-timeout', 5, { maxBytesChoices: [1000] })],
    ['best-effort, review bug, 4 workers', alternating('best-effort', 4, { maxBytesChoices: [1000], bugs: { sweepUpgradeRace: true } })],
    ['best-effort, 2 replicas', twoReplicas('best-effort')],
    ['barrier, 2 replicas', twoReplicas('barrier')],
    ['best-effort, 4 workers, faults', alternating('best-effort', 4, { maxBytesChoices: [1000], faults: { aborts: 1, indeterminate: 1, cleanup: true } })],
    ['barrier, 2 replicas, faults', { ...twoReplicas('barrier'), faults: { aborts: 1, indeterminate: 1, cleanup: true } }],
    // supersede: workers 0 and 2 (same loads) swap while a superseded description names worker 0 as its
    // append worker (the field is kept, as in the live one)
    [
      'best-effort, 2 replicas, 3 workers, 2 intervals (supersede)',
      config({
        variant: 'best-effort',
        replicas: 2,
        workersPerProcess: 3,
        intervals: 2,
        updates: [u(0, 0, 0, 10), u(1, 0, 2, 10), u(2, 1, 0, 10), u(3, 1, 2, 10), u(4, 1, 1, 100)],
        maxBytesChoices: [1000],
      }),
    ],
  ];

  it.each(configs)('%s: the renamed trace is a run of the model and reaches the renamed state (every prefix)', (_name, cfg) => {
    const renamer = new Renamer(cfg, new Loads(cfg));
    const group = groupAt(cfg, initialState(cfg)).filter((g) => JSON.stringify(g) !== JSON.stringify(identity(cfg)));
    expect(group.length).toBeGreaterThan(0);
    const pick = rng(11);
    for (let walk = 0; walk < 12; walk++) {
      const { trace } = randomWalk(cfg, pick);
      const states = replay(cfg, trace);
      const g = group[walk % group.length] as Sym;
      const moved = replay(cfg, trace.map((e) => renamer.event(e, g)));
      states.forEach((s, k) => expect(serialize(moved[k] as SystemState)).toBe(serialize(renamer.state(s, g))));
    }
  });

  it.each(configs)('%s: moving a state commutes with its successors, at every state of a walk', (_name, cfg) => {
    const renamer = new Renamer(cfg, new Loads(cfg));
    const pick = rng(5);
    for (let walk = 0; walk < 3; walk++) {
      randomWalk(cfg, pick, (s, next) => {
        const group = groupAt(cfg, s);
        const g = group[pick(group.length)] as Sym;
        const expected = next.map((x) => key(renamer.event(x.event, g), renamer.state(x.next, g))).sort();
        const actual = successors(cfg, renamer.state(s, g)).map((x) => key(x.event, x.next)).sort();
        expect(actual).toEqual(expected);
      });
    }
  });

  it('a superseded description\'s append worker moves with the others: successors commute there', () => {
    const cfg = (configs.find(([name]) => name.includes('supersede')) as [string, ModelConfig])[1];
    const renamer = new Renamer(cfg, new Loads(cfg));
    const pick = rng(23);
    let moved = 0;
    for (let walk = 0; walk < 300 && moved < 20; walk++) {
      randomWalk(cfg, pick, (s, next) => {
        s.replicas.forEach((rep, r) => {
          const w = rep.superseded?.desc.appendWorker;
          if (w === undefined) return;
          for (const g of groupAt(cfg, s)) {
            if (g.workers[r]?.[w] === w) continue;
            moved += 1;
            const expected = next.map((x) => key(renamer.event(x.event, g), renamer.state(x.next, g))).sort();
            const actual = successors(cfg, renamer.state(s, g)).map((x) => key(x.event, x.next)).sort();
            expect(actual).toEqual(expected);
          }
        });
      });
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('the append worker moves with the others, its description field unchanged: the group contains it', () => {
    const cfg = alternating('best-effort', 4);
    const moves0: Sym = { replicas: [0], workers: [[2, 1, 0, 3]] };
    expect(inGroup(cfg, new Loads(cfg), initialState(cfg), moves0)).toBe(true);
    expect(inGroup(cfg, new Loads(cfg), initialState(cfg), moves0, 'fixed')).toBe(false);
    const renamer = new Renamer(cfg, new Loads(cfg));
    const mint: TraceEvent = { kind: 'mint', replica: 0, desc: { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 50, barrier: false } };
    expect(renamer.event(mint, moves0)).toEqual(mint);
  });

  // SUBTLE: moving the append worker is sound only because nothing in the model reads it. These canaries
  // are models that do read it (a rule the model does not have): the same commutation and replay checks
  // as above must catch them, so a future model that reads it fails these tests until the group fixes it.
  describe('a model that reads the append worker is caught', () => {
    const liveAppendWorker = (s: SystemState, r: number): number | undefined => s.replicas[r]?.mint.context.live?.appendWorker;
    /** The canary: the append worker stages only after every other worker of its replica staged. */
    const blocked = (s: SystemState, e: TraceEvent): boolean =>
      e.kind === 'stage' && e.worker === liveAppendWorker(s, e.replica) && (s.replicas[e.replica]?.workers ?? []).some((wk, w) => w !== e.worker && isIn(wk, 'idle'));
    const canarySuccessors = (cfg: ModelConfig, s: SystemState) => successors(cfg, s).filter((x) => !blocked(s, x.event));
    const canaryStep = (cfg: ModelConfig, s: SystemState, e: TraceEvent) => (blocked(s, e) ? { ok: false as const, reason: 'the append worker stages last' } : step(cfg, s, e));
    const cfg = alternating('best-effort', 4, { maxBytesChoices: [1000] });
    const moves0: Sym = { replicas: [0], workers: [[2, 1, 0, 3]] };
    const renamer = new Renamer(cfg, new Loads(cfg));

    /** A seeded walk under `succ`. */
    const walk = (succ: typeof successors, pick: (n: number) => number, visit: (s: SystemState, next: readonly Successor[]) => void = () => {}): TraceEvent[] => {
      const trace: TraceEvent[] = [];
      let s = initialState(cfg);
      for (let next = succ(cfg, s); next.length > 0; next = succ(cfg, s)) {
        visit(s, next);
        const chosen = next[pick(next.length)] as Successor;
        trace.push(chosen.event);
        s = chosen.next;
      }
      return trace;
    };
    /** How many states of 20 walks under `succ` have successors that do not commute with `moves0`. */
    const nonCommuting = (succ: typeof successors): number => {
      let bad = 0;
      const pick = rng(7);
      for (let i = 0; i < 20; i++) {
        walk(succ, pick, (s, next) => {
          const expected = next.map((x) => key(renamer.event(x.event, moves0), renamer.state(x.next, moves0))).sort();
          const actual = succ(cfg, renamer.state(s, moves0)).map((x) => key(x.event, x.next)).sort();
          if (JSON.stringify(actual) !== JSON.stringify(expected)) bad += 1;
        });
      }
      return bad;
    };
    /** How many of 20 walks under the model (`succ`, `stepWith`) replay renamed by `moves0`. */
    const renamedReplays = (succ: typeof successors, stepWith: typeof step): number => {
      let ok = 0;
      const pick = rng(13);
      for (let i = 0; i < 20; i++) {
        let s = initialState(cfg);
        let accepted = true;
        for (const e of walk(succ, pick)) {
          const r = stepWith(cfg, s, renamer.event(e, moves0));
          if (!r.ok) {
            accepted = false;
            break;
          }
          s = r.state;
        }
        if (accepted) ok += 1;
      }
      return ok;
    };

    it('the model itself: every state commutes, every renamed walk replays', () => {
      expect(nonCommuting(successors)).toBe(0);
      expect(renamedReplays(successors, step)).toBe(20);
    });

    it('the canary: states that do not commute, and renamed walks the model refuses', () => {
      expect(nonCommuting(canarySuccessors)).toBeGreaterThan(0);
      expect(renamedReplays(canarySuccessors, canaryStep)).toBeLessThan(20);
    });
  });

  it('workers with different loads are never exchanged', () => {
    const cfg = alternating('best-effort', 4);
    const loads = new Loads(cfg);
    expect(loadClasses(cfg, loads)).toEqual([
      [0, 2],
      [1, 3],
    ]);
    expect(() => loads.rename(1, [1, 0, 2, 3])).toThrow(/worker 1 and worker 0 do not have identical loads/);
  });

  it('the fixed group (for comparison) holds the live and every future append worker, and only shrinks', () => {
    const cfg = alternating('best-effort', 4, { intervals: 3, updates: [u(0, 0, 0, 10)] });
    const { trace } = randomWalk(cfg, rng(9));
    const fixed = replay(cfg, trace).map((s) => fixedWorkers(s.replicas[0]?.mint as never));
    expect(fixed[0]).toEqual([0, 1, 2]);
    expect(fixed.at(-1)).toEqual([]);
    fixed.forEach((f, i) => i > 0 && expect(f.every((w) => fixed[i - 1]?.includes(w))).toBe(true));
  });

  it('a shape is strict: a field it does not list is an error, not left unrenamed', () => {
    const cfg = alternating('best-effort', 4);
    const renamer = new Renamer(cfg, new Loads(cfg));
    const s = initialState(cfg);
    const worker = s.replicas[0]?.workers[0];
    expect(() => renamer.component('worker', { ...worker, context: { ...worker?.context, deliverer: 1 } }, 0, identity(cfg))).toThrow(
      /worker\.context has a field "deliverer" its shape does not list/,
    );
    expect(Object.keys(COMPONENT_SHAPES).sort()).toEqual([
      'append', 'appends', 'builder', 'deleted', 'faults', 'finishesBegun', 'finishesEnded', 'handle', 'incarnation', 'instance', 'mint', 'ownBatches', 'shard', 'shardUppers', 'superseded', 'sweep', 'up', 'worker',
    ]);
  });

  it('composes and inverts', () => {
    const a: Sym = { replicas: [1, 0], workers: [[0, 2, 1], [1, 0, 2]] };
    const b: Sym = { replicas: [1, 0], workers: [[2, 1, 0], [0, 1, 2]] };
    const id: Sym = { replicas: [0, 1], workers: [[0, 1, 2], [0, 1, 2]] };
    expect(compose(inverse(a), a)).toEqual(id);
    expect(compose(a, inverse(a))).toEqual(id);
    expect(compose(b, a).replicas).toEqual([0, 1]);
    expect(compose(b, a).workers[0]).toEqual([0, 1, 2].map((w) => (b.workers[1] as number[])[(a.workers[0] as number[])[w] as number]));
  });
});

/** Two replicas × 1 worker over 2 intervals: replicas overtake each other and supersede. */
const supersede = config({ variant: 'off', replicas: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 5), u(1, 1, 0, 5)], knobs: { maxBytesByLower: [1000], barrierByDesired: [false] } });

describe('the symmetric search keeps verdicts, witnesses and shortest counterexample lengths', () => {
  // 3 workers, 2 replicas (with and without faults) and the pinned reduction are symmetry.deep.test.ts's.
  const cases: [string, ModelConfig][] = [
    ['barrier, 4 workers', alternating('barrier', 4, { maxBytesChoices: [50, 1000] })],
    ['barrier-timeout, 4 workers', alternating('barrier-timeout', 4, { maxBytesChoices: [50, 1000] })],
    ['best-effort, 4 workers, knob 50', alternating('best-effort', 4, { maxBytesChoices: [50] })],
    ['review bug, 4 workers', alternating('best-effort', 4, { maxBytesChoices: [50], bugs: { sweepUpgradeRace: true } })],
    ['review bug, 5 workers, the barrier', alternating('barrier', 5, { maxBytesChoices: [50], bugs: { sweepUpgradeRace: true } })],
    ['2 intervals', alternating('best-effort', 2, { intervals: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 100), u(2, 1, 0, 100), u(3, 1, 1, 10)] })],
    // workers 1 and 2 interchangeable, worker 0 (the append worker) without data; small enough that the
    // full search completes too (with data on all three it needs 1.36 M states: both searches must end)
    ['faults, 3 workers', alternating('best-effort', 3, { maxBytesChoices: [1000], updates: [u(0, 0, 1, 10), u(1, 0, 2, 10)], faults: { aborts: 1, indeterminate: 0, cleanup: false } })],
    ['supersede, 2 replicas, 2 intervals', supersede],
  ];
  it.each(cases)('%s', (_name, cfg) => {
    expectSymmetryKeepsVerdicts(cfg);
  });
});

describe('the partial-order reduction keeps every final state and every verdict', () => {
  // the review bug at 3 workers and the fault world are symmetry.deep.test.ts's.
  const cases: [string, ModelConfig][] = [
    ['best-effort, 3 workers', alternating('best-effort', 3)],
    ['barrier, 3 workers', alternating('barrier', 3)],
    ['barrier-timeout, 3 workers', alternating('barrier-timeout', 3)],
    ['off, 3 workers', alternating('off', 3)],
    ['barrier with the review bug', alternating('barrier', 3, { bugs: { sweepUpgradeRace: true } })],
    ['2 replicas', twoReplicas('barrier')],
    ['2 processes', config({ variant: 'best-effort', processes: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 10), u(2, 0, 2, 10)], maxBytesChoices: [1000] })],
    ['2 processes, review bug', config({ variant: 'best-effort', processes: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 100), u(2, 0, 2, 10), u(3, 0, 3, 100)], maxBytesChoices: [50], bugs: { sweepUpgradeRace: true } })],
    ['2 processes, barrier, 2 replicas', config({ variant: 'barrier', replicas: 2, processes: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 10), u(1, 0, 1, 10)], maxBytesChoices: [1000] })],
    ['2 processes, 2 intervals', config({ variant: 'best-effort', processes: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 10), u(2, 1, 0, 10), u(3, 1, 1, 10)], maxBytesChoices: [1000] })],
    // noData 'finish': two workers without data finish empty handles (identical loads: symmetric)
    ['no data: finish, best-effort', config({ variant: 'best-effort', workersPerProcess: 3, noData: 'finish', updates: [u(0, 0, 0, 10)], maxBytesChoices: [0, 1000] })],
    ['no data: finish, barrier', config({ variant: 'barrier', workersPerProcess: 3, noData: 'finish', updates: [u(0, 0, 0, 10)], maxBytesChoices: [0, 1000] })],
    ['faults, the indeterminate-as-mismatch bug', { ...config({ variant: 'best-effort' }), faults: { aborts: 0, indeterminate: 1, cleanup: false }, bugs: { indeterminateAsMismatch: true } }],
    // supersede: a stage is not confluent with two replicas (a supersede can turn it into `superseded`)
    ['supersede, 2 replicas, 2 intervals', supersede],
  ];
  it.each(cases)('%s', (_name, cfg) => {
    expectPorKeepsFinals(cfg);
  });

  it('refuses a property that is not monotone (its verdict would depend on the interleavings it skips)', () => {
    const pending: Property = {
      name: 'no-finish-pending',
      kind: 'always',
      guards: 'test',
      statement: 'no finish is between begin and end (not monotone)',
      check: (v) => (v.finishes.begun === v.finishes.ended ? { ok: true } : { ok: false, why: 'a finish is pending' }),
    };
    const cfg = alternating('best-effort', 3, { maxBytesChoices: [1000] });
    expect(() => searchPacked(cfg, { maxStates: 100_000, por: true }, new Engine(cfg, [pending]))).toThrow(/needs monotone properties, but no-finish-pending changes back/);
  });
});

describe('shards cover the state space between them', () => {
  it('the union of the shards\' verdicts is the whole search\'s, with its shortest lengths', () => {
    // 3 workers: with 2 no BFS level is wide enough (16 states per shard) to split
    const cfg = alternating('best-effort', 3, { bugs: { sweepUpgradeRace: true } });
    const whole = checkPacked(cfg, { properties, maxStates: 1_000_000, por: false });
    const shards = [0, 1, 2].map((index) => checkPacked(cfg, { properties, maxStates: 1_000_000, por: false, shard: { index, count: 3 } }));
    for (const s of shards) {
      expect(s.complete).toBe(true);
      expect(s.shard?.count).toBe(3);
      expect(s.states).toBeLessThan(whole.states);
    }
    const shortest = new Map<string, number>();
    for (const v of shards.flatMap((s) => s.violations)) shortest.set(v.property, Math.min(shortest.get(v.property) ?? Infinity, v.trace.length));
    expect(Object.fromEntries(shortest)).toEqual(Object.fromEntries(whole.violations.map((v) => [v.property, v.trace.length])));
    const witnessed = new Set(shards.flatMap((s) => s.witnesses.map((w) => w.property)));
    expect([...witnessed].sort()).toEqual(whole.witnesses.map((w) => w.property).sort());
    expect(new Set(shards.map((s) => s.shard?.depth)).size).toBe(1);
    expect(shards.reduce((n, s) => n + (s.shard?.roots ?? 0), 0)).toBeGreaterThanOrEqual(48);
  });
});
