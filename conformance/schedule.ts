/**
 * A schedule: everything that decides the interleaving of one run, as one shrinkable value.
 * - `choices`: one index per scheduling point (mod the eligible points pending; FIFO after the list).
 * - `starve`: actors (replica, worker) whose points run only when nothing else can — the way to reach
 *   "this worker arrives after every other one finished" without luck.
 */
import fc from 'fast-check';
import { ChoiceScheduler } from './choice-scheduler.ts';

export interface Actor {
  readonly replica: number;
  readonly worker: number;
}

export interface Schedule {
  readonly choices: readonly number[];
  readonly starve: readonly Actor[];
}

export const FIFO: Schedule = { choices: [], starve: [] };

export function scheduleArb(maxReplicas: number, maxWorkers: number): fc.Arbitrary<Schedule> {
  return fc.record({
    choices: fc.array(fc.nat({ max: 63 }), { maxLength: 400 }),
    starve: fc.array(fc.record({ replica: fc.nat({ max: maxReplicas - 1 }), worker: fc.nat({ max: maxWorkers - 1 }) }), { maxLength: 2 }),
  });
}

export function schedulerFor(s: Schedule): ChoiceScheduler {
  if (s.starve.length === 0) return new ChoiceScheduler(s.choices);
  return new ChoiceScheduler(s.choices, {
    starved: (site) => site.worker !== undefined && s.starve.some((a) => a.replica === site.replica && a.worker === site.worker),
  });
}

export function describeSchedule(s: Schedule): string {
  const starve = s.starve.length === 0 ? '' : `; starved: ${s.starve.map((a) => `r${a.replica} w${a.worker}`).join(', ')}`;
  return `choices [${s.choices.join(', ')}] (then FIFO)${starve}`;
}
