/**
 * A schedule: everything that decides the interleaving of one run, as one shrinkable value.
 * - `choices`: one index per scheduling point (mod the eligible points pending; FIFO after the list).
 * - `starve`: actors (replica, worker) whose points run only when nothing else can — the way to reach
 *   "this worker arrives after every other one finished" without luck.
 * - `pct`: when present, the run is scheduled by PCT priorities (choice-scheduler.ts) and `choices` is
 *   unused: random priorities plus d − 1 priority change points find bugs of depth d with a known
 *   probability, where uniform random choices rarely keep one actor away long enough.
 */
import fc from 'fast-check';
import { ChoiceScheduler, type Pct } from './choice-scheduler.ts';
import { describeFaults, faultScheduleArb, type FaultSchedule } from './faults.ts';

export interface Actor {
  readonly replica: number;
  readonly worker: number;
}

export interface Schedule {
  readonly choices: readonly number[];
  readonly starve: readonly Actor[];
  readonly pct?: Pct;
  /** Storage faults and aborts (faults.ts); absent: nothing fails. */
  readonly faults?: FaultSchedule;
}

/**
 * How `sbkit check` draws runs: uniform choices, PCT, a mix of both (the default), or steered towards
 * what the runs have not reached yet (steer.ts, coverage-guided; `mixed` steers a smaller share of its
 * runs). A schedule alone is drawn for `steer` as for `mixed`.
 */
export type Strategy = 'random' | 'pct' | 'mixed' | 'steer';
export const STRATEGIES: readonly Strategy[] = ['random', 'pct', 'mixed', 'steer'];

export const FIFO: Schedule = { choices: [], starve: [] };

/** PCT's bug depth d is at most this (d − 1 change points). */
export const PCT_MAX_DEPTH = 4;
/** Change points fall in the first this-many steps (the median run takes ~150; the races the gallery holds happen early). */
export const PCT_HORIZON = 100;
/** The short scale of change points (a small workload's run). */
export const PCT_SHORT_HORIZON = 24;

export function scheduleArb(maxReplicas: number, maxWorkers: number, strategy: Strategy = 'random', faultRate?: number): fc.Arbitrary<Schedule> {
  const orders = ordersArb(maxReplicas, maxWorkers, strategy);
  if (faultRate === undefined) return orders;
  return fc.tuple(orders, faultScheduleArb(faultRate, maxReplicas)).map(([s, faults]) => ({ ...s, faults }));
}

/** The orders of a run (choices or PCT, starved actors), without faults. */
export function ordersArb(maxReplicas: number, maxWorkers: number, strategy: Strategy): fc.Arbitrary<Schedule> {
  // Half the starved workers among the first two, which every workload has most of the time (small
  // workloads are common: swarm.ts).
  const worker = fc.oneof(fc.nat({ max: Math.min(1, maxWorkers - 1) }), fc.nat({ max: maxWorkers - 1 }));
  const starve = fc.array(fc.record({ replica: fc.nat({ max: maxReplicas - 1 }), worker }), { maxLength: 2 });
  const random = fc.record({ choices: fc.array(fc.nat({ max: 63 }), { maxLength: 400 }), starve });
  // Actors per run: per replica its workers, its processes and itself.
  const actors = maxReplicas * (maxWorkers + maxWorkers + 1);
  const pct = fc.record({
    choices: fc.constant([] as number[]),
    starve,
    pct: fc.record({
      priorities: fc.array(fc.nat({ max: 999 }), { maxLength: actors }),
      // Change points at two scales: a short run (a small workload) takes a few dozen steps.
      changes: fc.uniqueArray(fc.oneof(fc.nat({ max: PCT_SHORT_HORIZON }), fc.nat({ max: PCT_HORIZON })), { maxLength: PCT_MAX_DEPTH - 1 }),
    }),
  });
  switch (strategy) {
    case 'random':
      return random;
    case 'pct':
      return pct;
    case 'mixed':
    case 'steer':
      // Two to one: uniform choices preempt at every step, which the one-step windows of the sweep race
      // need; PCT's priorities starve an actor for long, which late handles and lost wake-ups need.
      return fc.oneof({ weight: 2, arbitrary: random }, { weight: 1, arbitrary: pct });
  }
}

export function schedulerFor(s: Schedule): ChoiceScheduler {
  const starved =
    s.starve.length === 0
      ? undefined
      : (site: { readonly replica: number; readonly worker?: number }) =>
          site.worker !== undefined && s.starve.some((a) => a.replica === site.replica && a.worker === site.worker);
  return new ChoiceScheduler(s.choices, {
    ...(starved === undefined ? {} : { starved }),
    ...(s.pct === undefined ? {} : { pct: s.pct }),
    ...(s.faults === undefined ? {} : { aborts: s.faults.aborts.filter((a) => a.step < (s.faults?.heal ?? 0)) }),
  });
}

export function describeSchedule(s: Schedule): string {
  const starve = s.starve.length === 0 ? '' : `; starved: ${s.starve.map((a) => `r${a.replica} w${a.worker}`).join(', ')}`;
  const faults = s.faults === undefined ? '' : `; ${describeFaults(s.faults)}`;
  if (s.pct !== undefined) {
    return `PCT (depth ${s.pct.changes.length + 1}): priorities [${s.pct.priorities.join(', ')}] by actor in order of appearance, change points at steps [${s.pct.changes.join(', ')}]${starve}${faults}`;
  }
  return `choices [${s.choices.join(', ')}] (then FIFO)${starve}${faults}`;
}
