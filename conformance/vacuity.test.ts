/**
 * A check that never took a path it exists to exercise fails as vacuous at the default budget
 * (reach.ts requiredReach): the model allows a supersede but never requires one, so a mint that lost
 * the path refined it and passed (seven Stryker survivors in impl/sink/mint.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUNS, describeUnreached, runCheck, unreachedPaths } from './check.ts';
import { requiredReach } from './reach.ts';

describe('vacuity', () => {
  it('names the variant and the path a budget lost, with the counts', async () => {
    const r = await runCheck({ variant: 'off', runs: DEFAULT_RUNS, seed: 1 });
    const off = r.variants[0];
    if (off === undefined) throw new Error('no outcome');
    for (const path of requiredReach('off')) expect(off.reached[path] ?? 0, path).toBeGreaterThan(0);
    const lost = { ...off, reached: { ...off.reached, supersede: 0, bump: 0 } };
    const unreached = unreachedPaths([lost]);
    expect(unreached).toEqual([{ variant: 'off', runs: DEFAULT_RUNS, paths: ['bump', 'supersede'] }]);
    // conformance.test.ts holds the default budget of every variant to exit 0, vacuity included.
    expect(r.exitCode).toBe(0);
    expect(unreachedPaths(r.variants)).toEqual([]);
    const text = describeUnreached(unreached, true, { variant: 'off', seed: 1, runs: DEFAULT_RUNS, faults: 0.1 });
    expect(text).toContain('FAILED (vacuous): every check held, but these paths');
    expect(text).toContain('  off: bump, supersede (0 of 500 runs)');
    expect(text).toMatch(/rerun: sbkit check --seed 1 --runs 500 --variant off --faults 0\.1$/);
  });

  it('a small budget that misses a path only notes it; the verdict stays ok', async () => {
    const r = await runCheck({ variant: 'barrier', runs: 3, seed: 1 });
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/note: paths a default budget \(500 runs per variant\) must take were not reached in this smaller one:\n {2}barrier: .*\(0 of 3 runs\)/);
    expect(r.summary).toMatch(/^sbkit check: ok/);
  });
});
