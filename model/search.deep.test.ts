/**
 * Deep: the exhaustive plain search of the tiny configuration in the fault world for best-effort and
 * barrier (tens of thousands of states, each serialized and checked against every property, then a
 * second search for a deadlock). search.test.ts keeps off's fault world in `npm test`.
 */
import { describe, it } from 'vitest';
import { PINNED_FAULTS, expectFaultWorldHolds } from './test-support/fault-world.ts';

describe('the fault world (aborts, restarts, indeterminate compare-and-set, cleanup)', () => {
  for (const variant of ['best-effort', 'barrier'] as const) {
    it(`${variant}: ${PINNED_FAULTS[variant]} states, every property holds, no deadlock, the fault world is reached`, () => {
      expectFaultWorldHolds(variant);
    });
  }
});
