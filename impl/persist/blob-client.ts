/**
 * A writer's access to blob storage: every call passes a scheduling point first, is counted in the
 * run's metrics, and part keys are minted unique per writer.
 *
 * Invariants:
 * - part keys are `<writerId>/part-<n>`, n counting from 0 per client; the writer id is unique per
 *   writer incarnation (writer-registry.ts), so no two clients of one shard — in this run, an earlier one or
 *   a concurrent one — mint the same key;
 * - a PUT never overwrites: `set` is a conditional PUT and a key that already exists with other bytes is
 *   refused with `blob-key-exists` (the existing object is kept), whatever minted it;
 * - every call is retried on storage failures (retry.ts), each retry a scheduling point.
 */
import { SbkitError } from '../errors.ts';
import type { Scheduler } from '../seams.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Trace } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Blob } from './blob.ts';
import { retryExternal, type RetryContext } from './retry.ts';

export class BlobClient {
  #nextKey = 0;

  constructor(
    readonly blob: Blob,
    private readonly scheduler: Scheduler,
    private readonly metrics: MetricsRecorder,
    /** The writer id (unique per writer incarnation, see writer-registry.ts): the prefix of every part key. */
    private readonly prefix: string,
    private readonly trace: Trace,
    /** 'supervisor': a supervisor step's client (cleanup), whose faults say so (retry.ts `by`). */
    private readonly by?: 'supervisor',
  ) {}

  get writerId(): string {
    return this.prefix;
  }

  newPartKey(): string {
    return `${this.prefix}/part-${this.#nextKey++}`;
  }

  #retry(where: Where): RetryContext {
    return { scheduler: this.scheduler, where, trace: this.trace, metrics: this.metrics, by: this.by };
  }

  /**
   * A conditional PUT, retried on storage failures. SUBTLE: a retry after an indeterminate PUT that did
   * apply finds the key taken; the bytes decide — ours (a key only this writer mints): done; others:
   * `blob-key-exists`, never an overwrite.
   */
  async set(key: string, bytes: Uint8Array, where: Where): Promise<void> {
    await pointAt(this.scheduler, 'blob.set', where, bytes.length);
    const io = this.#retry(where);
    const stored = await retryExternal(io, 'blob.set', () => this.blob.setIfAbsent(key, bytes));
    if (!stored) {
      const existing = await retryExternal(io, 'blob.get', () => this.blob.get(key));
      if (existing === undefined || Buffer.compare(existing, bytes) !== 0) {
        throw new SbkitError('blob-key-exists', `blob PUT refused: key ${JSON.stringify(key)} already exists (writer ${JSON.stringify(this.prefix)} never overwrites)`);
      }
    }
    this.metrics.c.blobPuts += 1;
    this.metrics.c.blobPutBytes += bytes.length;
  }

  /** Deletes `key` (idempotent), retried on storage failures unless `retries` is false. */
  async delete(key: string, where: Where, opts: { readonly retries: boolean } = { retries: true }): Promise<void> {
    await pointAt(this.scheduler, 'blob.delete', where);
    if (opts.retries) await retryExternal(this.#retry(where), 'blob.delete', () => this.blob.delete(key));
    else await this.blob.delete(key);
    this.metrics.c.blobDeletes += 1;
  }

  /** Every key in the store (leaked-blob cleanup), retried on storage failures. */
  async list(where: Where): Promise<string[]> {
    await pointAt(this.scheduler, 'blob.list', where);
    return retryExternal(this.#retry(where), 'blob.list', () => this.blob.list());
  }
}
