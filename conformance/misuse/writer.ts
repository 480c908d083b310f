/**
 * The persist objects a program writes through: a writer (config, blob client, metrics, trace) on an in-
 * memory store, and where its calls happen.
 */
import type { PersistConfig } from '../../vocab/index.ts';
import { MetricsRecorder } from '../../impl/metrics.ts';
import { BlobClient } from '../../impl/persist/blob-client.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import { resolvePersistConfig } from '../../impl/persist/config.ts';
import { Trace } from '../../impl/runtime/trace.ts';
import { programScheduler } from './scheduler.ts';

/** The shard a program's writers write. */
export const SHARD = 's';

/** A writer of `SHARD` over `blob` with `persist`'s configuration, under the programs' scheduler. */
export function writerOf(persist: Partial<PersistConfig>, blob: MemBlob = new MemBlob(), prefix = 'm0') {
  const metrics = new MetricsRecorder();
  const trace = new Trace();
  const config = resolvePersistConfig(persist);
  return { config, blob: new BlobClient(blob, programScheduler, metrics, prefix, trace), metrics, trace, store: blob, shardId: SHARD };
}

/** Where every call of a program happens: replica 0. */
export const WHERE = { replica: 0 };
