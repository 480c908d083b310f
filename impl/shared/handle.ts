/**
 * A handle on a shared builder: push chunks, then finish() exactly once (or, as a bug or a crash
 * would, drop() without finishing).
 *
 * Every step passes a scheduling point before the state change it makes, and emits its trace event
 * in the same step, so a stepping scheduler sees the protocol's interleavings one by one.
 *
 * Invariants:
 * - a push either delivers its chunk into the channel (and emits `push`) or throws: a closed channel
 *   is `builder-failed` (the builder task failed; `cause` says why) or `push-after-finish`; never a
 *   silent drop — except under the two gallery bugs whose point is that drop (see `#lossIsTheBug`);
 * - finish()/drop() refuse (`push-in-flight`, handle still open) while a push of this handle has not
 *   returned: in Rust `push(&mut self)` and `finish(self)` cannot overlap; here the refusal keeps a
 *   pending chunk from meeting the channel its own handle closed.
 */
import type { SharedId, WorkerRef } from '../../vocab/index.ts';
import { SbkitError } from '../errors.ts';
import type { Batch } from '../persist/batch.ts';
import { pointAt } from '../runtime/where.ts';
import { payloadBytes, type Update } from '../update.ts';
import type { BarrierState } from './barrier-state.ts';
import { showId } from './batch-id.ts';
import type { SharedBatchesContext } from './context.ts';
import type { BuilderEntry } from './entry.ts';

type HandleState = 'open' | 'finished' | 'dropped';

export class SharedBatchHandle {
  #state: HandleState = 'open';
  /** push() calls that have not returned yet (they hold a chunk not yet in the channel). */
  #pushesInFlight = 0;
  readonly #ref: WorkerRef;

  constructor(
    private readonly ctx: SharedBatchesContext,
    private readonly entry: BuilderEntry,
    /** Unique among the handles of this entry; the barrier's deliverer is one of these. */
    readonly handleId: number,
    worker: number,
    /** Tells the registry that this id's barrier finalized (for over-report detection), and whether at
     * its deadline (late workers then share best-effort). */
    private readonly onFinalized: (atDeadline: boolean) => void,
  ) {
    this.#ref = { replica: ctx.replica, process: ctx.process, worker };
  }

  /** The batch's id as traces name it (its mint sequence number). */
  get sharedId(): SharedId {
    return this.entry.id.seq;
  }

