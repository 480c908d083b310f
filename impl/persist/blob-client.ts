/**
 * A writer's access to blob storage: every call passes a scheduling point first, is counted in the
 * run's metrics, and part keys are minted unique per writer.
 */
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
    /** Distinguishes writers (replicas) sharing one blob store. */
    private readonly prefix: string,
  ) {}

  newPartKey(): string {
    return `${this.prefix}/part-${this.#nextKey++}`;
  }

  async set(key: string, bytes: Uint8Array, where: Where): Promise<void> {
    await pointAt(this.scheduler, 'blob.set', where, bytes.length);
    await this.blob.set(key, bytes);
    this.metrics.c.blobPuts += 1;
    this.metrics.c.blobPutBytes += bytes.length;
  }

  async delete(key: string, where: Where): Promise<void> {
    await pointAt(this.scheduler, 'blob.delete', where);
    await this.blob.delete(key);
    this.metrics.c.blobDeletes += 1;
  }
}
