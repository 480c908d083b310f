/**
 * Deep: twelve random walks per configuration stepped by XState itself and by the compiled machines,
 * compared at every step (each step computes every successor twice and serializes each). compiled.test.ts
 * walks three per configuration in `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { walkBoth } from './test-support/compiled-walks.ts';

describe('the compiled machines equal XState on random walks, twelve per configuration', () => {
  it('every successor (event and next state, key order included) is the same at every step', async () => {
    expect(await walkBoth(12)).toBeGreaterThan(5000);
  });
});