  /** The batch's id as messages name it. */
  get #name(): string {
    return showId(this.entry.id);
  }

  get state(): HandleState {
    return this.#state;
  }

  #after(): string {
    return this.#state === 'finished' ? 'finish()' : 'drop()';
  }

  /** Sends one chunk into the builder's channel, waiting while it is full. Empty chunks are ignored. */
  async push(updates: readonly Update[]): Promise<void> {
    const id = this.#name;
    if (this.#state !== 'open') {
      throw new SbkitError('push-after-finish', `push() on shared batch ${id} (handle ${this.handleId}) after ${this.#after()}`);
    }
    const { lower, upper } = this.entry.range;
    const outside = updates.find((u) => !(u.time >= lower && u.time < upper));
    if (outside !== undefined) {
      throw new SbkitError(
        'update-outside-description',
        `update ${outside.id} has time ${outside.time}, outside shared batch ${id}'s [${lower}, ${upper})`,
      );
    }
    if (updates.length === 0) return;
    // Counted from the call's first (synchronous) step, so a finish() issued after this call refuses.
    this.#pushesInFlight += 1;
    try {
      await this.#send(updates.slice());
    } finally {
      this.#pushesInFlight -= 1;
    }
  }

  async #send(chunk: readonly Update[]): Promise<void> {
    const id = this.#name;
    const bytes = payloadBytes(chunk);
    const instance = this.entry.instance;
    const channel = instance.channel;
    await pointAt(this.ctx.scheduler, 'shared.push', this.#ref, bytes);
    let outcome = channel.trySend(chunk);
    while (outcome === 'full') {
      await channel.writable();
      await pointAt(this.ctx.scheduler, 'shared.push', this.#ref, bytes);
      outcome = channel.trySend(chunk);
    }
    if (outcome === 'closed') {
      const failure = instance.failure;
      if (failure !== undefined) {
        throw new SbkitError(
          'builder-failed',
          `push() on shared batch ${id} (handle ${this.handleId}): its builder task failed: ${String(failure.error)}`,
          { cause: failure.error },
        );
      }
      if (!this.#lossIsTheBug()) {
        throw new SbkitError(
          'push-after-finish',
          `push() on shared batch ${id} (handle ${this.handleId}): its builder's channel is already closed (the batch was finished or orphaned)`,
        );
      }
      // BUG (late-handle-joins-finished-builder, barrier-skip-double-count): the chunk is dropped, as
      // Rust's ignored `SendError` would drop it, and the push looks like any other.
    }
    this.ctx.trace.emit({ kind: 'push', ...this.#ref, sharedId: this.sharedId, updates: chunk.map((u) => u.id) });
  }

  /** The clean protocol never pushes into a closed channel (the receiver closes only after every
   * reference finished). These two gallery bugs do — a revived dead entry, a barrier finalized early —
   * and the silent loss of that push (Rust ignores the send error) is what they demonstrate. */
  #lossIsTheBug(): boolean {
    const { bugs } = this.ctx;
    return bugs.has('late-handle-joins-finished-builder') || bugs.has('barrier-skip-double-count');
  }

  #refuseWhilePushing(what: string): void {
    if (this.#pushesInFlight === 0) return;
    throw new SbkitError(
      'push-in-flight',
      `${what} on shared batch ${this.#name} (handle ${this.handleId}) while ${this.#pushesInFlight} push() of this handle ${this.#pushesInFlight === 1 ? 'is' : 'are'} in flight: await every push first`,
    );
  }

  /** Drops this handle's reference; only the receiver gets the batch, every other handle null. */
  async finish(): Promise<Batch | null> {
    if (this.#state !== 'open') {
      throw new SbkitError('finish-twice', `finish() on shared batch ${this.#name} (handle ${this.handleId}) after ${this.#after()}`);
    }
    this.#refuseWhilePushing('finish()');
    this.#state = 'finished';
    const barrier = this.entry.barrier;
    return barrier === undefined ? this.#finishBestEffort() : this.#finishBarrier(barrier);
  }

  async #finishBestEffort(): Promise<Batch | null> {
    const { scheduler, trace } = this.ctx;
    const id = this.sharedId;
    await pointAt(scheduler, 'shared.finish', this.#ref);
    this.entry.refs -= 1;
    const last = this.entry.refs === 0;
    trace.emit({ kind: 'finish-begin', ...this.#ref, sharedId: id, last });
    const batch = last ? await this.entry.instance.claim() : null;
    await pointAt(scheduler, 'shared.finish.end', this.#ref);
    trace.emit({ kind: 'finish-end', ...this.#ref, sharedId: id, received: batch?.summary() ?? null });
    return batch;
  }

  async #finishBarrier(barrier: BarrierState): Promise<Batch | null> {
    const { scheduler, trace, bugs } = this.ctx;
    const id = this.sharedId;
    await pointAt(scheduler, 'shared.finish', this.#ref);
    const last = barrier.arrive(this.handleId);
    if (last) this.onFinalized(barrier.late);
    trace.emit({ kind: 'finish-begin', ...this.#ref, sharedId: id, last });
    if (!last) {
      // The handle keeps its reference while it waits.
      await barrier.waitFinalized(scheduler, this.#ref, bugs);
      // Woken by a peer: a waiter is the deliverer when the finalizing arrival was a skip. It passes a
      // point before it acts (claim closes the channel); the others act only after finish.end's point.
      if (barrier.deliverer === this.handleId) await pointAt(scheduler, 'barrier.wake', this.#ref);
    }
    const batch = barrier.deliverer === this.handleId ? await this.entry.instance.claim() : null;
    await pointAt(scheduler, 'shared.finish.end', this.#ref);
    this.entry.refs -= 1;
    trace.emit({ kind: 'finish-end', ...this.#ref, sharedId: id, received: batch?.summary() ?? null });
    return batch;
  }

  /** Drops the reference without finishing (Rust: the handle goes out of scope). If it was the last
   * one, the batch is still built but handed to nobody: its parts leak. Under a barrier this handle
   * never arrives, so the other participants wait forever — which is why every participant must
   * finish or skip. */
  async drop(): Promise<void> {
    if (this.#state !== 'open') {
      throw new SbkitError('finish-twice', `drop() on shared batch ${this.#name} (handle ${this.handleId}) after ${this.#after()}`);
    }
    this.#refuseWhilePushing('drop()');
    this.#state = 'dropped';
    await pointAt(this.ctx.scheduler, 'shared.drop', this.#ref);
    this.entry.refs -= 1;
    const closed = this.entry.refs === 0;
    this.ctx.trace.emit({ kind: 'drop', ...this.#ref, sharedId: this.sharedId, closed });
    if (closed) this.entry.instance.orphan();
  }
}
