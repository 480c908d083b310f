/**
 * `--no-shrink`: the verdict of a failing check without the cost of shrinking it (a mutation killer runs
 * the gallery once per surviving mutant). The run it reports is the first that failed, replayable.
 */
import { describe, expect, it } from 'vitest';
import { runCheck } from './check.ts';

describe('no-shrink', () => {
  it('reports the first failing run unshrunk, with a token that replays the same failure', async () => {
    const quick = await runCheck({ variant: 'best-effort', bug: 'sweep-upgrade-race', seed: 1, shrink: false });
    const shrunk = await runCheck({ variant: 'best-effort', bug: 'sweep-upgrade-race', seed: 1 });
    expect(quick.exitCode).toBe(1);
    expect(quick.output).toMatch(/failed on run (\d+); not shrunk \(--no-shrink\)/);
    expect(shrunk.output).toMatch(/failed on run \d+; shrunk in \d+ steps/);
    // Same first failing run; the unshrunk one is at least as long.
    expect(quick.variants[0]?.runsToFailure).toBe(shrunk.variants[0]?.runsToFailure);
    expect(quick.variants[0]?.report?.trace.length ?? 0).toBeGreaterThanOrEqual(shrunk.variants[0]?.report?.trace.length ?? 0);
    const again = await runCheck({ variant: 'best-effort', replay: quick.token ?? '' });
    expect(again.exitCode).toBe(1);
    expect(again.variants[0]?.report?.failures.map((f) => f.check)).toEqual(quick.variants[0]?.report?.failures.map((f) => f.check));
  });
});
