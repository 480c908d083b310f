import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { config, tiny, u } from '../test-support/driver.ts';
import { checkPacked, checkPackedJobs } from './check.ts';
import { Engine } from './engine.ts';
import { searchParallel } from './parallel.ts';
import { searchPacked } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';

/** The defaults of `sbkit model --check` at W workers (explore/model-check.ts checkConfig), without explore/. */
const check = (variant: ModelConfig['variant'], workers: number, over: Partial<ModelConfig> = {}): ModelConfig =>
  config({
    variant,
    workersPerProcess: workers,
    updates: Array.from({ length: workers }, (_, w) => u(w, 0, w, w % 2 === 0 ? 10 : 100)),
    maxBytesChoices: [0, 50, 1000],
    ...over,
  });

const FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/** The single-threaded search the threads must reproduce exactly: the same reductions, representatives by content. */
function oneThread(cfg: ModelConfig, por: boolean) {
  const engine = new Engine(cfg, properties);
  return searchPacked(cfg, { maxStates: 10_000_000, reducer: new SymmetryReducer(engine, { order: 'content' }), por }, engine);
}

const lengths = (xs: readonly { property: string; trace: readonly unknown[] }[]) => Object.fromEntries(xs.map((x) => [x.property, x.trace.length]));

describe('the parallel packed search (--jobs) visits what one thread visits', () => {
  it.each<[string, ModelConfig, number]>([
    ['tiny best-effort', tiny('best-effort'), 2],
    ['tiny barrier', tiny('barrier'), 3],
    ['check best-effort, 4 workers', check('best-effort', 4), 2],
    ['check barrier, 4 workers', check('barrier', 4), 3],
    ['two replicas, two intervals (supersede)', config({ variant: 'best-effort', replicas: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 5), u(1, 1, 0, 5)], knobs: { maxBytesByLower: [1000], barrierByDesired: [false] } }), 2],
    ['two processes', config({ variant: 'barrier', processes: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 20), u(2, 0, 2, 10), u(3, 0, 3, 20)] }), 2],
    ['the fault world', { ...tiny('best-effort'), faults: FAULTS }, 2],
  ])('%s on %i threads: the same states, finals, transitions, depth and verdicts', async (_name, cfg, jobs) => {
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
    const cfg: ModelConfig = { ...check('best-effort', 3), bugs: { sweepUpgradeRace: true } };
    const one = checkPacked(cfg, { properties, maxStates: 10_000_000 });
    const many = await checkPackedJobs(cfg, { properties, maxStates: 10_000_000, jobs: 2 });
    expect(one.violations.length).toBeGreaterThan(0);
    expect(lengths(many.violations)).toEqual(lengths(one.violations));
    expect(many.shortest).toEqual(one.shortest);
    expect(many.states).toBe(one.states);
  });

  it('stops at --max-states and says so', async () => {
    const r = await searchParallel(check('best-effort', 3), { jobs: 2, properties, maxStates: 100, symmetry: true, por: true });
    expect(r).toMatchObject({ complete: false, stopped: 'max-states' });
    expect(r.states).toBeLessThanOrEqual(100);
    expect(r.dropped).toBeGreaterThan(0);
  });

  it('stops at --max-memory and at --max-seconds, and says so', async () => {
    // a thread checks memory and time as a level starts and every 4,096 states in it
    const memory = await searchParallel(check('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxBytes: 1, symmetry: true, por: true });
    expect(memory).toMatchObject({ complete: false, stopped: 'max-memory' });
    expect(memory.frontier).toBeGreaterThan(0);
    const time = await searchParallel(check('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxMillis: 0, symmetry: true, por: true });
    expect(time).toMatchObject({ complete: false, stopped: 'max-time' });
  });

  it('refuses fewer than two threads, and --shard with --jobs', async () => {
    await expect(searchParallel(tiny('off'), { jobs: 1, properties, maxStates: 10, symmetry: true, por: true })).rejects.toThrow(/jobs must be an integer ≥ 2/);
    await expect(checkPackedJobs(tiny('off'), { properties, maxStates: 10, jobs: 2, shard: { index: 0, count: 2 } })).rejects.toThrow(/do not combine/);
  });
});
