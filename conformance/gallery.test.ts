/**
 * The bug gallery: the canaries that prove the harness can fail. Each realistic bug, switched on in the
 * implementation, must be found by `sbkit check --bug NAME` within the default budget (exit 1), shrink
 * to a short counterexample, and replay from its token with the same failure; the same counterexample
 * must pass with the bug off (test-support/gallery-case.ts). The three bugs whose shrinking runs
 * thousands of runs are found here unshrunk (`--no-shrink`); gallery.deep.test.ts shrinks them too.
 */
import { describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { GALLERY_SEED, SHRUNK_IN_DEEP_TIER, galleryCase, gallerySbkit, shrunkBound } from './test-support/gallery-case.ts';

describe('bug gallery', () => {
  it.each(BUG_NAMES.filter((b) => !SHRUNK_IN_DEEP_TIER.includes(b)))('%s: sbkit check --bug finds it, shrinks it, and its replay fails the same way', async (bug) => {
    expect(await galleryCase(bug)).toBeLessThanOrEqual(shrunkBound(bug));
  });

  it.each(SHRUNK_IN_DEEP_TIER)('%s: sbkit check --bug finds it, and its replay fails the same way (shrunk in the deep tier)', async (bug) => {
    await galleryCase(bug, ['--no-shrink']);
  });

  it('a bug switched on where it cannot show is said so, not passed silently', async () => {
    const r = await gallerySbkit('check', '--variant', 'off', '--bug', 'barrier-lost-wakeup', '--runs', '3', '--seed', String(GALLERY_SEED));
    expect(r.code).toBe(0);
    expect(r.out).toContain('note: barrier-lost-wakeup lives in barrier, barrier-timeout; it cannot show on off');
  });
});
