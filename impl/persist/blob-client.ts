/**
 * A writer's access to blob storage: every call passes a scheduling point first, is counted in the
 * run's metrics, and part keys are minted unique per writer.
 *
 * Invariants:
 * - part keys are `<writerId>/part-<n>`, n counting from 0 per client; the writer id is unique per
 *   writer incarnation (writer-id.ts), so no two clients of one shard — in this run, an earlier one or
 *   a concurrent one — mint the same key;
 * - a PUT never overwrites: `set` is a conditional PUT and a key that already exists is refused with
 *   `blob-key-exists` (the existing object is kept), whatever minted it.
 */
import { SbkitError } from '../errors.ts';
import type { Scheduler } from '../seams.ts';
import type { MetricsRecorder } from '../metrics.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Blob } from './blob.ts';

export class BlobClient {
  #nextKey = 0;

  constructor(
    readonly blob: Blob,
    private readonly scheduler: Scheduler,
    private readonly metrics: MetricsRecorder,
    /** The writer id (unique per writer incarnation, see writer-id.ts): the prefix of every part key. */
    private readonly prefix: string,
  ) {}

  newPartKey(): string {
    return `${this.prefix}/part-${this.#nextKey++}`;
  }

  async set(key: string, bytes: Uint8Array, where: Where): Promise<void> {
    await pointAt(this.scheduler, 'blob.set', where, bytes.length);
    if (!(await this.blob.setIfAbsent(key, bytes))) {
      throw new SbkitError('blob-key-exists', `blob PUT refused: key ${JSON.stringify(key)} already exists (writer ${JSON.stringify(this.prefix)} never overwrites)`);
    }
    this.metrics.c.blobPuts += 1;
    this.metrics.c.blobPutBytes += bytes.length;
  }

  async delete(key: string, where: Where): Promise<void> {
    await pointAt(this.scheduler, 'blob.delete', where);
    await this.blob.delete(key);
    this.metrics.c.blobDeletes += 1;
  }
}
