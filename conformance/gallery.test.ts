/**
 * The bug gallery: the canaries that prove the harness can fail. Each realistic bug, switched on in the
 * implementation, must be found within the default budget, shrink to a short counterexample, and
 * replay from its token with the same failure.
 */
import { describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { BUG_VARIANTS, DEFAULT_RUNS, runCheck } from './check.ts';
import { decodeToken } from './token.ts';

const seed = 20261130;

describe('bug gallery', () => {
  it.each(BUG_NAMES)('%s is found, shrunk and replayable', async (bug) => {
    const result = await runCheck({ variant: 'all', bug, seed });
    expect(result.exitCode, result.summary).toBe(1);
    const failed = result.variants.find((v) => v.failed);
    expect(failed).toBeDefined();
    expect(BUG_VARIANTS[bug]).toContain(failed?.variant);
    expect(failed?.runsToFailure).toBeLessThanOrEqual(DEFAULT_RUNS);
    const report = failed?.report;
    expect(report?.failures.length).toBeGreaterThan(0);
    // Shrinking: a counterexample a person can read (every gallery bug fits in a handful of events).
    expect(report?.trace.length).toBeLessThanOrEqual(20);

    // The report is the reproduction: seed, workload, schedule, failed checks, executed events, log, replay.
    for (const part of ['seed', 'workload:', 'schedule:', 'what failed:', 'executed protocol events', 'scheduler log', 'replay: sbkit check --replay sb1.']) {
      expect(result.output).toContain(part);
    }
    const token = /--replay (\S+)/.exec(result.output)?.[1] ?? '';
    expect(decodeToken(token).bug).toBe(bug);
    const replayed = await runCheck({ variant: 'all', replay: token });
    expect(replayed.exitCode).toBe(1);
    expect(replayed.variants[0]?.report?.failures.map((f) => f.check)).toEqual(report?.failures.map((f) => f.check));
    expect(replayed.variants[0]?.report?.trace).toEqual(report?.trace);
  });

  it('the clean implementation replays a gallery counterexample without failing', async () => {
    const found = await runCheck({ variant: 'all', bug: 'threshold-inclusive', seed });
    const token = /--replay (\S+)/.exec(found.output)?.[1] ?? '';
    const c = decodeToken(token);
    const { runOnce } = await import('./harness.ts');
    const clean = await runOnce(c.workload, c.schedule);
    expect(clean.failures).toEqual([]);
  });
});
