/**
 * `sbkit crash-test`, end to end: open the shard's stores, run the supervisor (supervisor.ts) with its
 * seeded kill plan (plan.ts), then judge what is left:
 * - the audit of the real database and files, through fresh clients: the shard holds the desired
 *   collection below K (0 lost, 0 duplicated, no reference to a missing blob), and after the final
 *   cleanup no blob leaks;
 * - leaks: blobs killed incarnations left (collected by the cleanups), and none from a live writer;
 * - the joined trace (join.ts), in the shard's order, replayed on the model (every append predicted,
 *   nothing pending) and judged by spec/'s properties (real-check.ts), with the audit's storage facts.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PERSIST_CONFIG } from '../../impl/persist/config.ts';
import { auditShard, type Audit } from '../../impl/audit.ts';
import { openConsensus, parseBlobSpec, parseConsensusSpec } from '../../impl/persist/backends.ts';
import { FileBlob } from '../../impl/persist/file-blob.ts';
import { redactUrl } from '../../impl/persist/pg-consensus.ts';
import { decodeDiff } from '../../impl/persist/state-diff.ts';
import { applyVersions, EMPTY_SHARD_STATE, type StateDiff } from '../../impl/persist/state.ts';
import { readWriters, writerOfKey, type WriterRecord } from '../../impl/persist/writer-registry.ts';
import { encodedUpdateSize, partitionWorker } from '../../impl/update.ts';
import type { ModelConfig } from '../../model/config.ts';
import type { StorageFacts } from '../../spec/view.ts';
import { checkRealTrace, type RealCheck } from '../real-check.ts';
import { type Reason, incomplete, violation } from '../command.ts';
import { generateUpdates } from '../workload.ts';
import { openSessionFence } from './fence.ts';
import { joinTraces } from './join.ts';
import { killPlan, type KillPlan } from './plan.ts';
import { CrashSupervisor, type Hold, type SupervisedRun, type Workload } from './supervisor.ts';

export interface CrashOptions {
  readonly workload: Workload;
  readonly kills: number;
  readonly seconds: number;
  /** `postgres://…` (its `table` option included). */
  readonly consensus: string;
  /** `file:DIR`: the run's directory is made under DIR. */
  readonly blob: string;
  readonly progress?: (line: string) => void;
  /** Tests only (supervisor.ts): a replica process frozen at a point, and a stop on a progress line. */
  readonly hold?: Hold;
  readonly stopWhen?: (line: string) => boolean;
}

export interface Leaks {
  /** Blobs killed incarnations wrote and no state references (expected: collected by cleanup). */
  readonly fromKilled: number;
  /** Blobs unreferenced though their writer finished (or is unknown): a bug. */
  readonly fromLive: number;
  readonly collected: number;
  /** Unreferenced blobs after the final cleanup. */
  readonly left: number;
  readonly cleanups: number;
  /** Temp files of PUTs a kill interrupted (FileBlob's dot files: never keys, never visible). */
  readonly tornPuts: number;
}

export interface CrashReport {
  readonly seed: number;
  readonly workload: Workload;
  readonly shardId: string;
  readonly consensus: string;
  readonly runDir: string;
  readonly plan: KillPlan;
  readonly run: SupervisedRun;
  readonly audit: Audit;
  readonly leaks: Leaks;
  readonly join: { readonly ok: true; readonly events: number; readonly inflightApplied: number; readonly tails: readonly string[] } | { readonly ok: false; readonly why: string };
  readonly check?: RealCheck;
  /** Everything that failed (empty: nothing the run could judge failed). */
  readonly failures: readonly string[];
  /** Why the run is incomplete (the time bound, kills it could not make): no verdict on what did not run. */
  readonly incomplete: readonly string[];
}

export function crashShardId(seed: number): string {
  return `crash-s${seed}-${Date.now().toString(36)}-${process.pid.toString(36)}`;
}

