/**
 * The steered strategy (steer.ts): one seed gives the same runs, a run derived from the corpus replays
 * from its token alone, and a failure it finds replays and is found again. What steering reaches over
 * larger budgets: steer.deep.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Variant } from '../vocab/index.ts';
import { runCheck, tokenOf } from './check.ts';
import { runOnce } from './harness.ts';
import { FAULT_WORLD } from './rare.ts';
import { QUICK_SWEEP, Steering } from './steer.ts';
import { decodeToken } from './token.ts';
import { DEFAULT_BOUNDS } from './workload.ts';

/** `runs` runs of a steered job as check-variant.ts drives them: their tokens, and which were derived. */
async function steered(variant: Variant, seed: number, runs: number): Promise<{ tokens: string[]; derived: boolean[]; steering: Steering }> {
  const steering = new Steering(variant, DEFAULT_BOUNDS, 'steer', undefined, seed);
  const tokens: string[] = [];
  const derived: boolean[] = [];
  await fc.assert(
    fc.asyncProperty(steering.arb, async (run) => {
      const report = await runOnce(run.workload, run.schedule, undefined);
      steering.observe(run, report);
      tokens.push(tokenOf(report));
      derived.push(steering.derived(run));
    }),
    { seed, numRuns: runs },
  );
  return { tokens, derived, steering };
}

describe('steered runs', () => {
  it('open with a sweep of shapes, each run of it between two drawn as usual; a variant sharing nothing sweeps only what holds there, and only the fault world sweeps its shapes', () => {
    const steering = new Steering('best-effort', DEFAULT_BOUNDS, 'mixed', undefined, 1);
    const plain = QUICK_SWEEP.filter((c) => !FAULT_WORLD.includes(c));
    const order = Array.from({ length: 24 }, (_, k) => steering.swept(k));
    expect(order.filter((_, k) => k % 2 === 0).every((x) => x === undefined)).toBe(true);
    expect(order.filter((_, k) => k % 2 === 1)).toEqual([...plain, ...plain, undefined, undefined]);
    const faulty = new Steering('best-effort', DEFAULT_BOUNDS, 'mixed', 0.1, 1);
    expect(Array.from({ length: 2 * QUICK_SWEEP.length }, (_, k) => faulty.swept(k)).filter((_, k) => k % 2 === 1)).toEqual([...QUICK_SWEEP]);
    const off = new Steering('off', DEFAULT_BOUNDS, 'steer', undefined, 1);
    expect(Array.from({ length: 4 }, (_, k) => off.swept(k))).toEqual([undefined, 'supersede-hand', undefined, 'supersede-hand']);
    const offFaulty = new Steering('off', DEFAULT_BOUNDS, 'steer', 0.1, 1);
    expect(Array.from({ length: 4 }, (_, k) => offFaulty.swept(k))).toEqual([undefined, 'lost-race-delete-fails', undefined, 'supersede-hand']);
    // The runs drawn carry their shape: what each one sets.
    const runs = fc.sample(steering.arb, { numRuns: 2 * plain.length, seed: 1 });
    const shaped = new Map(plain.map((shape, i) => [shape, runs[2 * i + 1]?.workload]));
    expect(shaped.get('late-reopen')?.sinkLoads?.length).toBe(1);
    expect(shaped.get('threshold')?.loads.flat().every((l) => l === 'boundary')).toBe(true);
    expect([shaped.get('empty-last')?.noData, shaped.get('empty-last')?.barrierFlags]).toEqual(['finish', [true]]);
    expect(new Set(shaped.get('flag-flip-in-flight')?.barrierFlags)).toEqual(new Set([true, false]));
    expect([shaped.get('supersede-hand')?.replicas, shaped.get('supersede-hand')?.barrierFlags]).toEqual([2, [false]]);
    for (const [i] of plain.entries()) expect(runs[2 * i + 1]?.schedule.starve).toEqual([{ replica: 0, worker: 1 }]);
    // In the fault world the sweep opens with two replicas racing, the first deletes failing.
    const first = fc.sample(faulty.arb, { numRuns: 2, seed: 1 })[1];
    expect([first?.workload.replicas, first?.workload.pacing, first?.schedule.faults?.aborts]).toEqual([2, 'lockstep', []]);
  });

  it('one seed gives the same runs, derived ones among them; another seed others', async () => {
    const a = await steered('best-effort', 11, 60);
    const b = await steered('best-effort', 11, 60);
    expect(b.tokens).toEqual(a.tokens);
    expect(b.derived).toEqual(a.derived);
    expect(a.derived.filter(Boolean).length).toBeGreaterThan(2);
    expect(a.steering.corpus.length).toBeGreaterThan(5);
    expect((await steered('best-effort', 12, 60)).tokens).not.toEqual(a.tokens);
  });

  it('a derived run replays from its token alone: the same trace', async () => {
    const { tokens, derived } = await steered('barrier', 5, 30);
    const picked = tokens.filter((_, i) => derived[i] === true).slice(0, 4);
    expect(picked.length).toBeGreaterThan(0);
    for (const token of picked) {
      const c = decodeToken(token);
      const again = await runOnce(c.workload, c.schedule, undefined);
      expect(tokenOf(again)).toBe(token);
      const first = await runOnce(c.workload, c.schedule, undefined);
      expect(again.trace).toEqual(first.trace);
    }
  });

  it('a failure found by steering prints a token that replays it; the same seed finds it again', async () => {
    const opts = { variant: 'all', bug: 'stale-hand-appended', seed: 3, strategy: 'steer', shrink: false } as const;
    const found = await runCheck(opts);
    expect(found.exitCode).toBe(1);
    expect(found.summary).toContain('strategy steer');
    const token = found.token ?? '';
    const replayed = await runCheck({ variant: 'all', replay: token });
    expect(replayed.exitCode).toBe(1);
    expect(replayed.variants[0]?.report?.failures.map((f) => f.check)).toEqual(found.variants.find((v) => v.failed)?.report?.failures.map((f) => f.check));
    const again = await runCheck(opts);
    expect(again.token).toBe(token);
    expect(again.variants.map((v) => v.runsToFailure)).toEqual(found.variants.map((v) => v.runsToFailure));
    // Over two jobs (each its own corpus, from its own seed): again the same failing run.
    const twoJobs = await runCheck({ ...opts, jobs: 2 });
    expect(twoJobs.exitCode).toBe(1);
    expect((await runCheck({ ...opts, jobs: 2 })).token).toBe(twoJobs.token);
  });

});
