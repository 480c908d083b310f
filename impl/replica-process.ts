/**
 * One incarnation of one replica's sink, alone in its process: what a replica process of the crash test
 * (explore/crash/) runs on a shared shard, next to other replica processes and its own earlier and
 * later incarnations. runSink (run.ts) runs every replica of a run in one process under one
 * supervisor; here the supervisor is another process, and an abort is a SIGKILL of this one.
 *
 * The start is the supervisor's (supervisor.ts): claim a writer id for the replica (expiring the
 * replica's earlier incarnations, whose leaks become collectable), read the shard's upper, start the
 * sink there — so a restarted incarnation writes only what the shard does not hold yet. A restarted
 * incarnation emits `restart` at that upper (vocab/PROTOCOL.md "Faults"); a first one starts at the
 * upper it read without an event, as every replica of a run starts (the model assumes 0: the caller
 * makes sure no replica appended before every first incarnation read it, e.g. with `beforeStart`).
 * When every task ended, the writer is retired as finished.
 *
 * Invariants:
 * - the claim comes before the shard read (a commit the incarnation's predecessor had in flight is
 *   either in the upper it reads or never happens: the caller waits for the predecessor to be gone);
 * - no fault plan and no cleanup here: faults are real, and cleanup is the supervisor's (gc.ts).
 */
import { Notify } from './runtime/notify.ts';
import { SbkitError, requireInteger } from './errors.ts';
import { MetricsRecorder, type Metrics } from './metrics.ts';
import type { BatchWriter } from './persist/batch-builder.ts';
import { BlobClient } from './persist/blob-client.ts';
import { ShardWriter } from './persist/shard-writer.ts';
import { loadShardState } from './persist/state.ts';
import { claimWriter, retireWriter, type WriterRecord } from './persist/writer-registry.ts';
import { resolveRunConfig, sinkSettingsOf, type RunConfig } from './run-config.ts';
import { TaskGroup } from './runtime/task-group.ts';
import { Trace } from './runtime/trace.ts';
import { ReplicaState } from './sink/replica-state.ts';
import { startReplica } from './sink/replica.ts';
import { partitionWorker, type Update } from './update.ts';

export interface IncarnationConfig extends RunConfig {
  /** Which replica of the run's `replicas` this process is. */
  readonly replica: number;
  /** An earlier incarnation of this replica ran (and was killed): emit `restart`. */
  readonly restarted: boolean;
  /** Called after the writer claim, before the shard's upper is read (a start gate). */
  readonly beforeStart?: (writer: WriterRecord) => Promise<void>;
  /** Called once the sink's tasks exist, with the upper it started at. */
  readonly onStart?: (started: { readonly writer: WriterRecord; readonly upper: number }) => void;
}

export interface IncarnationResult {
  readonly writer: WriterRecord;
  /** The shard's upper this incarnation started at. */
  readonly startUpper: number;
  readonly metrics: Metrics;
}

export async function runIncarnation(config: IncarnationConfig): Promise<IncarnationResult> {
  const run = resolveRunConfig(config);
  const replica = requireInteger(config.replica, 0, 'replica', 'invalid-config');
  if (replica >= run.replicas) throw new SbkitError('invalid-config', `replica must be below replicas (${run.replicas}), got ${replica}`);
  if (run.faults !== undefined || config.cleanup === true) {
    throw new SbkitError('invalid-config', 'a replica process takes no fault plan and runs no cleanup (its faults are real; cleanup is the supervisor\'s)');
  }
  const { consensus, shardId } = run;
  const metrics = new MetricsRecorder();
  const trace = new Trace(run.observer);

  const writer = await claimWriter(consensus, shardId, replica, metrics);
  await config.beforeStart?.(writer);
  const upper = Math.max(run.asOf, (await loadShardState(consensus, shardId)).upper);
  if (config.restarted) trace.emit({ kind: 'restart', replica, lower: upper });

  const workers = run.processes * run.workersPerProcess;
  const byWorker: Update[][] = Array.from({ length: workers }, () => []);
  for (const u of [...run.updates].sort((a, b) => a.time - b.time || a.id - b.id)) byWorker[partitionWorker(u.key, workers)]?.push(u);

  const tasks = new TaskGroup();
  const scheduler = run.scheduler;
  const blob = new BlobClient(run.blob, scheduler, metrics, writer.id, trace);
  const where = { replica };
  const shard = new ShardWriter({ shardId, consensus, blob, scheduler, metrics, config: run.persist, where, trace, bugs: run.bugs });
  const writerDeps: BatchWriter = { config: run.persist, blob, metrics, shardId };
  const state = new ReplicaState(
    sinkSettingsOf(run, replica, upper, config.restarted),
    { scheduler, trace, bugs: run.bugs, metrics, spawn: tasks.spawn, shard, writer: writerDeps, shardMoved: new Notify() },
    byWorker,
  );
  startReplica(state);
  config.onStart?.({ writer, upper });
  await tasks.whenAllDone();
  await retireWriter(consensus, shardId, writer, 'finished', metrics);
  return { writer, startUpper: upper, metrics: metrics.snapshot(0) };
}