export async function runCrashTest(opts: CrashOptions): Promise<CrashReport> {
  const { workload } = opts;
  const pgSpec = parseConsensusSpec(opts.consensus);
  const blobSpec = parseBlobSpec(opts.blob);
  if (pgSpec.kind !== 'postgres' || blobSpec.kind !== 'file') throw new Error('crash-test needs postgres:// consensus and file: blob');
  const shardId = crashShardId(workload.seed);
  const runDir = path.resolve(blobSpec.dir, shardId);
  mkdirSync(path.join(runDir, 'blob'), { recursive: true });
  const plan = killPlan({ seed: workload.seed, kills: opts.kills, replicas: workload.replicas, intervals: workload.intervals, intervalMs: workload.intervalMs });

  const consensus = await openConsensus(opts.consensus, { applicationName: 'sbkit-crash-supervisor' });
  const blob = await FileBlob.open(path.join(runDir, 'blob'));
  const fence = await openSessionFence(pgSpec.url);
  let run: SupervisedRun;
  try {
    const supervisor = new CrashSupervisor({
      workload,
      plan,
      seconds: opts.seconds,
      consensusUrl: opts.consensus,
      shardId,
      runDir,
      consensus: consensus.store,
      blob,
      fence,
      ...(opts.progress === undefined ? {} : { progress: opts.progress }),
      ...(opts.hold === undefined ? {} : { hold: opts.hold }),
      ...(opts.stopWhen === undefined ? {} : { stopWhen: opts.stopWhen }),
    });
    run = await supervisor.run();
  } finally {
    await fence.close();
    await consensus.close();
  }

  // The audit, through fresh clients on the same database and directory.
  const reader = await openConsensus(opts.consensus, { applicationName: 'sbkit-crash-audit' });
  const updates = generateUpdates({ intervals: workload.intervals, rows: workload.rows, rowBytes: workload.rowBytes, seed: workload.seed });
  let audit: Audit;
  let diffs: StateDiff[];
  let writers: Map<string, WriterRecord>;
  try {
    const versions = await reader.store.scan(shardId, 0);
    diffs = versions.map((v) => decodeDiff(v.data));
    audit = await auditShard(applyVersions(EMPTY_SHARD_STATE, versions), await FileBlob.open(run.blobDir), updates);
    writers = await readWriters(reader.store, shardId);
  } finally {
    await reader.close();
  }

  const collected = run.cleanups.flat();
  const expired = (key: string): boolean => {
    const w = writerOfKey(key);
    return w !== undefined && writers.get(w)?.retired === 'expired';
  };
  const left = audit.leakedKeys;
  const leaks: Leaks = {
    fromKilled: collected.filter((c) => c.writer === 'expired').length + left.filter(expired).length,
    fromLive: collected.filter((c) => c.writer !== 'expired').length + left.filter((k) => !expired(k)).length,
    collected: collected.length,
    left: left.length,
    cleanups: run.cleanups.length,
    tornPuts: readdirSync(run.blobDir).filter((n) => n.startsWith('.')).length,
  };

  const failures: string[] = [...run.failures];
  const cutShort: string[] = [];
  if (run.timedOut) {
    cutShort.push(
      `${run.stop ?? 'the run was stopped'} at shard upper ${audit.upper} of ${workload.intervals}, after ${run.kills.length} of ${opts.kills} kills: ` +
        'the audit, the leak check and the model judge only a finished run (more --seconds, or fewer --intervals or --kills)',
    );
  } else {
    cutShort.push(...run.shortfall);
    if (run.kills.length < opts.kills && run.shortfall.length === 0 && failures.length === 0) cutShort.push(`only ${run.kills.length} of ${opts.kills} kills happened`);
  }
  const finished = failures.length === 0 && !run.timedOut;
  if (finished) {
    if (audit.upper !== workload.intervals) failures.push(`audit: the shard's upper is ${audit.upper}, not ${workload.intervals}`);
    if (audit.lost > 0) failures.push(`audit: ${audit.lost} update(s) of the desired collection are not in the shard`);
    if (audit.duplicated > 0) failures.push(`audit: ${audit.duplicated} update(s) are in the shard more than once`);
    if (audit.danglingKeys.length > 0) failures.push(`audit: shard state references ${audit.danglingKeys.length} missing blob(s)`);
    if (leaks.left > 0) failures.push(`leaks: ${leaks.left} unreferenced blob(s) left after the final cleanup`);
    if (leaks.fromLive > 0) failures.push(`leaks: ${leaks.fromLive} unreferenced blob(s) of writers that were not killed`);
  }

  const joined = joinTraces(run, diffs);
  let check: RealCheck | undefined;
  if (!joined.ok) failures.push(`join: ${joined.why}`);
  else if (finished) {
    const storage: StorageFacts = {
      leakedFromAborted: leaks.fromKilled,
      leakedFromLive: leaks.fromLive,
      leakedAfterCleanup: run.cleanups.length > 0 ? leaks.left : null,
      referencedDeleted: audit.danglingKeys.length,
      lost: audit.lost,
      duplicated: audit.duplicated,
    };
    check = await checkRealTrace(modelConfig(workload, updates), joined.trace, storage);
    if (!check.model.agrees) failures.push(`model: ${check.model.detail}`);
    for (const p of check.propertyFailures) failures.push(`property ${p}`);
  }
  return {
    seed: workload.seed,
    workload,
    shardId,
    consensus: redactUrl(opts.consensus),
    runDir,
    plan,
    run,
    audit,
    leaks,
    join: joined.ok ? { ok: true, events: joined.trace.length, inflightApplied: joined.inflightApplied, tails: joined.tails } : joined,
    ...(check === undefined ? {} : { check }),
    failures,
    incomplete: cutShort,
  };
}

/** Why the crash test exits non-zero: its failures (1), else why it is incomplete (4). */
export function crashReasons(r: CrashReport): Reason[] {
  return [...r.failures.map((f) => violation(`seed ${r.seed}: ${f}`)), ...r.incomplete.map((f) => incomplete(`seed ${r.seed}: ${f}`))];
}

/** The model's configuration for the crash test's workload: the fault world, replayed as the trace has it. */
export function modelConfig(w: Workload, updates: ReturnType<typeof generateUpdates>): ModelConfig {
  const workers = w.processes * w.workersPerProcess;
  return {
    variant: w.variant,
    replicas: w.replicas,
    processes: w.processes,
    workersPerProcess: w.workersPerProcess,
    intervals: w.intervals,
    updates: updates.map((u) => ({ id: u.id, time: u.time, worker: partitionWorker(u.key, workers), size: encodedUpdateSize(u) })),
    persist: DEFAULT_PERSIST_CONFIG,
    maxBytesChoices: [w.threshold],
    faults: { aborts: Number.POSITIVE_INFINITY, indeterminate: Number.POSITIVE_INFINITY, cleanup: true },
  };
}
