/**
 * The minimizer's neighbours of a fault schedule's overrides (the first compare-and-sets and deletes): an
 * ok in such a list still replaces the storage code of its call, so trailing oks are a simplification of
 * their own, and a list of only oks is one step from none.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidates } from './minimize.ts';
import { workloadArb, type Workload } from './workload.ts';

// Any one-sink workload: these neighbours keep it as it is (the filter below takes only those; with a
// second sink every neighbour's loads are refitted).
const workload = fc.sample(workloadArb('off').filter((w) => w.sinkLoads === undefined), { seed: 1, numRuns: 1 })[0] as Workload;

const faultNeighbours = (faults: { storage: number[]; aborts: []; heal: number; cas?: number[]; deletes?: number[] }) =>
  [...candidates({ workload, schedule: { choices: [], starve: [], faults } })].flatMap((c) => (c.workload === workload && c.schedule.faults !== undefined ? [c.schedule.faults] : []));

describe('minimize: the overrides of the first compare-and-sets and deletes', () => {
  it('drops a list, trims its trailing oks, and makes each fault ok', () => {
    const got = faultNeighbours({ storage: [], aborts: [], heal: 9, deletes: [0, 3, 0, 0] });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9 });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9, deletes: [0, 3] });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9, deletes: [0, 0, 0, 0] });
  });

  it('treats compare-and-sets the same way; a list of only oks is trimmed to none, never to an empty list', () => {
    const got = faultNeighbours({ storage: [1], aborts: [], heal: 9, cas: [0, 2, 0] });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9 });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9, cas: [0, 2] });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9, cas: [0, 0, 0] });
    const oks = faultNeighbours({ storage: [1], aborts: [], heal: 9, cas: [0, 0] });
    expect(oks.filter((f) => f.cas !== undefined && f.cas.length !== 2)).toEqual([]);
    expect(oks).toContainEqual({ storage: [1], aborts: [], heal: 9 });
  });
});
