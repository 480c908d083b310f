/**
 * The input and mint operators of one replica.
 *
 * input: advances the desired frontier 1 … K (`frontier` events).
 * mint (one worker): when no description is live and lower < desired, mints
 * {lower, upper = desired, appendWorker = seq mod P·W, sharedId = seq, maxBytes and barrier = the knobs
 * read now (barrier false when the variant is off)}
 * and broadcasts it to every worker's write task and to the append worker's append task.
 *
 * Supersede (both sinks): the mint follows the persist frontier. While a description is live, its append
 * has not begun and no superseded one is pending, the mint reads the shard's upper (a `poll` event; woken
 * by its own replica's changes and by any writer moving the shard); if another writer moved it past the
 * live lower and below the desired frontier, the mint sets lower to it and mints a newer description at
 * once (the read and the mint are one step). The old one is superseded: workers that have not staged it skip it,
 * its append worker deletes what was handed for it (append.ts). The live description's append waits for
 * a poll's read to answer before it begins (`polling`): as in the model, the poll is one step.
 */
import type { Description } from '../../vocab/index.ts';
import { pointAt } from '../runtime/where.ts';
import { at, type ReplicaState } from './replica-state.ts';
import { readBarrier, readMaxBytes } from './route.ts';

export async function runInput(r: ReplicaState): Promise<void> {
  const { replica, intervals, pacing } = r.settings;
  // A restarted incarnation starts at the shard's upper: the frontier below it is sealed already.
  for (let upper = r.settings.startLower + 1; upper <= intervals; upper++) {
    if (pacing === 'lockstep') while (r.lower < r.desired) await r.changed.register();
    await pointAt(r.deps.scheduler, 'input.advance', r.where());
    r.desired = upper;
    r.deps.trace.emit({ kind: 'frontier', replica, upper });
    r.changed.notifyWaiters();
  }
}

export async function runMint(r: ReplicaState): Promise<void> {
  for (;;) {
    if (r.live === null && r.lower >= r.settings.intervals) {
      r.closeQueues();
      return;
    }
    if (r.live === null && r.lower < r.desired) {
      // SUBTLE: nothing but this task makes a description live, and lower only moves while one is,
      // so the condition still holds after the point; `desired` is read after it (it may have grown).
      await pointAt(r.deps.scheduler, 'mint', r.where());
      mintOne(r);
      continue;
    }
    // SUBTLE: register before the read: a change while the read awaits (the append ending the
    // description, another writer moving the shard) must wake this task, not be lost (Notify keeps no permit).
    const woken = Promise.race([r.changed.register(), r.deps.shardMoved.register()]);
    if (mayPoll(r)) {
      // The poll is a step of its own: a point first (an aborted incarnation's mint, woken by another
      // writer moving the shard, stops there), then the check again, since the point let others run.
      await pointAt(r.deps.scheduler, 'mint.poll', r.where());
      if (!mayPoll(r)) continue;
      r.deps.trace.emit({ kind: 'poll', replica: r.settings.replica, sharedId: (r.live as Description).sharedId });
      // The poll is one step of the model: its read happens while a supersede could follow. The live
      // description's append does not begin until the read answered (append.ts), so the description
      // cannot end — nor the sink seal — with the read still in flight: a permanent failure of the read
      // always finds the sink unsealed, and takes it down.
      r.polling = true;
      let upper: number;
      try {
        ({ upper } = await r.deps.shard.fetchState());
      } finally {
        r.polling = false;
        r.pollDone.notifyWaiters();
      }
      // SUBTLE: the read and the mint are one step (no point between them), so `upper` is still the
      // shard's upper; only then is the supersede the model's (its lower is the shard's upper now).
      if (mayPoll(r) && upper > (r.live as Description).lower && upper < r.desired) {
        supersede(r, upper);
        continue;
      }
    }
    await woken;
  }
}

/** A live description, its append not begun, nothing superseded pending, and room for a newer lower. */
function mayPoll(r: ReplicaState): boolean {
  return r.live !== null && !r.appendStarted && r.superseded === null && r.desired > r.live.lower + 1;
}

function supersede(r: ReplicaState, upper: number): void {
  r.superseded = r.live;
  r.setLower(upper);
  mintOne(r);
}

function mintOne(r: ReplicaState): void {
  const { replica } = r.settings;
  const seq = r.seq;
  const ctx = { replica, lower: r.lower, seq, desired: r.desired };
  const maxBytes = readMaxBytes(r.settings.maxBytes, ctx);
  const barrier = r.settings.policy.sharing && readBarrier(r.settings.barrier, ctx);
  const desc: Description = { lower: r.lower, upper: r.desired, appendWorker: seq % r.workers, sharedId: seq, maxBytes, barrier };
  r.seq += 1;
  r.live = desc;
  r.appendStarted = false;
  r.deps.trace.emit({ kind: 'mint', replica, desc });
  at(r.appendQueues, desc.appendWorker).send(desc);
  for (const q of r.writeQueues) q.send(desc);
}
