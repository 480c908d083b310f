/**
 * The exhaustive plain search of the tiny configuration in the fault world, shared by search.test.ts
 * (off, `npm test`) and search.deep.test.ts (best-effort and barrier, seconds each).
 */
import { expect } from 'vitest';
import { properties } from '../../spec/properties.ts';
import { search, shortestTrace } from '../search.ts';
import { isFinal, isSealed } from '../system.ts';
import { tiny } from './driver.ts';

/** ≤ 1 abort, ≤ 1 indeterminate compare-and-set, cleanup. */
export const FAULT_WORLD = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/** Pinned (tiny config with faults): a change to the fault world's model changes these. */
export const PINNED_FAULTS = { off: 590, 'best-effort': 22053, barrier: 7563 } as const;

/** The pinned states, every property holds, no deadlock, and the fault world is reached. */
export function expectFaultWorldHolds(variant: keyof typeof PINNED_FAULTS): void {
  const cfg = { ...tiny(variant), faults: FAULT_WORLD };
  const r = search(cfg, { maxStates: 200_000, properties });
  expect(r.complete).toBe(true);
  expect(r.states).toBe(PINNED_FAULTS[variant]);
  expect(r.violations).toEqual([]);
  expect(r.witnesses.map((w) => w.property)).toEqual(expect.arrayContaining(['sometimes-replica-restarted', 'sometimes-indeterminate-commit']));
  expect(shortestTrace(cfg, (s) => isFinal(cfg, s) && !isSealed(s), 200_000)).toBeNull();
}
