/**
 * One conformance run: the implementation under a chosen schedule, then every check on what it did.
 *
 * 1. The implementation runs under a ChoiceScheduler and emits its protocol trace.
 * 2. Liveness: the run must settle; a run where every task waits on a peer is a deadlock, with its own
 *    message (never a test timeout).
 * 3. Refinement: the trace is replayed on the model's step function, event by event; each event must be
 *    enabled there and its predicted fields equal to the model's. A settled run must leave the model final.
 * 4. Properties from spec/ on the run's view (built from the trace alone), and the implementation's own
 *    audit of the shard (lost, duplicated) and of blob storage (leaked blobs), which no trace can see.
 */
import { formatEvent } from './event-text.ts';
import type { BugName, TraceEvent } from '../vocab/index.ts';
import type { FaultPlan, Scheduler } from '../impl/seams.ts';
import { runSink, SHARD_ID, type RunResult } from '../impl/run.ts';
import { MemBlob } from '../impl/persist/blob.ts';
import { MemConsensus } from '../impl/persist/consensus.ts';
import { metricsDisagreements, replicaSteps, type StoreTally } from './metrics-check.ts';
import { shardIdOf } from '../impl/sinks.ts';
import { readWriters } from '../impl/persist/writer-registry.ts';
import type { RunConfig } from '../impl/run-config.ts';
import { corruptionsJudged, storedHistory } from './stored-corruption.ts';
import { costJudged } from './cost-check.ts';
import { lockstepBroken } from './pacing.ts';
import { DEFAULT_PACING } from './run-defaults.ts';
import { configFailures } from './streams.ts';
import { modelConfigOf, modelConfigsOf, runConfigOf } from './run-setup.ts';

export { modelConfigOf, modelConfigsOf, runConfigOf } from './run-setup.ts';
import type { Update } from '../impl/update.ts';
import type { ModelConfig } from '../model/config.ts';
import { predictAppends } from '../model/predict.ts';
import { isReplicaSealed } from '../model/system.ts';
import { policyOf } from '../model/variants/index.ts';
import { properties } from '../spec/properties.ts';
import { viewFromTrace, type StorageFacts } from '../spec/view.ts';
import { formatLog, type DriveOutcome } from './choice-scheduler.ts';
import { schedulerFor, type Schedule } from './schedule.ts';
import { permanentFailuresUnheeded, SchedulePlan } from './faults.ts';
import { materializeSinks, sinksOf, type Workload } from './workload.ts';
import { judgeSinks } from './multi-sink.ts';
import type { RegistryVerdict } from './registry-check.ts';

export type FailureKind = 'liveness' | 'impl-error' | 'property' | 'audit' | 'metrics' | 'cost' | 'refinement';

export interface Failure {
  readonly kind: FailureKind;
  /** The property or check that failed. */
  readonly check: string;
  readonly why: string;
  /** For refinement: the index of the trace event where model and implementation diverged. */
  readonly at?: number;
}

export interface RunReport {
  readonly workload: Workload;
  readonly schedule: Schedule;
  readonly bug: BugName | undefined;
  readonly trace: readonly TraceEvent[];
  readonly schedulerLog: string;
  readonly outcome: DriveOutcome<RunResult>['kind'];
  readonly failures: readonly Failure[];
  /** Names of the `sometimes` properties this run witnessed. */
  readonly witnessed: readonly string[];
  /** What the fault world did in this run (zeros without faults). */
  readonly faults: FaultTally;
  /** Several sinks: the process-level registry checker's verdict (registry-check.ts). */
  readonly registry?: RegistryVerdict;
  /** Compare-and-sets of a settled run that lost their race (no trace event shows one: the metric,
   * which metrics-check.ts holds to the consensus store's own count). */
  readonly casRacesLost?: number;
  /** Barrier timers that fired after their barrier had completed: they change nothing and emit nothing
   * (vocab/PROTOCOL.md "Barrier with a deadline"), so the scheduler log shows them — a resumed
   * `barrier.timeout` point — and no trace event does. */
  readonly timersIdle?: number;
  /** A stream's failure (streams.ts): the check derived from the configuration and the case it tried;
   * no run was started (trace and scheduler log empty). */
  readonly stream?: StreamCase;
}

export interface StreamCase {
  readonly check: string;
  readonly pick: number;
}

/** Faults injected by kind, and what the run did about them. */
export interface FaultTally {
  readonly injected: Readonly<Record<string, number>>;
  readonly aborts: number;
  readonly restarts: number;
  /** Blobs leaked by aborted incarnations, and blobs cleanup collected. */
  readonly leaked: number;
  readonly collected: number;
}

