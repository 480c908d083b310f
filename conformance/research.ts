/**
 * Re-search for a smaller counterexample. Shrinking and minimization (minimize.ts) only walk downhill from
 * the run that failed first; a race that needs its exact interleaving can leave them stuck at a long run
 * (every simplification changes the interleaving, and the failure with it). When the minimized run is
 * still longer than `SHORT_ENOUGH` events, or diverges after `DIVERGES_SOON_ENOUGH`, fresh runs are drawn
 * on small shapes, smallest first — the same variant, bug, strategy and fault rate; the smallest shape
 * as drawn, then with the counterexample's own settings (all but its shape and loads) — and the
 * shortest few that fail the same way (minimize.ts `sameFailure`) are minimized in turn; the shortest result replaces it.
 * Deterministic: the draws come from the check's seed; the result is an ordinary run, replayed by its
 * token like any other.
 */
import fc from 'fast-check';
import type { BugName, Variant } from '../vocab/index.ts';
import { runOnce, type RunReport } from './harness.ts';
import { divergenceOf, minimize, sameFailure, shorter } from './minimize.ts';
import { runArb } from './rare.ts';
import type { Strategy } from './schedule.ts';
import type { Workload, WorkloadBounds } from './workload.ts';

/** A counterexample of at most this many events, diverging within `DIVERGES_SOON_ENOUGH`, is short
 * enough to read: no re-search. */
export const SHORT_ENOUGH = 20;
export const DIVERGES_SOON_ENOUGH = 12;

/** Failing runs of a shape minimized in turn: the shortest few (the shortest as drawn need not
 * minimize furthest). */
const MINIMIZED_PER_SHAPE = 2;

/** The small shapes searched, smallest first, and the runs drawn on each. */
const TIERS: readonly { readonly bounds: WorkloadBounds; readonly runs: number; readonly tunables?: true }[] = [
  { bounds: { maxWorkersPerProcess: 2, maxProcesses: 1, maxReplicas: 1, maxIntervals: 2 }, runs: 150 },
  { bounds: { maxWorkersPerProcess: 2, maxProcesses: 1, maxReplicas: 1, maxIntervals: 2 }, runs: 100, tunables: true },
  { bounds: { maxWorkersPerProcess: 2, maxProcesses: 1, maxReplicas: 2, maxIntervals: 2 }, runs: 150 },
  { bounds: { maxWorkersPerProcess: 3, maxProcesses: 2, maxReplicas: 2, maxIntervals: 3 }, runs: 150 },
];

/** The drawn shape and loads (replicas, processes, workers, intervals, as-of, threshold, knob, loads; one
 * sink) with every other setting of `found`: a failure that needs a rare setting (a run limit, a blob
 * target, a pacing, a variant option) is drawn again on a small shape. Exported for tests. */
export function withTunables(drawn: Workload, found: Workload): Workload {
  const { sinkLoads: _sinks, ...one } = found;
  const { replicas, processes, workersPerProcess, intervals, asOf, threshold, knob, loads } = drawn;
  return { ...one, replicas, processes, workersPerProcess, intervals, asOf, threshold, knob, loads };
}

export interface ResearchTask {
  readonly variant: Variant;
  readonly seed: number;
  readonly bug?: BugName | undefined;
  readonly strategy: Strategy;
  readonly faults?: number | undefined;
  readonly fold: boolean;
}

/** Short enough to read: at most `SHORT_ENOUGH` events, diverging within `DIVERGES_SOON_ENOUGH`. */
export function shortEnough(r: RunReport): boolean {
  return r.trace.length <= SHORT_ENOUGH && divergenceOf(r) <= DIVERGES_SOON_ENOUGH;
}

/** `found` (a minimized failing run), or a shorter run failing its first check found on small shapes
 * (shorter: fewer events, or as many and an earlier divergence). */
export async function researchSmaller(found: RunReport, task: ResearchTask): Promise<{ report: RunReport; tried: number }> {
  const target = found.failures[0];
  if (target === undefined || shortEnough(found)) return { report: found, tried: 0 };
  let best = found;
  let tried = 0;
  for (const [i, tier] of TIERS.entries()) {
    const arb = runArb(task.variant, tier.bounds, task.strategy, task.faults);
    const failing: RunReport[] = [];
    for (const { workload, schedule } of fc.sample(arb, { seed: (task.seed ^ (0x5bd1e995 * (i + 1))) >>> 0, numRuns: tier.runs })) {
      tried += 1;
      const r = await runOnce(tier.tunables ? withTunables(workload, found.workload) : workload, schedule, task.bug, { configChecks: task.fold });
      if (r.failures.some((f) => sameFailure(target, f))) failing.push(r);
    }
    // The shortest few, in the order drawn among equals (a stable sort: deterministic).
    const shortest = failing.sort((a, b) => a.trace.length - b.trace.length || divergenceOf(a) - divergenceOf(b)).slice(0, MINIMIZED_PER_SHAPE);
    for (const r of shortest) {
      // The same failure first, as minimize keeps it.
      const first = { ...r, failures: [...r.failures.filter((f) => sameFailure(target, f)), ...r.failures.filter((f) => !sameFailure(target, f))] };
      const m = await minimize(first, task.bug);
      tried += m.tried;
      if (shorter(m.report, best)) best = m.report;
      if (shortEnough(best)) break;
    }
    if (shortEnough(best)) break;
  }
  return { report: best, tried };
}
