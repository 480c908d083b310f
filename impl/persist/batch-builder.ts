/**
 * Builds one batch from updates received in order (persist's `BatchBuilder`), cutting parts by size.
 *
 * Rule (PROTOCOL.md "Batches and parts"): append updates one by one to a buffer; right after an append,
 * if the buffer's payload bytes ≥ blobTargetSize, cut it as a part. finish() cuts a non-empty buffer as
 * the last part. A part is inline iff payload < inlineSingleMaxBytes, else hollow (one blob PUT).
 */
import type { PersistConfig, Time, UpdateId } from '../../vocab/index.ts';
import { SbkitError } from '../errors.ts';
import type { MetricsRecorder } from '../metrics.ts';
import { encodePart } from '../part-codec.ts';
import type { Where } from '../runtime/where.ts';
import { encodedUpdateSize, type Update } from '../update.ts';
import { Batch } from './batch.ts';
import type { BlobClient } from './blob-client.ts';
import type { Part } from './part.ts';
import { maxRunsLimit, runsOf } from './runs.ts';

/** Everything a builder needs from its writer (one per replica). */
export interface BatchWriter {
  readonly config: PersistConfig;
  readonly blob: BlobClient;
  readonly metrics: MetricsRecorder;
  /** The shard its batches are for (persist's `Batch::shard_id`). */
  readonly shardId: string;
}

export class BatchBuilder {
  #buffer: Update[] = [];
  #bufferBytes = 0;
  readonly #parts: Part[] = [];
  readonly #ids: UpdateId[] = [];
  #finished = false;
  /** The run limit this builder compacts to (`null`: every part is its own run). */
  readonly maxRuns: number | null;

  constructor(
    private readonly writer: BatchWriter,
    readonly lower: Time,
    readonly upper: Time,
    private readonly where: Where,
    /** Omitted: the writer's configured persist_batch_max_runs (own batches); `null`: `None`, the shared
     * builder's hard-coded limit. No other value: a limit comes from a validated config only. */
    maxRuns?: null,
  ) {
    this.maxRuns = maxRuns === undefined ? maxRunsLimit(writer.config.maxRuns) : maxRuns;
  }

  /** Adds updates in order. Awaits only when a part is cut and PUT. All-or-nothing on bad input. */
  async add(updates: readonly Update[]): Promise<void> {
    if (this.#finished) throw new SbkitError('push-after-finish', 'add() on a batch builder after finish()');
    for (const u of updates) {
      if (!(u.time >= this.lower && u.time < this.upper)) {
        throw new SbkitError(
          'update-outside-description',
          `update ${u.id} has time ${u.time}, outside the batch's [${this.lower}, ${this.upper})`,
        );
      }
    }
    const target = this.writer.config.blobTargetSize;
    for (const u of updates) {
      this.#buffer.push(u);
      this.#ids.push(u.id);
      this.#bufferBytes += encodedUpdateSize(u);
      if (this.#bufferBytes >= target) await this.#cut();
    }
  }

  /** The batch (no parts if nothing was added). */
  async finish(): Promise<Batch> {
    if (this.#finished) throw new SbkitError('finish-twice', 'finish() on a batch builder that already finished');
    this.#finished = true;
    if (this.#buffer.length > 0) await this.#cut();
    this.writer.metrics.c.updatesWritten += this.#ids.length;
    const runs = runsOf(this.#parts.length, this.maxRuns);
    this.writer.metrics.c.compactionRewrites += runs.rewrites;
    return new Batch(this.lower, this.upper, this.#parts, this.#ids, this.writer.blob, this.where, runs.runs, this.writer.shardId);
  }

  async #cut(): Promise<void> {
    const updates = this.#buffer;
    const payload = this.#bufferBytes;
    this.#buffer = [];
    this.#bufferBytes = 0;
    const data = encodePart(updates, payload);
    if (payload < this.writer.config.inlineSingleMaxBytes) {
      this.#parts.push({ kind: 'inline', data, payloadBytes: payload, updates: updates.length });
      return;
    }
    const key = this.writer.blob.newPartKey();
    // SUBTLE: the part is recorded only after its PUT completed; a builder that fails mid-PUT leaves a
    // blob nobody references, which the audit reports as leaked.
    await this.writer.blob.set(key, data, this.where);
    this.#parts.push({ kind: 'hollow', key, encodedBytes: data.length, payloadBytes: payload, updates: updates.length });
  }
}
