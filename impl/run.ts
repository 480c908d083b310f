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
import { loadShardState } from './persist/state.ts';
import { readWriters, writerOfKey } from './persist/writer-registry.ts';
import { Trace } from './runtime/trace.ts';
import { resolveRunConfig, type RunConfig } from './run-config.ts';
import { Supervisor, type CollectedBlobs } from './supervisor.ts';
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

export interface RunResult {
  metrics: Metrics;
  /** The shard and the blob store at the end (after the final cleanup, when cleanup is on). */
  audit: Audit;
  /** The shard's final upper. */
  upper: number;
  leaks: Leaks;
  /** Faults the run's fault plan injected, by `op/fault` (empty without a plan). */
  faultsInjected: FaultStats;
  trace?: never;
}

/** The consensus key of the sink's shard. */
export const SHARD_ID = 'mv-sink-shard';

export async function runSink(config: RunConfig): Promise<RunResult> {
  const run = resolveRunConfig(config);
  const metrics = new MetricsRecorder();
  const trace = new Trace(run.observer);
  const plan = run.faults === undefined ? undefined : new ArmedPlan(run.faults);
  const faultsInjected: FaultStats = {};
  const blob = plan === undefined ? run.blob : new FaultyBlob(run.blob, plan, faultsInjected);
  const consensus = plan === undefined ? run.consensus : new FaultyConsensus(run.consensus, plan, faultsInjected);

  const workers = run.processes * run.workersPerProcess;
  const byWorker: Update[][] = Array.from({ length: workers }, () => []);
  for (const u of [...run.updates].sort((a, b) => a.time - b.time || a.id - b.id)) byWorker[partitionWorker(u.key, workers)]?.push(u);

  const supervisor = new Supervisor({ run, shardId: SHARD_ID, metrics, trace, blob, consensus, byWorker });
  await supervisor.startAll();
  // Nothing has run yet: the tasks start on the next microtask.
  plan?.arm();
  run.scheduler.attach?.(supervisor);
  await supervisor.whenDone();

  // Where the leaks came from, before the final cleanup takes them (every writer is retired by now).
  const before = await auditShard(await loadShardState(run.consensus, SHARD_ID), run.blob, run.updates);
  const writers = await readWriters(run.consensus, SHARD_ID);
  let fromAborted = supervisor.collected.expired;
  let fromLive = supervisor.collected.finished + supervisor.collected.live;
  for (const key of before.leakedKeys) {
    const w = writerOfKey(key);
    if (w !== undefined && writers.get(w)?.retired === 'expired') fromAborted += 1;
    else fromLive += 1;
  }
  if (run.cleanup) await supervisor.cleanup(0);

  const state = await loadShardState(run.consensus, SHARD_ID);
  const audit = run.cleanup ? await auditShard(state, run.blob, run.updates) : before;
  const c = supervisor.collected;
  return {
    metrics: metrics.snapshot(audit.leakedBlobs),
    audit,
    upper: state.upper,
    leaks: { fromAborted, fromLive, collected: c.expired + c.finished + c.live, collectedFromLiveWriters: c.live },
    faultsInjected,
  };
}

export type { CollectedBlobs };
