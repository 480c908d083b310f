/**
 * One builder instance: the channel into its builder task and the batch the task will produce.
 *
 * Invariants:
 * - the channel is closed by the receiver (claim) or, when nobody will receive, by orphan(); both are
 *   idempotent and the batch goes to at most one claimant;
 * - an orphaned batch is still built (its hollow parts are already in blob) and then dropped: its
 *   parts leak, as when Materialize drops the last handle without finish();
 * - a failed builder task closes the channel too (Rust: the receiver is dropped, `send` returns Err),
 *   so a push waiting for space wakes; `failure` then holds the cause it reports.
 */
import type { MetricsRecorder } from '../metrics.ts';
import type { Batch } from '../persist/batch.ts';
import { BoundedChannel } from '../runtime/channel.ts';
import { Deferred } from '../runtime/deferred.ts';
import type { Update } from '../update.ts';

export class BuilderInstance {
  readonly channel: BoundedChannel<readonly Update[]>;
  readonly #result = new Deferred<Batch | null>();
  #claimed = false;
  #orphaned = false;
  #failure: { readonly error: unknown } | undefined;

  constructor(
    capacity: number,
    private readonly metrics: MetricsRecorder,
  ) {
    this.channel = new BoundedChannel(capacity);
  }

  /** The receiver closes the channel and awaits the batch. null if it was claimed or orphaned before
   * (reachable only through the late-handle bug, where a finished instance is reused). */
  claim(): Promise<Batch | null> {
    this.channel.close();
    if (this.#claimed) return Promise.resolve(null);
    this.#claimed = true;
    return this.#result.promise;
  }

  /** The last reference went away without a receiver: close, and let the batch go to nobody. */
  orphan(): void {
    this.channel.close();
    if (this.#claimed) return;
    this.#claimed = true;
    this.#orphaned = true;
  }

  /** The builder task's outcome. */
  settle(batch: Batch | null): void {
    if (this.#orphaned && batch !== null) this.metrics.c.batchesOrphaned += 1;
    this.#result.resolve(batch);
  }

  /** The builder task failed: close the channel (waking waiting pushes) and reject the result. */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.channel.close();
    this.#result.reject(error);
  }

  /** Set once the builder task failed: why pushes into the closed channel are refused. */
  get failure(): { readonly error: unknown } | undefined {
    return this.#failure;
  }
}
