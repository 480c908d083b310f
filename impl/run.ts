/**
 * runSink: R replicas of the MV sink write one shard; resolves once every replica's current incarnation
 * finished (its lower reached K) and every task ended, with metrics, where the leaks came from, and an
 * audit of the shard and the blob store.
 *
 * The supervisor (supervisor.ts) starts each replica as a writer incarnation: before any task exists it
 * claims a writer id per replica from consensus (writer-registry.ts; part keys `w<n>-r<replica>/…`) and
 * reads the shard's upper, from which every sink starts. A fresh shard gives upper 0, as the model
 * assumes. These reads decide no interleaving, so they pass no scheduling point, and the run's fault
 * plan (if any) is armed only after them. A scheduler that decides faults gets the run's control
 * (`attach`) and may abort replicas; each abort is followed by a restart, and, with cleanup on, by a
 * leaked-blob cleanup; one more cleanup runs when every replica finished.
 */
import type { Metrics } from './metrics.ts';
import { MetricsRecorder } from './metrics.ts';
import { auditShard, type Audit } from './audit.ts';
import { ArmedPlan, FaultyBlob, FaultyConsensus, type FaultStats } from './persist/faulty.ts';
import { loadShardState, type ShardState } from './persist/state.ts';
import { readWriters, writerOfKey } from './persist/writer-registry.ts';
import { Trace } from './runtime/trace.ts';
import { DEFAULT_SHARD_ID, resolveRunConfig, type RunConfig } from './run-config.ts';
import { blobOf, shardIdOf, traceOf } from './sinks.ts';
import { Supervisor, type CollectedBlobs, type SinkEnv } from './supervisor.ts';
import { partitionWorker, type Update } from './update.ts';

export type { RunConfig } from './run-config.ts';
export type { Pacing } from './sink/replica-state.ts';
export type { MaxBytesKnob } from './sink/route.ts';

/**
 * Where the blobs that leaked came from. A leak is a blob no state references; it is expected from an
 * incarnation that was aborted (teardown, crash), a bug from one that finished. Counted over the whole
 * run: blobs cleanup collected along the way, plus those still there before the final cleanup.
 */
export interface Leaks {
  /** Written by aborted (expired) incarnations. */
  readonly fromAborted: number;
  /** Written by incarnations that finished normally, or by no writer the registry knows. */
  readonly fromLive: number;
  /** Leaked blobs cleanup deleted (along the way and at the end). */
  readonly collected: number;
  /** Deleted by cleanup although their writer could still append (only the cleanup bug does that). */
  readonly collectedFromLiveWriters: number;
}

/** What one MV sink's shard holds at the end (RunConfig.sinks; sink 0's is also RunResult's own). */
export interface SinkResult {
  readonly audit: Audit;
  readonly upper: number;
  readonly leaks: Leaks;
}

export interface RunResult {
  metrics: Metrics;
  /** The shard and the blob store at the end (after the final cleanup, when cleanup is on); with
   * several sinks, sink 0's (every sink's in `bySink`). */
  audit: Audit;
  /** The shard's final upper. */
  upper: number;
  leaks: Leaks;
  /** Per MV sink (index = sink; one entry in a one-sink run, equal to the fields above). */
  bySink: readonly SinkResult[];
  /** Faults the run's fault plan injected, by `op/fault` (empty without a plan). */
  faultsInjected: FaultStats;
  trace?: never;
}

/** The consensus key of the sink's shard (unless the run names its own: RunConfig.shardId). */
export const SHARD_ID = DEFAULT_SHARD_ID;

export async function runSink(config: RunConfig): Promise<RunResult> {
  const run = resolveRunConfig(config);
  const metrics = new MetricsRecorder();
  const trace = new Trace(run.observer);
  const plan = run.faults === undefined ? undefined : new ArmedPlan(run.faults);
  const faultsInjected: FaultStats = {};
  const blob = plan === undefined ? run.blob : new FaultyBlob(run.blob, plan, faultsInjected);
  const consensus = plan === undefined ? run.consensus : new FaultyConsensus(run.consensus, plan, faultsInjected);

  const workers = run.processes * run.workersPerProcess;
  const sinks: SinkEnv[] = run.updatesBySink.map((updates, sink) => ({
    sink,
    shardId: shardIdOf(run.shardId, sink),
    blob: blobOf(blob, sink, run.sinks),
    trace: sink === 0 ? trace : traceOf(run.observer, sink),
    byWorker: byWorkerOf(updates, workers),
  }));

  const supervisor = new Supervisor({ run, metrics, trace, consensus, sinks });
  await supervisor.startAll();
  // Nothing has run yet: the tasks start on the next microtask.
  plan?.arm();
  run.scheduler.attach?.(supervisor);
  await supervisor.whenDone();

  // Where the leaks came from, before the final cleanup takes them (every writer is retired by now).
  const befores: Audit[] = [];
  const states: ShardState[] = [];
  const leaks: { fromAborted: number; fromLive: number }[] = [];
  for (const [s, updates] of run.updatesBySink.entries()) {
    const shardId = shardIdOf(run.shardId, s);
    const state = await loadShardState(run.consensus, shardId);
    states.push(state);
    const before = await auditShard(state, blobOf(run.blob, s, run.sinks), updates);
    const writers = await readWriters(run.consensus, shardId);
    const c = supervisor.collectedBySink[s] as CollectedBlobs; // one per sink
    let fromAborted = c.expired;
    let fromLive = c.finished + c.live;
    for (const key of before.leakedKeys) {
      const w = writerOfKey(key);
      if (w !== undefined && writers.get(w)?.retired === 'expired') fromAborted += 1;
      else fromLive += 1;
    }
    befores.push(before);
    leaks.push({ fromAborted, fromLive });
  }
  if (run.cleanup) await supervisor.cleanup(0);

  const bySink: SinkResult[] = [];
  for (const [s, updates] of run.updatesBySink.entries()) {
    const shardId = shardIdOf(run.shardId, s);
    // Without the final cleanup nothing wrote since the read above: the shard's state is that one.
    const state = run.cleanup ? await loadShardState(run.consensus, shardId) : (states[s] as ShardState);
    const audit = run.cleanup ? await auditShard(state, blobOf(run.blob, s, run.sinks), updates) : (befores[s] as Audit);
    const c = supervisor.collectedBySink[s] as CollectedBlobs;
    const { fromAborted, fromLive } = leaks[s] as { fromAborted: number; fromLive: number };
    bySink.push({
      audit,
      upper: state.upper,
      leaks: { fromAborted, fromLive, collected: c.expired + c.finished + c.live, collectedFromLiveWriters: c.live },
    });
  }
  const first = bySink[0] as SinkResult;
  return {
    metrics: metrics.snapshot(bySink.reduce((n, r) => n + r.audit.leakedBlobs, 0)),
    audit: first.audit,
    upper: first.upper,
    leaks: first.leaks,
    bySink,
    faultsInjected,
  };
}

/** Per worker of a replica, its updates ascending by (time, id). */
function byWorkerOf(updates: readonly Update[], workers: number): Update[][] {
  const byWorker: Update[][] = Array.from({ length: workers }, () => []);
  for (const u of [...updates].sort((a, b) => a.time - b.time || a.id - b.id)) byWorker[partitionWorker(u.key, workers)]?.push(u);
  return byWorker;
}

export type { CollectedBlobs };
