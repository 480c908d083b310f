import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { alternating, tiny } from '../test-support/driver.ts';
import { checkPackedJobs } from './check.ts';
import { Engine } from './engine.ts';
import { searchParallel } from './parallel.ts';
import { searchPacked } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';
import { expectSameAsOneThread, expectShortestAsOneThread } from './test-support/threads.ts';

// Small configurations: each search here costs little beyond starting its threads. The larger ones, three
// threads and the fault world are in parallel.deep.test.ts.
describe('the parallel packed search (--jobs) visits what one thread visits', () => {
  it('tiny best-effort on 2 threads: the same states, finals, transitions, depth and verdicts', async () => {
    await expectSameAsOneThread(tiny('best-effort'), 2);
  });

  it('finds the review bug with a shortest counterexample, as checkPacked does (2 workers)', async () => {
    await expectShortestAsOneThread({ ...alternating('best-effort', 2), bugs: { sweepUpgradeRace: true } });
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

  it('stops at --max-memory and at --max-seconds, and says so; reports progress level by level', async () => {
    // a thread checks memory and time as a level starts and every 4,096 states in it
    const levels: number[] = [];
    const memory = await checkPackedJobs(alternating('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxBytes: 1, onProgress: (_expanded, states) => levels.push(states) });
    expect(memory).toMatchObject({ complete: false, stopped: 'max-memory' });
    expect(memory.frontier).toBeGreaterThan(0);
    expect(levels.at(-1)).toBe(memory.states);
    const time = await checkPackedJobs(alternating('best-effort', 3), { jobs: 2, properties, maxStates: 10_000_000, maxMillis: 0 });
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
