/**
 * One gallery bug through the command line, as a user meets it: `sbkit check --bug NAME` must fail with
 * a complete report (seed, workload, schedule, what failed, the executed events, the scheduler log, a
 * replay token), the token must replay with the same failure, and the same counterexample must pass
 * with the bug off — the bug, not the harness, fails it. conformance/gallery.test.ts shrinks every bug
 * but the three whose shrinking is longest, gallery.deep.test.ts every one; each within its bound.
 */
import { expect } from 'vitest';
import { FAULT_BUGS, type BugName } from '../../vocab/index.ts';
import { main } from '../../explore/cli.ts';
import { captureIo } from '../../explore/io.ts';
import { BUG_VARIANTS } from '../check.ts';
import { runOnce } from '../harness.ts';
import { decodeToken } from '../token.ts';

export const GALLERY_SEED = 20261130;

/**
 * The most events a shrunk counterexample of `bug` may have. The fault world's bugs need a crash and a
 * restart (or a second replica) around the interval; a supersede bug needs a second replica to overtake
 * the first across two intervals (their lengths over many seeds: docs/measurements.md#gallery).
 * batch-ids-collide-across-sinks needs two sinks, each with its own frontier, mint, stage and open before
 * the second open meets the first's live entry.
 */
export function shrunkBound(bug: BugName): number {
  return FAULT_BUGS.includes(bug) || bug === 'stale-hand-appended' ? 45 : bug === 'batch-ids-collide-across-sinks' ? 40 : 20;
}

/**
 * The gallery bugs whose shrinking runs thousands of runs at the gallery's seed (docs/measurements.md
 * "shrink runs"): the fast tier finds them unshrunk, the deep tier shrinks them with the others.
 */
export const SHRUNK_IN_DEEP_TIER: readonly BugName[] = ['mismatch-delete-error-swallowed', 'stale-hand-appended', 'restart-rewrites-appended-interval'];

/** `sbkit ARGV` in this process: its exit code and what it printed. */
export async function gallerySbkit(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({});
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Finds `bug` (with `extra` flags), checks the report, its replay and the clean run; the executed events. */
export async function galleryCase(bug: BugName, extra: readonly string[] = []): Promise<number> {
  const found = await gallerySbkit('check', '--bug', bug, '--seed', String(GALLERY_SEED), ...extra);
  expect(found.code, found.out + found.err).toBe(1);
  for (const part of [`seed ${GALLERY_SEED}`, 'workload:', 'schedule:', 'what failed:', 'executed protocol events', 'scheduler log', 'replay: sbkit check --replay sb1.']) {
    expect(found.out).toContain(part);
  }
  expect(found.out).toMatch(new RegExp(`FAILED (${BUG_VARIANTS[bug].join('|')}) with bug ${bug}`));
  const events = Number(/executed protocol events \((\d+)\)/.exec(found.out)?.[1]);
  expect(events).toBeGreaterThan(0);

  const token = /--replay (\S+)/.exec(found.out)?.[1] ?? '';
  const counterexample = decodeToken(token);
  expect(counterexample.bug).toBe(bug);
  const replayed = await gallerySbkit('check', '--replay', token);
  expect(replayed.code).toBe(1);
  const whatFailed = (out: string) => out.slice(out.indexOf('what failed:'), out.indexOf('replay:'));
  expect(whatFailed(replayed.out)).toBe(whatFailed(found.out));

  const clean = await runOnce(counterexample.workload, counterexample.schedule);
  expect(clean.failures, `${bug}'s counterexample without the bug`).toEqual([]);
  return events;
}
