/**
 * A written batch: parts covering [lower, upper), not yet in the shard (persist's `Batch`).
 *
 * Invariants:
 * - `owned` until compareAndAppend consumes it (its parts now belong to shard state) or delete()
 *   removed all its blobs; a consumed or deleted batch cannot be appended or deleted again, nor can a
 *   batch while its delete() is under way; a delete() that failed leaves it owned (retry it);
 * - dropping an owned batch without delete() leaks its hollow parts' blobs (as in persist);
 * - `updateIds` are in the order the builder received them (shared: push order). The ids are kit
 *   bookkeeping for traces and audits; storage holds only (key, value, time, diff).
 */
import type { BatchSummary, PartsSummary, Time, UpdateId } from '../../vocab/index.ts';
import { SbkitError } from '../errors.ts';
import { summary } from '../runtime/trace.ts';
import type { Where } from '../runtime/where.ts';
import type { BlobClient } from './blob-client.ts';
import { countParts, type Part } from './part.ts';

export type BatchStatus = 'owned' | 'consumed' | 'deleted';

export class Batch {
  #parts: Part[];
  #status: BatchStatus = 'owned';
  /** A delete() is under way: the batch is neither appendable nor deletable meanwhile. */
  #deleting = false;
  /** Blob keys a (possibly failed) delete() already removed. */
  readonly #deletedKeys = new Set<string>();

  constructor(
    readonly lower: Time,
    readonly upper: Time,
    parts: readonly Part[],
    readonly updateIds: readonly UpdateId[],
    private readonly blob: BlobClient,
    private readonly where: Where,
    /** Runs the parts form (runs.ts): one per part unless the builder compacted them. */
    readonly runs: number,
    /** The shard the batch was built for (persist's `Batch::shard_id`). */
    readonly shardId: string,
  ) {
    this.#parts = [...parts];
  }

  get parts(): readonly Part[] {
    return this.#parts;
  }

  get status(): BatchStatus {
    return this.#status;
  }

  /** Whether compareAndAppend may take it: owned and no delete() under way. */
  get appendable(): boolean {
    return this.#status === 'owned' && !this.#deleting;
  }

  get updates(): number {
    return this.updateIds.length;
  }

  partsSummary(): PartsSummary {
    return countParts(this.#parts);
  }

  /** What trace events say about this batch: ascending update ids and its parts. */
  summary(): BatchSummary {
    return summary(this.updateIds, this.#parts);
  }

  #requireOwned(action: string): void {
    if (this.#status !== 'owned') {
      throw new SbkitError('batch-consumed', `cannot ${action} batch [${this.lower}, ${this.upper}): it was ${this.#status}`);
    }
    if (this.#deleting) {
      throw new SbkitError('batch-consumed', `cannot ${action} batch [${this.lower}, ${this.upper}): it is being deleted`);
    }
  }

  /** Removes the batch's blobs; returns how many. The batch is `deleted` only once every blob delete
   * succeeded: if one fails the error propagates and the batch stays `owned` (not appendable meanwhile),
   * so delete() can be retried; blobs already deleted are not deleted twice. */
  async delete(opts: { readonly retries: boolean } = { retries: true }): Promise<number> {
    this.#requireOwned('delete');
    this.#deleting = true;
    try {
      for (const p of this.#parts) {
        if (p.kind !== 'hollow' || this.#deletedKeys.has(p.key)) continue;
        await this.blob.delete(p.key, this.where, opts);
        this.#deletedKeys.add(p.key);
      }
    } finally {
      this.#deleting = false;
    }
    this.#status = 'deleted';
    return this.#deletedKeys.size;
  }

  /** Inline backpressure (persist's `flush_to_blob`): every inline part becomes hollow. Returns how many. */
  async flushInlineToBlob(): Promise<number> {
    this.#requireOwned('flush');
    let flushed = 0;
    for (const [i, p] of this.#parts.entries()) {
      if (p.kind !== 'inline') continue;
      const key = this.blob.newPartKey();
      await this.blob.set(key, p.data, this.where);
      this.#parts[i] = { kind: 'hollow', key, encodedBytes: p.data.length, payloadBytes: p.payloadBytes, updates: p.updates };
      flushed += 1;
    }
    return flushed;
  }

  /** Called by the shard writer once a compare-and-set committed these parts. */
  markConsumed(): void {
    this.#requireOwned('append');
    this.#status = 'consumed';
  }
}
