/**
 * The parallel packed search (--jobs) held to one thread's, shared by parallel.test.ts (small
 * configurations, `npm test`) and parallel.deep.test.ts (larger ones and repeated runs).
 */
import { expect } from 'vitest';
import { properties } from '../../../spec/properties.ts';
import type { ModelConfig } from '../../config.ts';
import { checkPacked, checkPackedJobs } from '../check.ts';
import { Engine } from '../engine.ts';
import { searchParallel } from '../parallel.ts';
import { searchPacked } from '../search.ts';
import { SymmetryReducer } from '../symmetry.ts';

export const FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/** The single-threaded search the threads must reproduce exactly: the same reductions, representatives by content. */
function oneThread(cfg: ModelConfig, por: boolean) {
  const engine = new Engine(cfg, properties);
  return searchPacked(cfg, { maxStates: 10_000_000, reducer: new SymmetryReducer(engine), por }, engine);
}

const lengths = (xs: readonly { property: string; trace: readonly unknown[] }[]) => Object.fromEntries(xs.map((x) => [x.property, x.trace.length]));

/** On `jobs` threads, with and without the partial-order reduction: the same states, finals, transitions, depth and verdicts as one thread. */
export async function expectSameAsOneThread(cfg: ModelConfig, jobs: number): Promise<void> {
  for (const por of [true, false]) {
    const one = oneThread(cfg, por);
    const many = await searchParallel(cfg, { jobs, properties, maxStates: 10_000_000, symmetry: true, por });
    expect(many).toMatchObject({ states: one.states, finals: one.finals, transitions: one.transitions, depth: one.depth, complete: true, stopped: null });
    expect(many.unreached).toEqual(one.unreached);
    // BFS levels kept in step: witnesses and violations as short as one thread's (each trace was replayed)
    expect(lengths(many.witnesses)).toEqual(lengths(one.witnesses));
    expect(lengths(many.violations)).toEqual(lengths(one.violations));
  }
}

/** A violation found on two threads, re-searched to be shortest, as checkPacked finds it on one. */
export async function expectShortestAsOneThread(cfg: ModelConfig): Promise<void> {
  const one = checkPacked(cfg, { properties, maxStates: 10_000_000 });
  const many = await checkPackedJobs(cfg, { properties, maxStates: 10_000_000, jobs: 2 });
  expect(one.violations.length).toBeGreaterThan(0);
  expect(lengths(many.violations)).toEqual(lengths(one.violations));
  expect(many.shortest).toEqual(one.shortest);
  expect(many.states).toBe(one.states);
}
