/**
 * A written batch: parts covering [lower, upper), not yet in the shard (persist's `Batch`).
 *
 * Invariants:
 * - `owned` until compareAndAppend consumes it (its parts now belong to shard state) or delete()
 *   removes its blobs; a consumed or deleted batch cannot be appended or deleted again;
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

  constructor(
    readonly lower: Time,
    readonly upper: Time,
    parts: readonly Part[],
    readonly updateIds: readonly UpdateId[],
    private readonly blob: BlobClient,
    private readonly where: Where,
  ) {
    this.#parts = [...parts];
  }

  get parts(): readonly Part[] {
    return this.#parts;
  }

  get status(): BatchStatus {
    return this.#status;
  }

  get updates(): number {
    return this.updateIds.length;
  }

  partsSummary(): PartsSummary {
    return countParts(this.#parts);
  }

  /** What trace events say about this batch: ascending update ids and its parts. */
  summary(): BatchSummary {
    return summary(this.updateIds, this.partsSummary());
  }

  #requireOwned(action: string): void {
    if (this.#status !== 'owned') {
      throw new SbkitError('batch-consumed', `cannot ${action} batch [${this.lower}, ${this.upper}): it was ${this.#status}`);
    }
  }

  /** Removes the batch's blobs; returns how many. */
  async delete(): Promise<number> {
    this.#requireOwned('delete');
    this.#status = 'deleted';
    let deleted = 0;
    for (const p of this.#parts) {
      if (p.kind !== 'hollow') continue;
      await this.blob.delete(p.key, this.where);
      deleted += 1;
    }
    return deleted;
  }

  /** Inline backpressure (persist's `flush_to_blob`): every inline part becomes hollow. Returns how many. */
  async flushInlineToBlob(): Promise<number> {
    this.#requireOwned('flush');
    let flushed = 0;
    for (let i = 0; i < this.#parts.length; i++) {
      const p = this.#parts[i];
      if (p === undefined || p.kind !== 'inline') continue;
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
