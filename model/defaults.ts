/**
 * A run's configuration where it says nothing, as the model states it (never read from impl/):
 * Materialize's persist defaults (blob_target_size 128 MiB, inline_writes_single_max_bytes 4096,
 * inline_writes_total_max_bytes 1 MiB, persist_batch_max_runs 1: vocab/PROTOCOL.md "Batches and parts",
 * "Runs"), the kit's chunk of a shared worker's pushes, a sink's as-of (0: the fresh shard's upper), the
 * sync sink; per variant, the barrier flag and the no-data policy its policy and meta say
 * (model/variants/index.ts `defaultBarrier`, `defaultNoData`). The
 * conformance check leaves every field at one of these values out of the implementation's
 * configuration, so the implementation's own default runs and is judged against the model's.
 */
import type { PersistConfig, SinkVersion } from '../vocab/index.ts';

const MiB = 1024 * 1024;

export const MODEL_DEFAULTS: {
  readonly persist: Required<PersistConfig>;
  readonly pushChunkUpdates: number;
  readonly asOf: number;
  readonly sink: SinkVersion;
} = {
  persist: { blobTargetSize: 128 * MiB, inlineSingleMaxBytes: 4096, inlineTotalMaxBytes: MiB, maxRuns: 1 },
  pushChunkUpdates: 256,
  asOf: 0,
  sink: 'v2',
};
