/**
 * The steered strategy (steer.ts) over budgets of checks: within 100 runs steering reaches what uniform
 * draws leave rare, and a default budget steered is not vacuous. Deep: 900 runs and a whole default
 * budget.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUNS, runCheck, unreachedPaths } from './check.ts';
import { RARE_PATH } from './rare.ts';

describe('steered runs, over budgets', () => {
  it('within 100 runs, the least reached of the rare paths is reached more often than under uniform draws (seeds 1–3)', async () => {
    // The rare combinations' paths (rare.ts RARE_PATH): uniform draws leave one of them to one or two runs.
    const least = async (seed: number, strategy: 'random' | 'steer'): Promise<number> => {
      const r = await runCheck({ variant: 'best-effort', runs: 100, seed, strategy });
      return Math.min(...Object.values(RARE_PATH).map((p) => r.variants[0]?.reached[p] ?? 0));
    };
    for (const seed of [1, 2, 3]) expect(await least(seed, 'steer'), `seed ${seed}`).toBeGreaterThan(await least(seed, 'random'));
  });

  it('a default budget steered reaches every required path: not vacuous', async () => {
    const r = await runCheck({ variant: 'barrier', runs: DEFAULT_RUNS, seed: 1, strategy: 'steer' });
    expect(unreachedPaths(r.variants)).toEqual([]);
    expect(r.exitCode).toBe(0);
  });
});
