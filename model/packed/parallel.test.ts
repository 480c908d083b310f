import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { alternating, config, tiny, twoReplicas, u } from '../test-support/driver.ts';
import { checkPacked, checkPackedJobs } from './check.ts';
import { Engine } from './engine.ts';
import { searchParallel } from './parallel.ts';
import { searchPacked } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';

const FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/** The single-threaded search the threads must reproduce exactly: the same reductions, representatives by content. */
function oneThread(cfg: ModelConfig, por: boolean) {
  const engine = new Engine(cfg, properties);
  return searchPacked(cfg, { maxStates: 10_000_000, reducer: new SymmetryReducer(engine), por }, engine);
}

const lengths = (xs: readonly { property: string; trace: readonly unknown[] }[]) => Object.fromEntries(xs.map((x) => [x.property, x.trace.length]));

describe('the parallel packed search (--jobs) visits what one thread visits', () => {
  it.each<[string, number, ModelConfig]>([
    ['tiny best-effort', 2, tiny('best-effort')],
    ['tiny barrier', 3, tiny('barrier')],
    ['check best-effort, 4 workers', 2, alternating('best-effort', 4)],
    ['check barrier, 4 workers', 3, alternating('barrier', 4)],
    ['two replicas, two intervals (supersede)', 2, config({ variant: 'best-effort', replicas: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 5), u(1, 1, 0, 5)], knobs: { maxBytesByLower: [1000], barrierByDesired: [false] } })],
    ['two replicas × two workers (each replica its own roles in the shared history)', 2, twoReplicas('best-effort')],
    ['two processes', 2, config({ variant: 'barrier', processes: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 20), u(2, 0, 2, 10), u(3, 0, 3, 20)] })],
    ['the fault world', 2, { ...tiny('best-effort'), faults: FAULTS }],
  ])('%s on %i threads: the same states, finals, transitions, depth and verdicts', async (_name, jobs, cfg) => {
    for (const por of [true, false]) {
      const one = oneThread(cfg, por);
      const many = await searchParallel(cfg, { jobs, properties, maxStates: 10_000_000, symmetry: true, por });
      expect(many).toMatchObject({ states: one.states, finals: one.finals, transitions: one.transitions, depth: one.depth, complete: true, stopped: null });
      expect(many.unreached).toEqual(one.unreached);
      // BFS levels kept in step: witnesses and violations as short as one thread's (each trace was replayed)
      expect(lengths(many.witnesses)).toEqual(lengths(one.witnesses));
      expect(lengths(many.violations)).toEqual(lengths(one.violations));
    }
  });

  it('finds the review bug with a shortest counterexample, as checkPacked does', async () => {
    const cfg: ModelConfig = { ...alternating('best-effort', 3), bugs: { sweepUpgradeRace: true } };
    const one = checkPacked(cfg, { properties, maxStates: 10_000_000 });
    const many = await checkPackedJobs(cfg, { properties, maxStates: 10_000_000, jobs: 2 });
    expect(one.violations.length).toBeGreaterThan(0);
    expect(lengths(many.violations)).toEqual(lengths(one.violations));
    expect(many.shortest).toEqual(one.shortest);
    expect(many.states).toBe(one.states);
  });

  it('stops at --max-states over every thread together, and still expands what it stored, as one thread does', async () => {
    const cfg = alternating('best-effort', 3);
    const engine = new Engine(cfg, properties);
    const one = searchPacked(cfg, { maxStates: 100, reducer: new SymmetryReducer(engine), por: true }, engine);
    const r = await searchParallel(cfg, { jobs: 3, properties, maxStates: 100, symmetry: true, por: true });
    expect(r).toMatchObject({ states: 100, complete: false, stopped: 'max-states', frontier: 0 });
    expect(one).toMatchObject({ states: 100, complete: false, stopped: 'max-states', frontier: 0 });
    expect(r.dropped).toBeGreaterThan(0);
  });

  it('prints the same traces in every run, whatever the timing of the threads', async () => {
    const cfg: ModelConfig = { ...alternating('best-effort', 3), bugs: { sweepUpgradeRace: true } };
    const runs = await Promise.all([1, 2, 3].map(() => searchParallel(cfg, { jobs: 3, properties, maxStates: 10_000_000, symmetry: true, por: false })));
    expect(runs[0]?.violations.length).toBeGreaterThan(0);
    for (const r of runs.slice(1)) {
      expect(r.violations).toEqual(runs[0]?.violations);
      expect(r.witnesses).toEqual(runs[0]?.witnesses);
    }
  });

  it('stops at --max-memory and at --max-seconds, and says so', async () => {
    // a thread checks memory and time as a level starts and every 4,096 states in it
    const memory = await searchParallel(alternating('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxBytes: 1, symmetry: true, por: true });
    expect(memory).toMatchObject({ complete: false, stopped: 'max-memory' });
    expect(memory.frontier).toBeGreaterThan(0);
    const time = await searchParallel(alternating('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxMillis: 0, symmetry: true, por: true });
    expect(time).toMatchObject({ complete: false, stopped: 'max-time' });
  });

  it('a thread that fails fails the search (no hang): here, a property the threads cannot load', async () => {
    const made = { name: 'made-up', kind: 'always', check: () => ({ ok: true }) } as unknown as (typeof properties)[number];
    await expect(searchParallel(tiny('off'), { jobs: 2, properties: [made], maxStates: 10, symmetry: true, por: true })).rejects.toThrow(/no property named made-up/);
  });

  it('refuses fewer than two threads, and --shard with --jobs', async () => {
    await expect(searchParallel(tiny('off'), { jobs: 1, properties, maxStates: 10, symmetry: true, por: true })).rejects.toThrow(/jobs must be an integer ≥ 2/);
    await expect(checkPackedJobs(tiny('off'), { properties, maxStates: 10, jobs: 2, shard: { index: 0, count: 2 } })).rejects.toThrow(/do not combine/);
  });
});
