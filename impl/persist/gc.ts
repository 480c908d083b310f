/**
 * Leaked-blob cleanup, like persist's: deletes blobs that no state version references and whose writer
 * can no longer append (retired in the writer registry: finished, or expired by a later incarnation of
 * its replica after a teardown or crash). It may run concurrently with live writers.
 *
 * Order matters (SUBTLE): the registry is read first, then state, then the blob listing. A writer retired
 * at the first read never commits again, so a blob of it that no state references at the second read
 * stays unreferenced forever: deleting it cannot break a later append. A live writer's blob that is
 * written but not yet appended (in flight) is never a candidate — whatever its age — and neither is a
 * key no writer of the registry minted.
 *
 * Bug `cleanup-deletes-in-flight-part`: the writer check is skipped, so a live writer's in-flight part
 * is deleted and its append then references a missing blob.
 */
import type { BugSwitches } from '../bugs.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Trace } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';
import type { BlobClient } from './blob-client.ts';
import type { Consensus } from './consensus.ts';
import { retryExternal, type RetryContext } from './retry.ts';
import { applyVersions, EMPTY_SHARD_STATE } from './state.ts';
import { readWriters, writerOfKey, type Retired } from './writer-registry.ts';

export interface CleanupDeps {
  readonly shardId: string;
  readonly consensus: Consensus;
  /** Its writer id does not matter: cleanup mints no keys. */
  readonly blob: BlobClient;
  readonly scheduler: Scheduler;
  readonly metrics: MetricsRecorder;
  readonly trace: Trace;
  readonly bugs: BugSwitches;
  /** Whose writer runs it (the trace's `cleanup` event names the replica). */
  readonly where: Where;
}

export interface Collected {
  readonly key: string;
  /** Why its writer can no longer append (null: the writer is live or unknown — only the bug does that). */
  readonly writer: Retired | null;
}

/** Runs one cleanup; returns what it deleted and emits `cleanup`. */
export async function collectLeakedBlobs(deps: CleanupDeps): Promise<Collected[]> {
  const { shardId, consensus, blob, scheduler, metrics, trace, bugs, where } = deps;
  // Cleanup is a supervisor step (it starts over after a permanent failure): its faults say so.
  const io: RetryContext = { scheduler, where, trace, metrics, by: 'supervisor' };
  await pointAt(scheduler, 'cleanup.writers', where);
  const writers = await readWriters(consensus, shardId, io);
  await pointAt(scheduler, 'cleanup.state', where);
  const versions = await retryExternal(io, 'consensus.scan', () => consensus.scan(shardId, 0));
  const state = applyVersions(EMPTY_SHARD_STATE, versions);
  const referenced = new Set<string>();
  for (const b of state.batches) for (const p of b.parts) if (p.kind === 'hollow') referenced.add(p.key);
  const keys = await blob.list(where);
  const doomed = keys.filter((key) => {
    if (referenced.has(key)) return false;
    if (bugs.has('cleanup-deletes-in-flight-part')) return true; // BUG: no writer check
    const writer = writerOfKey(key);
    const retired = writer === undefined ? null : (writers.get(writer)?.retired ?? null);
    return retired !== null;
  });
  for (const key of doomed) await blob.delete(key, where);
  metrics.c.cleanupRuns += 1;
  metrics.c.blobsCollected += doomed.length;
  trace.emit({ kind: 'cleanup', replica: where.replica, deleted: doomed.length });
  return doomed.map((key) => {
    const writer = writerOfKey(key);
    return { key, writer: writer === undefined ? null : (writers.get(writer)?.retired ?? null) };
  });
}
