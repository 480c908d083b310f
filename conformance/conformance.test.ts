/**
 * The conformance suite: the clean implementation against the model, every variant, many random
 * workloads × schedules. `npm test` runs the default budget on a fixed seed (reproducible CI);
 * `npm run test:deep` runs a long budget on a fresh seed, printed so that a failure can be replayed.
 */
import { describe, expect, it } from 'vitest';
import { VARIANTS, barrierHasDeadline } from '../impl/variants/index.ts';
import { DEFAULT_RUNS, runCheck } from './check.ts';
import { DEFAULT_FAULT_RATE } from './faults.ts';
import { DEADLINE_PATHS, LIMITS, ORDERS } from './reach.ts';

const deep = process.env['SBKIT_BUDGET'] === 'deep';
const runs = deep ? 4000 : DEFAULT_RUNS;
const seed = deep ? Date.now() % 2 ** 31 : 20261130;

describe(`conformance of the clean implementation (${runs} runs per variant, seed ${seed})`, () => {
  it.each(VARIANTS)('%s: every property, the audit and refinement hold', async (variant) => {
    const result = await runCheck({ variant, runs, seed });
    if (result.exitCode !== 0) console.error(result.output);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.variants[0]?.runs).toBe(runs);
    expect(result.summary).toContain(`seed ${seed}`);
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

  it.each(VARIANTS)('%s: hits every persist limit exactly and at ±1, and takes the rarer paths, in the default budget', async (variant) => {
    const result = await runCheck({ variant, runs, seed });
    const reached = result.variants[0]?.reached ?? {};
    // off never shares: no barrier flag to flip, no empty finish. Best-effort's empty finish receives the
    // batch only when it drops an instance's last reference after every pushing handle began its finish:
    // 1–7 runs in 500 over seeds 1–6, too rare to assert here (impl/test/no-data.test.ts shows it).
    // A superseded description is reported as a skip only under the barrier.
    const sharedOnly: readonly string[] = ['barrier-flag-flip', 'empty-finish', 'empty-finish-receives'];
    const expected = LIMITS.filter(
      (l) =>
        !(variant === 'off' && sharedOnly.includes(l)) &&
        !(variant === 'best-effort' && l === 'empty-finish-receives') &&
        !(variant !== 'barrier' && l === 'supersede-skip-reported') &&
        // a barrier's deadline's paths: only where the variant's barrier has one
        !(DEADLINE_PATHS.includes(l) && !barrierHasDeadline(variant)),
    );
    for (const limit of expected) expect(reached[limit] ?? 0, `${limit} never reached in ${runs} ${variant} runs`).toBeGreaterThan(0);
    // Several MV sinks (multi-sink.ts): runs with two sinks, and (where workers share) a sweep that one
    // sink's entry creation started removing another sink's dead entry.
    expect(reached['two-sinks'] ?? 0, 'no run had two sinks').toBeGreaterThan(0);
    if (variant !== 'off') expect(reached['cross-sink-removed'] ?? 0, `no sweep removed another sink's entry in ${runs} ${variant} runs`).toBeGreaterThan(0);
  });
});