const NO_FAULTS: FaultTally = { injected: {}, aborts: 0, restarts: 0, leaked: 0, collected: 0 };

export interface RunOptions {
  /** The checks derived from the configuration alone (streams.ts CONFIG_CHECKS: bad input, misuse) on
   * this run too, on the case its configuration picks (default true); `sbkit check` runs them as
   * streams of their own and leaves them off its runs unless asked to fold them. */
  readonly configChecks?: boolean;
  /** Where the run's time goes: milliseconds added to each phase (conformance/bench-phases.ts). */
  readonly phases?: RunPhases;
}

/** A run's phases in order: the implementation set up, run under the scheduler, judged (liveness,
 * properties, audit, metrics, refinement), its cost held to the model's, its stored history corrupted,
 * and the rest of the checks on its own objects and stores. */
export const RUN_PHASES = ['setup', 'implementation', 'judge', 'cost', 'stored-corruption', 'other checks'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
export type RunPhases = Record<RunPhase, number>;

export async function runOnce(workload: Workload, schedule: Schedule, bug?: BugName, opts: RunOptions = {}): Promise<RunReport> {
  const { phases } = opts;
  let lapped = phases === undefined ? 0 : performance.now();
  const lap = (phase: RunPhase): void => {
    if (phases === undefined) return;
    const now = performance.now();
    phases[phase] += now - lapped;
    lapped = now;
  };
  const scheduler = schedulerFor(schedule);
  const plan = schedule.faults === undefined ? undefined : new SchedulePlan(schedule.faults, () => scheduler.steps);
  const { run, trace, updates, updatesBySink, config } = startRun(workload, scheduler, bug, plan);
  lap('setup');
  const outcome = await scheduler.drive(run);
  lap('implementation');
  const log = scheduler.log;
  const store = outcome.kind === 'settled' ? await storeTally(config) : undefined;
  // The model's configuration of each sink, once: the replay and the cost prediction both read it.
  const cfgs = modelConfigsOf(workload, updatesBySink, plan !== undefined);
  const judged = judgeRun(workload, trace, outcome, updates, plan !== undefined, store, cfgs);
  lap('judge');
  /** The impl's own objects and stores, checked beyond the run itself: each adds a failure or nothing. */
  const more: Failure[] = [];
  // Cost (conformance/cost-check.ts): the stores' counts against the model's prediction from the trace
  // it accepted.
  if (outcome.kind === 'settled' && store !== undefined && !judged.failures.some((f) => f.kind === 'refinement')) {
    for (const f of costJudged(workload, updates, trace, outcome.value.metrics, store, log, plan !== undefined, cfgs).failed) more.push({ kind: 'cost', ...f });
  }
  lap('cost');
  const fail = (check: string, why: string | undefined): void => {
    if (why !== undefined) more.push({ kind: 'impl-error', check, why });
  };
  // Corrupt stored data (conformance/stored-corruption.ts): the history this run wrote, corrupted each
  // way, must be refused by the implementation's readers (and one valid oddity accepted).
  const history = outcome.kind === 'settled' ? await storedHistory(config.consensus, shardIdOf(config.shardId ?? SHARD_ID, 0)) : undefined;
  const misread = history === undefined ? [] : (await corruptionsJudged(history)).wrong;
  lap('stored-corruption');
  fail('corrupt-state-refused', misread.length === 0 ? undefined : misread.join('; '));
  // Bad input and misuse (streams.ts): derived from the configuration alone, folded into this run.
  if (opts.configChecks !== false) for (const f of await configFailures(config)) fail(f.check, f.why);
  // Every part in blob storage was written by a writer the shard's writer registry claimed: an
  // unregistered writer's leaks are invisible to cleanup (and its id could be minted again).
  fail('writers-registered', outcome.kind === 'settled' ? await unregisteredWriters(config) : undefined);
  // A permanent storage failure an incarnation saw takes its replica down (faults.ts).
  fail('permanent-failure-downs-replica', plan === undefined ? undefined : permanentFailuresUnheeded(trace, outcome.kind === 'settled'));
  // Lockstep pacing, the default, as configured (pacing.ts).
  fail('pacing-as-configured', workload.pacing === DEFAULT_PACING ? lockstepBroken(trace, workload.asOf) : undefined);
  const faults: FaultTally =
    plan === undefined
      ? NO_FAULTS
      : {
          injected: plan.injected,
          aborts: scheduler.aborted.length + replicaSteps(trace, (e) => e.kind === 'abort' && e.reason.startsWith('permanent')),
          restarts: replicaSteps(trace, (e) => e.kind === 'restart'),
          leaked: outcome.kind === 'settled' ? outcome.value.leaks.fromAborted : 0,
          collected: outcome.kind === 'settled' ? outcome.value.leaks.collected : 0,
        };
  // The judged fields named, not spread first: V8 gives an object spread followed by new fields a
  // fresh hidden class on every call (microseconds per run).
  const report: RunReport = {
    workload: judged.workload,
    trace: judged.trace,
    outcome: judged.outcome,
    witnessed: judged.witnessed,
    failures: more.length === 0 ? judged.failures : [...judged.failures, ...more],
    schedule,
    bug,
    faults,
    casRacesLost: outcome.kind === 'settled' ? outcome.value.metrics.consensusCasFailed : 0,
    timersIdle: log.filter((r) => r.site.label === 'barrier.timeout').length - trace.filter((e) => e.kind === 'timeout').length,
    // Formatted only when a report prints it: most runs pass, and formatting every log cost ~1% of a run.
    get schedulerLog() {
      return formatLog(log);
    },
    ...(judged.registry === undefined ? {} : { registry: judged.registry }),
  };
  lap('other checks');
  return report;
}

/** Starts the implementation on `workload` under `scheduler`, recording its trace. */
export function startRun(
  workload: Workload,
  scheduler: Scheduler,
  bug?: BugName,
  faults?: FaultPlan,
): { run: Promise<RunResult>; trace: TraceEvent[]; updates: readonly Update[]; updatesBySink: readonly (readonly Update[])[]; config: RunConfig } {
  const { config, trace, updates, updatesBySink } = runConfigOf(workload, scheduler, bug, faults);
  return { run: runSink(config), trace, updates, updatesBySink, config };
}

/** What the run's in-memory stores counted, and the bytes of the versions of every sink's shard. */
export async function storeTally(config: RunConfig): Promise<StoreTally | undefined> {
  const { blob, consensus } = config;
  if (!(blob instanceof MemBlob) || !(consensus instanceof MemConsensus)) return undefined;
  const stats = { ...consensus.stats };
  let shardBytes = 0;
  for (let s = 0; s < (config.sinks ?? 1); s++) {
    for (const v of await consensus.scan(shardIdOf(config.shardId ?? SHARD_ID, s), 0)) shardBytes += v.data.length;
  }
  return { blob: { ...blob.stats }, consensus: stats, shardBytes };
}

/** Undefined when every part key's writer (the key up to its last `/`) is claimed in some sink's
 * writer registry; else which keys are not. */
async function unregisteredWriters(config: RunConfig): Promise<string | undefined> {
  const { blob, consensus } = config;
  if (!(blob instanceof MemBlob) || !(consensus instanceof MemConsensus)) return undefined;
  // With several sinks each sink's keys live under `s<sink>/` (impl/sinks.ts) and its writers in its own
  // shard's registry: a claimed id is held here as the key prefix its parts carry.
  const sinks = config.sinks ?? 1;
  const claimed = new Set<string>();
  for (let s = 0; s < sinks; s++) {
    for (const id of (await readWriters(consensus, shardIdOf(config.shardId ?? SHARD_ID, s))).keys()) claimed.add(sinks === 1 ? id : `s${s}/${id}`);
  }
  const orphans = (await blob.list()).filter((key) => !claimed.has(key.slice(0, key.lastIndexOf('/'))));
  if (orphans.length === 0) return undefined;
  return `${orphans.length} part(s) in blob storage by writers the writer registry never claimed (registered: ${[...claimed].sort().join(', ') || 'none'}): ${orphans.slice(0, 4).join(', ')}`;
}

/** `judge` for one sink; several sinks: each sink judged on its own part of the trace and its own
 * model (sharedRegistry), and the registry checker over the whole trace (multi-sink.ts). */
export function judgeRun(
  workload: Workload,
  trace: readonly TraceEvent[],
  outcome: DriveOutcome<RunResult>,
  updates: readonly Update[],
  faults: boolean,
  store?: StoreTally,
  /** The model's configuration of each sink (run-setup.ts modelConfigsOf), when the caller has them. */
  cfgs: readonly ModelConfig[] = modelConfigsOf(workload, sinksOf(workload) === 1 ? [updates] : materializeSinks(workload, updates), faults),
): Pick<RunReport, 'workload' | 'trace' | 'outcome' | 'failures' | 'witnessed' | 'registry'> {
  if (sinksOf(workload) === 1) return judge(workload, trace, outcome, cfgs[0], { store });
  const judged = judgeSinks(workload, trace, outcome, (s, events, mine, downWithout) =>
    judge(workload, events, mine, { ...(cfgs[s] as ModelConfig), sharedRegistry: true }, false, downWithout),
  );
  // The metrics are the run's, over every sink: held to the whole trace and the shared stores.
  const off = outcome.kind === 'settled' ? metricsDisagreements(trace, outcome.value.metrics, store) : [];
  return off.length === 0 ? judged : { ...judged, failures: [...judged.failures, metricsFailure(off)] };
}

function metricsFailure(off: readonly string[]): Failure {
  return { kind: 'metrics', check: 'metrics-match-trace', why: off.join('; ') };
}

/** Every check on one finished (or stuck) run: liveness, properties, audit, refinement. */
export function judge(
  workload: Workload,
  trace: readonly TraceEvent[],
  outcome: DriveOutcome<RunResult>,
  cfg: ModelConfig = modelConfigOf(workload),
  /** The metrics check (with the run's stores, when they count), or false: one sink of several, whose
   * metrics are the run's (judgeRun checks them over the whole trace). */
  metrics: { readonly store?: StoreTally | undefined } | false = {},
  /** One sink of several: the replicas whose process went down without this sink, sealed
   * (multi-sink.ts downWithoutSink). The end of the run does not wait for their remaining `frontier`
   * events, provided the model holds the replica sealed. */
  downWithout: ReadonlySet<number> = new Set(),
): Pick<RunReport, 'workload' | 'trace' | 'outcome' | 'failures' | 'witnessed'> {
  const failures: Failure[] = [];

  // Liveness and crashes.
  if (outcome.kind === 'deadlock') {
    failures.push({ kind: 'liveness', check: 'no-deadlock', why: `deadlock after ${outcome.steps} steps: every task waits on a peer (${stuck(trace)}); pending: ${pendingReasons(cfg, trace)}` });
  } else if (outcome.kind === 'step-limit') {
    failures.push({
      kind: 'liveness',
      check: 'terminates',
      why: `no end after ${outcome.steps} steps (points still waiting: ${[...new Set(outcome.pending.map((p) => p.label))].join(', ')}); pending: ${pendingReasons(cfg, trace)}`,
    });
  } else if (outcome.kind === 'threw') {
    failures.push({ kind: 'impl-error', check: 'no-error', why: describeError(outcome.error) });
  }
  const settled = outcome.kind === 'settled';

  // Properties on the run's view (with what the implementation's storage says), and the audit.
  const storage = settled ? storageFacts(outcome.value) : undefined;
  const view = viewFromTrace(cfg, trace, { final: settled, ...(storage === undefined ? {} : { storage }) });
  const witnessed: string[] = [];
  // The properties of the run's variant (model/variants/: what it adds, drops or changes).
  for (const p of policyOf(cfg).properties(properties)) {
    const verdict = p.check(view);
    if (p.kind === 'sometimes') {
      if (verdict.ok) witnessed.push(p.name);
    } else if (!verdict.ok && (p.kind === 'always' || settled)) {
      failures.push({ kind: 'property', check: p.name, why: verdict.why });
    }
  }
  if (settled) {
    const { audit } = outcome.value;
    if (audit.lost > 0) failures.push({ kind: 'audit', check: 'shard-has-every-update', why: `${audit.lost} update(s) of the desired collection are not in the shard` });
    if (audit.duplicated > 0) failures.push({ kind: 'audit', check: 'shard-has-no-duplicate', why: `${audit.duplicated} update(s) are in the shard more than once` });
    if (audit.leakedBlobs > 0) failures.push({ kind: 'audit', check: 'no-leaked-blobs', why: `${audit.leakedBlobs} blob(s) were written, never referenced by shard state and never deleted` });
    if (audit.danglingKeys.length > 0) {
      failures.push({ kind: 'audit', check: 'no-dangling-reference', why: `shard state references ${audit.danglingKeys.length} missing blob(s): ${audit.danglingKeys.slice(0, 3).join(', ')}` });
    }
    const off = metrics === false ? [] : metricsDisagreements(trace, outcome.value.metrics, metrics.store);
    if (off.length > 0) failures.push(metricsFailure(off));
  }

  // Refinement: replay on the model (registry-internal events are stuttering steps: model/predict.ts).
  const replay = predictAppends(cfg, trace);
  if (!replay.ok) {
    const expected = replay.expected === undefined ? '' : `\n      model expected: ${formatEvent(replay.expected)}`;
    const e = trace[replay.at];
    const what = e === undefined ? '' : ` ${formatEvent(e)}`;
    failures.push({ kind: 'refinement', check: refinementCheck(replay.reason), at: replay.at, why: `event #${replay.at}${what}: ${replay.reason}${expected}` });
  } else if (settled) {
    const pending = replay.pending.filter((e) => !(e.kind === 'frontier' && downWithout.has(e.replica) && isReplicaSealed(replay.state, e.replica)));
    if (pending.length > 0) {
      const next = pending.slice(0, 4).map(formatEvent).join('; ');
      failures.push({ kind: 'refinement', check: 'trace-refines-model', at: trace.length, why: `the implementation ended but the model still has enabled: ${next}` });
    }
  }

  return { workload, trace, outcome: outcome.kind, failures, witnessed };
}

/**
 * The name a refinement failure is reported under: part counts and receivers are what users ask about
 * by name (docs/design/domain.md's "part counts" and "exactly one receiver"); everything else is plain divergence.
 */
export function refinementCheck(reason: string): string {
  if (/\bappend\.(parts|batches)\b/.test(reason) || /\b(own-batch\.batch|finish-end\.received|hand\.batches)[^ ]*\.parts\b/.test(reason)) {
    return 'part-counts-as-predicted';
  }
  if (/\b(finish-begin\.last|finish-end\.received)\b/.test(reason)) return 'receiver-as-predicted';
  return 'trace-refines-model';
}

/** What the implementation's storage says, for the blob-level properties. */
function storageFacts(r: RunResult): StorageFacts {
  const cleaned = r.metrics.cleanupRuns > 0;
  return {
    leakedFromAborted: r.leaks.fromAborted,
    leakedFromLive: r.leaks.fromLive,
    leakedAfterCleanup: cleaned ? r.audit.leakedBlobs : null,
    referencedDeleted: r.audit.danglingKeys.length,
    lost: r.audit.lost,
    duplicated: r.audit.duplicated,
  };
}

/**
 * Why a run that did not end is still pending, per replica, as the trace shows it (VOPR's "pending"
 * reason): down and never restarted, a description whose append waits for hands, finishes waiting at a
 * barrier, or nothing the trace can name.
 */
export function pendingReasons(cfg: ModelConfig, trace: readonly TraceEvent[]): string {
  const workers = cfg.processes * cfg.workersPerProcess;
  const reasons: string[] = [];
  for (let r = 0; r < cfg.replicas; r++) {
    const mine = trace.filter((e) => e.replica === r);
    const lastAbort = mine.map((e) => e.kind).lastIndexOf('abort');
    const lastRestart = mine.map((e) => e.kind).lastIndexOf('restart');
    if (lastAbort > lastRestart) {
      reasons.push(`replica ${r} is down (aborted, not restarted)`);
      continue;
    }
    const since = mine.slice(Math.max(0, lastRestart));
    const lastMint = since.map((e) => e.kind).lastIndexOf('mint');
    const mint = since[lastMint];
    if (mint === undefined || mint.kind !== 'mint') {
      reasons.push(`replica ${r} minted nothing${lastRestart >= 0 ? ' since its restart' : ''}`);
      continue;
    }
    const after = since.slice(lastMint);
    if (after.some((e) => e.kind === 'append' && (e.result.ok || e.batches === 0)) || after.some((e) => e.kind === 'delete')) continue;
    const handed = new Set(after.flatMap((e) => (e.kind === 'hand' ? [e.worker] : [])));
    const missing = Array.from({ length: workers }, (_, w) => w).filter((w) => !handed.has(w));
    reasons.push(
      missing.length > 0
        ? `replica ${r}'s append of [${mint.desc.lower}, ${mint.desc.upper}) waits for hands from workers ${missing.join(', ')}`
        : `replica ${r}'s append of [${mint.desc.lower}, ${mint.desc.upper}) has every hand and has not committed`,
    );
  }
  const waiting = stuck(trace);
  return [...reasons, ...(waiting === 'no finish is waiting' ? [] : [waiting])].join('; ') || 'nothing the trace can name';
}

/** Which finishes began and never returned, for a deadlock message. */
function stuck(trace: readonly TraceEvent[]): string {
  const open = new Map<string, Extract<TraceEvent, { kind: 'finish-begin' }>>();
  for (const e of trace) {
    if (e.kind === 'finish-begin') open.set(`${e.replica}/${e.worker}/${e.sharedId}`, e);
    if (e.kind === 'finish-end') open.delete(`${e.replica}/${e.worker}/${e.sharedId}`);
  }
  if (open.size === 0) return 'no finish is waiting';
  return [...open.values()].map((e) => `finish of r${e.replica} w${e.worker} id ${e.sharedId} never returned`).join('; ');
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** An event as one readable line (conformance/event-text.ts): `r0 w1 finish-begin id=0 → last=true`. */
export { formatEvent };
