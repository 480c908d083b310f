/**
 * The conformance suite on a budget: the clean implementation against the model, every variant, `runs`
 * random workloads × schedules per variant from `seed`, without and with faults. conformance.test.ts
 * runs it on the default budget and a fixed seed, conformance.deep.test.ts on a long one and a fresh seed.
 */
import { describe, expect, it } from 'vitest';
import { barrierHasDeadline, sharesAtAll, VARIANTS } from '../../impl/variants/index.ts';
import { runCheck } from '../check.ts';
import { DEFAULT_FAULT_RATE } from '../faults.ts';
import { DEADLINE_PATHS, LIMITS, ORDERS, UNREQUIRED } from '../reach.ts';

export function conformanceSuite(runs: number, seed: number): void {
  describe(`conformance of the clean implementation (${runs} runs per variant, seed ${seed})`, () => {
    it.each(VARIANTS)('%s: every property, the audit and refinement hold; every persist limit is hit exactly and at ±1, and the rarer paths are taken', async (variant) => {
      const result = await runCheck({ variant, runs, seed });
      if (result.exitCode !== 0) console.error(result.output);
      expect(result.exitCode, result.output).toBe(0);
      expect(result.variants[0]?.runs).toBe(runs);
      expect(result.summary).toContain(`seed ${seed}`);
      const reached = result.variants[0]?.reached ?? {};
      // A variant that never shares has no barrier flag to flip, no empty finish, no barrier skip. The
      // rarest combinations are drawn on purpose (rare.ts), so every sharing variant takes every path.
      const sharedOnly: readonly string[] = ['barrier-flag-flip', 'empty-finish', 'empty-finish-receives', 'supersede-skip-reported'];
      // A barrier's deadline's paths: only where the variant's barrier has one.
      // And the paths counted but not required (reach.ts UNREQUIRED: too rare for every strategy's budget).
      const expected = LIMITS.filter((l) => (sharesAtAll(variant) || !sharedOnly.includes(l)) && (barrierHasDeadline(variant) || !DEADLINE_PATHS.includes(l)) && !UNREQUIRED.includes(l));
      for (const limit of expected) expect(reached[limit] ?? 0, `${limit} never reached in ${runs} ${variant} runs`).toBeGreaterThan(0);
      // Several MV sinks (multi-sink.ts): runs with two sinks, and (where workers share) a sweep that one
      // sink's entry creation started removing another sink's dead entry.
      expect(reached['two-sinks'] ?? 0, 'no run had two sinks').toBeGreaterThan(0);
      if (sharesAtAll(variant)) expect(reached['cross-sink-removed'] ?? 0, `no sweep removed another sink's entry in ${runs} ${variant} runs`).toBeGreaterThan(0);
    });

    it.each(VARIANTS)('%s, in the fault world (storage faults, aborts, restarts, cleanup): every check holds and the faults were there', async (variant) => {
      const result = await runCheck({ variant, runs, seed, faults: DEFAULT_FAULT_RATE });
      if (result.exitCode !== 0) console.error(result.output);
      expect(result.exitCode, result.output).toBe(0);
      const tally = result.variants[0]?.faults;
      // Not vacuous: every kind of fault was injected and survived, replicas were aborted and restarted,
      // what they leaked was collected, and the protocol saw an indeterminate commit and a restart.
      for (const kind of ['transient', 'indeterminate-applied', 'indeterminate-lost', 'permanent']) expect(tally?.injected[kind] ?? 0, kind).toBeGreaterThan(0);
      expect(tally?.aborts ?? 0).toBeGreaterThan(0);
      expect(tally?.restarts).toBe(tally?.aborts);
      expect(tally?.leaked ?? 0).toBeGreaterThan(0);
      expect(tally?.collected).toBeGreaterThanOrEqual(tally?.leaked ?? 0);
      const seen = result.variants[0]?.witnessed ?? {};
      expect(seen['sometimes-replica-restarted'] ?? 0).toBeGreaterThan(0);
      expect(seen['sometimes-indeterminate-commit'] ?? 0).toBeGreaterThan(0);
      expect(result.summary).toMatch(/faults at 0\.1: .* injected, \d+ aborts, \d+ restarts, .* — all survived/);
    });

    it('reaches the interesting orders, so passing is not vacuous', async () => {
      const result = await runCheck({ variant: 'best-effort', runs: 150, seed });
      const reached = result.variants[0]?.reached ?? {};
      for (const order of ORDERS) expect(reached[order] ?? 0, `order ${order} never reached`).toBeGreaterThan(0);
      const seen = result.variants[0]?.witnessed ?? {};
      // Overlap groups (a late handle after the others finished), both kinds in one append, and a
      // replica losing the race: each must be witnessed by the random schedules.
      expect(seen['sometimes-several-batches-for-one-id'] ?? 0).toBeGreaterThan(0);
      expect(seen['sometimes-fallback-and-shared-in-one-append'] ?? 0).toBeGreaterThan(0);
      expect(seen['sometimes-refused-append'] ?? 0).toBeGreaterThan(0);
    });
  });
}
