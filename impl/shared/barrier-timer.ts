/**
 * A barrier's timer (vocab/PROTOCOL.md "Barrier with a deadline"): a task of its own, started by the
 * barrier's first report, that passes one scheduling point — a timer whose site carries the deadline
 * (runtime/where.ts `timerAt`) — and then expires the barrier. Nothing here waits on real time: a
 * scheduler that keeps time resumes the point the deadline later, one without time at any step.
 *
 * Materialize's style for this would be a spawned task sleeping the deadline (as the builder task is
 * spawned) that then takes the barrier's lock; it is never cancelled: a timer that fires after its
 * barrier completed finds it finalized and does nothing.
 */
import { timerAt, type Where } from '../runtime/where.ts';
import type { Spawn } from '../runtime/task-group.ts';
import type { Scheduler } from '../seams.ts';
import type { Deadline } from './barrier-state.ts';

/** A deadline of `ms` whose timer, once armed, runs `fire` after its point (`name` names the task). */
export function barrierDeadline(ctx: { readonly scheduler: Scheduler; readonly spawn: Spawn }, where: Where, name: string, ms: number, fire: () => void): Deadline {
  return {
    ms,
    arm: () =>
      ctx.spawn(`barrier timer ${name}`, async () => {
        await timerAt(ctx.scheduler, 'barrier.timeout', where, ms);
        fire();
      }),
  };
}
