/**
 * What one run cost and did, counted where it happens (blob client, shard writer, builders, append).
 *
 * Definitions:
 * - `appends`: successful compare-and-appends of the sink that carried at least one batch
 *   (`emptyAppends` only advanced the upper; `bumps` are the empty appends of the current < lower case).
 * - `appendAttempts`: every compareAndAppend call the sink made (bumps included).
 * - `consensusCommands`: every compare-and-set attempted on the shard's state (committed or not: a
 *   CaS that lost a race to another writer counts too, and so do bumps and inline-backpressure
 *   retries that reach a CaS). Committed commands = consensusCommands − consensusCasFailed.
 * - `consensusCasFailed`: those of consensusCommands that lost a race (the head moved between the
 *   writer's read and its CaS); the step is then re-evaluated on the fresh state.
 * - `writerRegistrations`: compare-and-sets on the shard's writer registry (writer-registry.ts): one per run
 *   that claimed an incarnation, more only after a lost race. Not in consensusCommands.
 * - `stateDiffBytes`: encoded bytes of every state diff committed to consensus.
 * - parts and batches: of appended batches, after inline backpressure flushed parts to blob.
 * - `inlineFlushedParts`: inline parts flushed to blob by inline backpressure, counted when flushed —
 *   also when the retry then meets an upper mismatch and the batches are deleted (their PUTs are in
 *   blobPuts, their deletes in blobDeletes).
 * - `updatesWritten`: updates in every batch a builder finished (shared, own, orphaned alike).
 * - `runsAppended`: runs of appended batches (persist/runs.ts: one per part, unless a builder with
 *   persist_batch_max_runs ≥ 2 compacted them); `compactionRewrites`: part writes that compaction of
 *   merged runs costs while batches are built (computed from the merges, not performed as blob I/O).
 * - `batchesOrphaned`: shared batches built that no handle received (their parts leak).
 * - `blobsLeaked`: blob keys neither referenced by shard state nor deleted (from the audit).
 * - `faultsTransient` / `faultsIndeterminate` / `faultsPermanent`: storage failures the implementation
 *   saw (from a fault plan or a real backend), by kind; `retries`: retries they caused (retry.ts).
 * - `aborts` / `restarts`: replica incarnations torn down (a crash, a teardown, a permanent storage
 *   failure) and started again (supervisor.ts).
 * - `cleanupRuns` / `blobsCollected`: leaked-blob cleanups run and the blobs they deleted (gc.ts).
 */
export interface Metrics {
  readonly blobPuts: number;
  readonly blobPutBytes: number;
  readonly blobDeletes: number;
  readonly blobsLeaked: number;
  readonly consensusCommands: number;
  readonly consensusCasFailed: number;
  readonly writerRegistrations: number;
  readonly consensusHeads: number;
  readonly stateDiffBytes: number;
  readonly appends: number;
  readonly emptyAppends: number;
  readonly appendAttempts: number;
  readonly bumps: number;
  readonly mismatches: number;
  readonly partsHollow: number;
  readonly partsInline: number;
  readonly inlineFlushedParts: number;
  readonly batchesAppended: number;
  readonly batchesDeleted: number;
  readonly batchesOrphaned: number;
  readonly partsPerAppend: number;
  readonly batchesPerAppend: number;
  readonly updatesWritten: number;
  readonly updatesAppended: number;
  readonly runsAppended: number;
  readonly compactionRewrites: number;
  readonly faultsTransient: number;
  readonly faultsIndeterminate: number;
  readonly faultsPermanent: number;
  readonly retries: number;
  readonly aborts: number;
  readonly restarts: number;
  readonly cleanupRuns: number;
  readonly blobsCollected: number;
}

type Counters = { -readonly [K in Exclude<keyof Metrics, 'partsPerAppend' | 'batchesPerAppend' | 'blobsLeaked'>]: number };

/** The mutable counters of a run; `snapshot` derives the ratios. */
export class MetricsRecorder {
  readonly c: Counters = {
    blobPuts: 0,
    blobPutBytes: 0,
    blobDeletes: 0,
    consensusCommands: 0,
    consensusCasFailed: 0,
    writerRegistrations: 0,
    consensusHeads: 0,
    stateDiffBytes: 0,
    appends: 0,
    emptyAppends: 0,
    appendAttempts: 0,
    bumps: 0,
    mismatches: 0,
    partsHollow: 0,
    partsInline: 0,
    inlineFlushedParts: 0,
    batchesAppended: 0,
    batchesDeleted: 0,
    batchesOrphaned: 0,
    updatesWritten: 0,
    updatesAppended: 0,
    runsAppended: 0,
    compactionRewrites: 0,
    faultsTransient: 0,
    faultsIndeterminate: 0,
    faultsPermanent: 0,
    retries: 0,
    aborts: 0,
    restarts: 0,
    cleanupRuns: 0,
    blobsCollected: 0,
  };

  snapshot(blobsLeaked: number): Metrics {
    const c = this.c;
    const per = (n: number): number => (c.appends === 0 ? 0 : n / c.appends);
    return {
      ...c,
      blobsLeaked,
      partsPerAppend: per(c.partsHollow + c.partsInline),
      batchesPerAppend: per(c.batchesAppended),
    };
  }
}
