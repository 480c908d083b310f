/**
 * The input and mint operators of one replica.
 *
 * input: advances the desired frontier 1 … K (`frontier` events).
 * mint (one worker): when no description is live and lower < desired, mints
 * {lower, upper = desired, appendWorker = seq mod P·W, sharedId = seq, maxBytes and barrier = the knobs
 * read now (barrier false when the variant is off)}
 * and broadcasts it to every worker's write task and to the append worker's append task.
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
    await r.changed.register();
  }
}

function mintOne(r: ReplicaState): void {
  const { replica } = r.settings;
  const seq = r.seq;
  const ctx = { replica, lower: r.lower, seq, desired: r.desired };
  const maxBytes = readMaxBytes(r.settings.maxBytes, ctx);
  const barrier = r.settings.variant !== 'off' && readBarrier(r.settings.barrier, ctx);
  const desc: Description = { lower: r.lower, upper: r.desired, appendWorker: seq % r.workers, sharedId: seq, maxBytes, barrier };
  r.seq += 1;
  r.live = desc;
  r.deps.trace.emit({ kind: 'mint', replica, desc });
  at(r.appendQueues, desc.appendWorker).send(desc);
  for (const q of r.writeQueues) q.send(desc);
}
