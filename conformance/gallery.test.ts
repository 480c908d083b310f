/**
 * The bug gallery: the canaries that prove the harness can fail. Each realistic bug, switched on in the
 * implementation, must be found by `sbkit check --bug NAME` within the default budget (exit 1), shrink
 * to a short counterexample, and replay from its token with the same failure and exit code; the same
 * counterexample must pass with the bug off.
 */
import { describe, expect, it } from 'vitest';
import { BUG_NAMES, FAULT_BUGS } from '../vocab/index.ts';
import { main } from '../explore/cli.ts';
import { captureIo } from '../explore/io.ts';
import { BUG_VARIANTS } from './check.ts';
import { runOnce } from './harness.ts';
import { decodeToken } from './token.ts';

const seed = 20261130;

async function sbkit(...argv: string[]) {
  const io = captureIo({});
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('bug gallery', () => {
  it.each(BUG_NAMES)('%s: sbkit check --bug finds it, shrinks it, and its replay fails the same way', async (bug) => {
    const found = await sbkit('check', '--bug', bug, '--seed', String(seed));
    expect(found.code, found.out + found.err).toBe(1);
    // The report is the reproduction: seed, workload, schedule, failed checks, executed events, log, replay.
    for (const part of [`seed ${seed}`, 'workload:', 'schedule:', 'what failed:', 'executed protocol events', 'scheduler log', 'replay: sbkit check --replay sb1.']) {
      expect(found.out).toContain(part);
    }
    expect(found.out).toMatch(new RegExp(`FAILED (${BUG_VARIANTS[bug].join('|')}) with bug ${bug}`));
    // Shrinking: a counterexample a person can read.
    const events = Number(/executed protocol events \((\d+)\)/.exec(found.out)?.[1]);
    expect(events).toBeGreaterThan(0);
    // The fault world's bugs need a crash and a restart (or a second replica) around the interval; a
    // supersede bug needs a second replica to overtake the first across two intervals (their lengths over
    // many seeds: docs/measurements.md#gallery). batch-ids-collide-across-sinks needs two sinks, each with
    // its own frontier, mint, stage and open before the second open meets the first's live entry.
    expect(events).toBeLessThanOrEqual(FAULT_BUGS.includes(bug) || bug === 'stale-hand-appended' ? 45 : bug === 'batch-ids-collide-across-sinks' ? 40 : 20);

    const token = /--replay (\S+)/.exec(found.out)?.[1] ?? '';
    const counterexample = decodeToken(token);
    expect(counterexample.bug).toBe(bug);
    const replayed = await sbkit('check', '--replay', token);
    expect(replayed.code).toBe(1);
    const whatFailed = (out: string) => out.slice(out.indexOf('what failed:'), out.indexOf('replay:'));
    expect(whatFailed(replayed.out)).toBe(whatFailed(found.out));

    // The same counterexample passes on the clean implementation: the bug, not the harness, fails it.
    const clean = await runOnce(counterexample.workload, counterexample.schedule);
    expect(clean.failures, `${bug}'s counterexample without the bug`).toEqual([]);
  });

  it('a bug switched on where it cannot show is said so, not passed silently', async () => {
    const r = await sbkit('check', '--variant', 'off', '--bug', 'barrier-lost-wakeup', '--runs', '3', '--seed', String(seed));
    expect(r.code).toBe(0);
    expect(r.out).toContain('note: barrier-lost-wakeup lives in barrier, barrier-timeout; it cannot show on off');
  });
});
