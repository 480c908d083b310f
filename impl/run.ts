/**
 * runSink: R replicas of the MV sink write one shard; resolves once every replica's lower reached K
 * and every task ended, with metrics and an audit of the shard.
 *
 * Starting (again) on existing storage: before any task exists, the run claims a writer incarnation
 * from consensus (writer-id.ts; its replicas' part keys are prefixed `w<incarnation>-r<replica>`) and
 * reads the shard's upper, from which every replica's sink starts (its first lower, hence its first
 * mint). A fresh shard gives incarnation 0 and upper 0, as the model assumes. These two reads decide no
 * interleaving (nothing else of the run runs yet), so they pass no scheduling point.
 */
import type { Metrics } from './metrics.ts';
import { MetricsRecorder } from './metrics.ts';
import { auditShard, type Audit } from './audit.ts';
import { BlobClient } from './persist/blob-client.ts';
import { ShardWriter } from './persist/shard-writer.ts';
import { loadShardState } from './persist/state.ts';
import { claimIncarnation, writerId } from './persist/writer-id.ts';
import { TaskGroup } from './runtime/task-group.ts';
import { Trace } from './runtime/trace.ts';
import { resolveRunConfig, type RunConfig } from './run-config.ts';
import { ReplicaState } from './sink/replica-state.ts';
import { startReplica } from './sink/replica.ts';
import { partitionWorker, type Update } from './update.ts';

export type { RunConfig } from './run-config.ts';
export type { Pacing } from './sink/replica-state.ts';
export type { MaxBytesKnob } from './sink/route.ts';

export interface RunResult {
  metrics: Metrics;
  audit: Audit;
  /** The shard's final upper. */
  upper: number;
  trace?: never;
}

/** The consensus key of the sink's shard. */
export const SHARD_ID = 'mv-sink-shard';

export async function runSink(config: RunConfig): Promise<RunResult> {
  const run = resolveRunConfig(config);
  const metrics = new MetricsRecorder();
  const tasks = new TaskGroup();
  const trace = new Trace(run.observer);

  const workers = run.processes * run.workersPerProcess;
  const byWorker: Update[][] = Array.from({ length: workers }, () => []);
  for (const u of [...run.updates].sort((a, b) => a.time - b.time || a.id - b.id)) byWorker[partitionWorker(u.key, workers)]?.push(u);

  const incarnation = await claimIncarnation(run.consensus, SHARD_ID, metrics);
  const start = await loadShardState(run.consensus, SHARD_ID);
  for (let replica = 0; replica < run.replicas; replica++) {
    const blob = new BlobClient(run.blob, run.scheduler, metrics, writerId(incarnation, replica));
    const shard = new ShardWriter({
      shardId: SHARD_ID,
      consensus: run.consensus,
      blob,
      scheduler: run.scheduler,
      metrics,
      config: run.persist,
      where: { replica },
    });
    const state = new ReplicaState(
      {
        replica,
        variant: run.variant,
        processes: run.processes,
        workersPerProcess: run.workersPerProcess,
        intervals: run.intervals,
        maxBytes: run.maxBytes,
        pushChunkUpdates: run.pushChunkUpdates,
        pacing: run.pacing,
        startLower: start.upper,
      },
      { scheduler: run.scheduler, trace, bugs: run.bugs, metrics, spawn: tasks.spawn, shard, writer: { config: run.persist, blob, metrics } },
      byWorker,
    );
    startReplica(state);
  }
  await tasks.whenAllDone();

  const state = await loadShardState(run.consensus, SHARD_ID);
  const audit = await auditShard(state, run.blob, run.updates);
  return { metrics: metrics.snapshot(audit.leakedBlobs), audit, upper: state.upper };
}
