/**
 * A handle on a shared builder: push chunks, then finish() exactly once (or, as a bug or a crash
 * would, drop() without finishing).
 *
 * Every step passes a scheduling point before the state change it makes, and emits its trace event
 * in the same step, so a stepping scheduler sees the protocol's interleavings one by one.
 */
import type { SharedId, WorkerRef } from '../../vocab/index.ts';
import { SbkitError } from '../errors.ts';
import type { Batch } from '../persist/batch.ts';
import { pointAt } from '../runtime/where.ts';
import { payloadBytes, type Update } from '../update.ts';
import type { BarrierState } from './barrier-state.ts';
import type { SharedBatchesContext } from './context.ts';
import type { BuilderEntry } from './entry.ts';

type HandleState = 'open' | 'finished' | 'dropped';

export class SharedBatchHandle {
  #state: HandleState = 'open';
  readonly #ref: WorkerRef;

  constructor(
    private readonly ctx: SharedBatchesContext,
    private readonly entry: BuilderEntry,
    /** Unique among the handles of this entry; the barrier's deliverer is one of these. */
    readonly handleId: number,
    worker: number,
    /** Tells the registry that this id's barrier finalized (for over-report detection). */
    private readonly onFinalized: (id: SharedId) => void,
  ) {
    this.#ref = { replica: ctx.replica, process: ctx.process, worker };
  }

  get sharedId(): SharedId {
    return this.entry.id;
  }

  get state(): HandleState {
    return this.#state;
  }

  #after(): string {
    return this.#state === 'finished' ? 'finish()' : 'drop()';
  }

  /** Sends one chunk into the builder's channel, waiting while it is full. Empty chunks are ignored. */
  async push(updates: readonly Update[]): Promise<void> {
    const id = this.entry.id;
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
    const chunk = updates.slice();
    const bytes = payloadBytes(chunk);
    const channel = this.entry.instance.channel;
    await pointAt(this.ctx.scheduler, 'shared.push', this.#ref, bytes);
    while (channel.trySend(chunk) === 'full') {
      await channel.writable();
      await pointAt(this.ctx.scheduler, 'shared.push', this.#ref, bytes);
    }
    // SUBTLE: a 'closed' outcome drops the chunk, as Rust's ignored `SendError` would. A correct
    // protocol never pushes into a closed channel (the receiver closes only after every reference
    // finished); only the late-handle and skip-double-count bugs get here, and the loss is their point.
    this.ctx.trace.emit({ kind: 'push', ...this.#ref, sharedId: id, updates: chunk.map((u) => u.id) });
  }

  /** Drops this handle's reference; only the receiver gets the batch, every other handle null. */
  async finish(): Promise<Batch | null> {
    if (this.#state !== 'open') {
      throw new SbkitError('finish-twice', `finish() on shared batch ${this.entry.id} (handle ${this.handleId}) after ${this.#after()}`);
    }
    this.#state = 'finished';
    const barrier = this.entry.barrier;
    return barrier === undefined ? this.#finishBestEffort() : this.#finishBarrier(barrier);
  }

  async #finishBestEffort(): Promise<Batch | null> {
    const { scheduler, trace } = this.ctx;
    const id = this.entry.id;
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
    const id = this.entry.id;
    await pointAt(scheduler, 'shared.finish', this.#ref);
    const last = barrier.arrive(this.handleId);
    if (last) this.onFinalized(id);
    trace.emit({ kind: 'finish-begin', ...this.#ref, sharedId: id, last });
    if (!last) {
      // The handle keeps its reference while it waits.
      await barrier.waitFinalized(scheduler, this.#ref, bugs);
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
      throw new SbkitError('finish-twice', `drop() on shared batch ${this.entry.id} (handle ${this.handleId}) after ${this.#after()}`);
    }
    this.#state = 'dropped';
    await pointAt(this.ctx.scheduler, 'shared.drop', this.#ref);
    this.entry.refs -= 1;
    const closed = this.entry.refs === 0;
    this.ctx.trace.emit({ kind: 'drop', ...this.#ref, sharedId: this.entry.id, closed });
    if (closed) this.entry.instance.orphan();
  }
}
