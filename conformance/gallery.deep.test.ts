/**
 * The bug gallery, every bug shrunk: `sbkit check --bug NAME` shrinks each counterexample to one a
 * person can read (within test-support/gallery-case.ts `shrunkBound`), which still replays from its
 * token with the same failure and passes with the bug off. Deep: the fast tier leaves the three bugs
 * whose shrinking runs thousands of runs unshrunk.
 */
import { describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { galleryCase, shrunkBound } from './test-support/gallery-case.ts';

describe('bug gallery, shrunk', () => {
  it.each(BUG_NAMES)('%s: sbkit check --bug shrinks it to a short counterexample that fails the same way', async (bug) => {
    expect(await galleryCase(bug)).toBeLessThanOrEqual(shrunkBound(bug));
  });
});
