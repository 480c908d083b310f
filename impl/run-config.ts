/**
 * RunConfig: one run of R replicas writing one shard, and its validation into a ResolvedRun.
 * Every malformed field is a typed error naming the field and the value.
 */
import type { BugName, NoDataPolicy, SinkVersion, Observer, PersistConfig, Variant, VariantOptionValues } from '../vocab/index.ts';
import { NO_DATA_POLICIES, SINK_VERSIONS } from '../vocab/index.ts';
import { BugSwitches } from './bugs.ts';
import { SbkitError, requireInteger, show } from './errors.ts';
import { MemBlob, type Blob } from './persist/blob.ts';
import { resolvePersistConfig } from './persist/config.ts';
import { MemConsensus, type Consensus } from './persist/consensus.ts';
import { passThroughScheduler, type FaultPlan, type Scheduler } from './seams.ts';
import type { Pacing, SinkSettings } from './sink/replica-state.ts';
import { readMaxBytes, type BarrierKnob, type MaxBytesKnob } from './sink/route.ts';
import { MAX_ABS_DIFF, loneSurrogateAt, type Update } from './update.ts';
import { resolveSinks, type ResolvedSinks } from './sinks.ts';
import { ASYNC_SINK_POLICY, sharingPolicy, type SharingPolicy } from './variants/index.ts';

export interface RunConfig {
  /** A registered variant (impl/variants/). */
  variant: Variant;
  /** The variant's options (vocab VariantOptionSpec; default: each option's default). */
  variantOptions?: VariantOptionValues;
  replicas: number;
  processes: number;
  workersPerProcess: number;
  /** K: desired frontier advances 1..K, update times in [asOf, K). */
  intervals: number;
  /** The sink's as-of: its first lower (default 0). Above the shard's upper (a fresh shard is at 0) the
   * first append finds the shard behind and bumps it. The desired collection holds no update below it
   * (a dataflow's output starts at its as-of). */
  asOf?: number;
  /** The desired collection, identical on every replica; worker = partitionWorker(key, P·W). */
  updates: readonly Update[];
  /** The knob, read ONCE per description at mint. */
  maxBytes: MaxBytesKnob;
  /** The barrier flag, read ONCE per description at mint (default: the variant's, SharingPolicy
   * `barrierByDefault`). Ignored when the variant does not share. */
  barrier?: BarrierKnob;
  /** Defaults 128 MiB / 4096 / 1 MiB. */
  persist?: Partial<PersistConfig>;
  /** A shared worker pushes its staged updates in chunks of at most this many (default 256). */
  pushChunkUpdates?: number;
  /** What a worker with no data for a shared description does: 'skip' (nothing, a skip under the
   * barrier) or 'finish' (opens a handle and finishes it without pushing). Default: vocab `defaultNoData`
   * — 'finish' for the barrier variant, 'skip' otherwise. */
  noData?: NoDataPolicy;
  /** Which MV sink (vocab SinkVersion, default 'v2'): 'v2', the sync sink, shares batches as the variant
   * says; 'v1', the async sink, never uses SharedBatches (#37591), so every worker writes its own batch
   * whatever the variant. Both supersede a live description the shard passed (mint.ts). */
  sink?: SinkVersion;
  bugs?: readonly BugName[];
  /** Default passThroughScheduler. */
  scheduler?: Scheduler;
  /** Trace events (vocab TraceEvent). */
  observer?: Observer;
  /** Default fresh in-memory ones. */
  blob?: Blob;
  consensus?: Consensus;
  /** How the input advances (default 'lockstep': one description per frontier step while the sink
   * keeps up; 'free' lets the input run ahead so descriptions may span several steps). */
  pacing?: Pacing;
  /** Storage faults: every blob and consensus call of the replicas asks this plan how it ends
   * (persist/faulty.ts). Default none. */
  faults?: FaultPlan;
  /** Leaked-blob cleanup (persist/gc.ts) after every restart and once at the end of the run. Default:
   * on when `faults` is given (aborts and failures are what leaks), off otherwise. */
  cleanup?: boolean;
  /** Restarts allowed per replica before the run gives up with `replica-gave-up` (default 100). */
  maxRestarts?: number;
  /** The shard's consensus key (default `mv-sink-shard`, run.ts SHARD_ID): letters, digits, `_ . -`,
   * at most 100. Runs that share a real database use one each, so that they never see each other. */
  shardId?: string;
  /** MV sinks in each replica (1 … 4, default 1; impl/sinks.ts): each its own shard (sink 0 `shardId`,
   * sink s `${shardId}/s${s}`), desired collection and operators; all share the replica's per-process
   * registries. */
  sinks?: number;
  /** The desired collections of sinks 1 … sinks − 1 (default: `updates` for each). */
  sinkUpdates?: readonly (readonly Update[])[];
}

export interface ResolvedRun extends ResolvedSinks {
  readonly variant: Variant;
  /** The variant's behaviour with its resolved options: what the sink consults. */
  readonly policy: SharingPolicy;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  readonly asOf: number;
  readonly updates: readonly Update[];
  readonly maxBytes: MaxBytesKnob;
  readonly barrier: BarrierKnob;
  readonly persist: PersistConfig;
  readonly pushChunkUpdates: number;
  readonly noData: NoDataPolicy;
  readonly sink: SinkVersion;
  readonly bugs: BugSwitches;
  readonly scheduler: Scheduler;
  readonly observer: Observer | undefined;
  readonly blob: Blob;
  readonly consensus: Consensus;
  readonly pacing: Pacing;
  readonly faults: FaultPlan | undefined;
  readonly cleanup: boolean;
  readonly maxRestarts: number;
  readonly shardId: string;
}

export const DEFAULT_PUSH_CHUNK_UPDATES = 256;

/** The consensus key of the sink's shard unless a run names its own. */
export const DEFAULT_SHARD_ID = 'mv-sink-shard';
const SHARD_ID_FORM = /^[A-Za-z0-9_.-]{1,100}$/;

export function resolveRunConfig(config: RunConfig): ResolvedRun {
  const policy = sharingPolicy(config.variant, config.variantOptions);
  requireInteger(config.replicas, 1, 'replicas', 'invalid-workers');
  requireInteger(config.processes, 1, 'processes', 'invalid-workers');
  requireInteger(config.workersPerProcess, 1, 'workersPerProcess', 'invalid-workers');
  requireInteger(config.intervals, 0, 'intervals');
  const asOf = requireInteger(config.asOf ?? 0, 0, 'asOf');
  if (asOf > 0 && asOf >= config.intervals) {
    throw new SbkitError('invalid-config', `asOf must be below intervals (${config.intervals}), got ${asOf}`);
  }
  if (typeof config.maxBytes === 'number') readMaxBytes(config.maxBytes, { replica: 0, lower: 0, seq: 0, desired: 0 });
  else if (typeof config.maxBytes !== 'function') {
    throw new SbkitError('invalid-max-bytes', `maxBytes must be a non-negative integer or a function, got ${show(config.maxBytes)}`);
  }
  const barrier = config.barrier ?? policy.barrierByDefault;
  if (typeof barrier !== 'boolean' && typeof barrier !== 'function') {
    throw new SbkitError('invalid-config', `barrier must be a boolean or a function, got ${show(barrier)}`);
  }
  const pushChunkUpdates = requireInteger(config.pushChunkUpdates ?? DEFAULT_PUSH_CHUNK_UPDATES, 1, 'pushChunkUpdates');
  const noData = config.noData ?? policy.meta.defaultNoData;
  if (!NO_DATA_POLICIES.includes(noData)) {
    throw new SbkitError('invalid-config', `noData must be one of ${NO_DATA_POLICIES.map((p) => `'${p}'`).join(', ')}, got ${show(noData)}`);
  }
  const sink = config.sink ?? 'v2';
  if (!SINK_VERSIONS.includes(sink)) {
    throw new SbkitError('invalid-config', `sink must be one of ${SINK_VERSIONS.map((v) => `'${v}'`).join(', ')}, got ${show(sink)}`);
  }
  const pacing = config.pacing ?? 'lockstep';
  if (pacing !== 'lockstep' && pacing !== 'free') {
    throw new SbkitError('invalid-config', `pacing must be 'lockstep' or 'free', got ${show(pacing)}`);
  }
  validateUpdates(config.updates, config.intervals, asOf);
  const sinks = resolveSinks(config);
  for (const more of sinks.updatesBySink.slice(1)) validateUpdates(more, config.intervals, asOf);
  // The sinks' fields named, not spread: an object spread followed by this many fields built a new
  // hidden class on every call (~40 µs per run, most of it garbage).
  return {
    sinks: sinks.sinks,
    updatesBySink: sinks.updatesBySink,
    variant: config.variant,
    policy,
    replicas: config.replicas,
    processes: config.processes,
    workersPerProcess: config.workersPerProcess,
    intervals: config.intervals,
    asOf,
    updates: config.updates,
    maxBytes: config.maxBytes,
    barrier,
    persist: resolvePersistConfig(config.persist),
    pushChunkUpdates,
    noData,
    sink,
    bugs: new BugSwitches(config.bugs ?? []),
    scheduler: config.scheduler ?? passThroughScheduler,
    observer: config.observer,
    blob: config.blob ?? new MemBlob(),
    consensus: config.consensus ?? new MemConsensus(),
    pacing,
    faults: config.faults,
    cleanup: config.cleanup ?? config.faults !== undefined,
    maxRestarts: requireInteger(config.maxRestarts ?? 100, 0, 'maxRestarts'),
    shardId: resolveShardId(config.shardId),
  };
}

function resolveShardId(shardId: unknown): string {
  if (shardId === undefined) return DEFAULT_SHARD_ID;
  if (typeof shardId !== 'string' || !SHARD_ID_FORM.test(shardId)) {
    throw new SbkitError('invalid-config', `shardId must be 1 to 100 letters, digits, '_', '.' or '-', got ${show(shardId)}`);
  }
  return shardId;
}

/**
 * Every update must be encodable, so that no failure surfaces later in a builder task: an object; a
 * key that is well-formed UTF-16 (a lone surrogate would be written as U+FFFD, silently another key);
 * |diff| ≤ MAX_ABS_DIFF (its zigzag varint must stay a safe integer); a time in [0, K).
 */
function validateUpdates(updates: readonly Update[], intervals: number, asOf: number): void {
  if (!Array.isArray(updates)) throw new SbkitError('invalid-config', `updates must be an array, got ${show(updates)}`);
  const ids = new Set<number>();
  for (let i = 0; i < updates.length; i++) {
    const u: unknown = updates[i];
    if (typeof u !== 'object' || u === null || Array.isArray(u)) {
      throw new SbkitError('invalid-config', `updates[${i}] must be an update object, got ${show(u)}`);
    }
    validateUpdate(u as Update, i, ids, intervals, asOf);
  }
}

function validateUpdate(u: Update, index: number, ids: Set<number>, intervals: number, asOf: number): void {
  // (the field's name is built only for the message: this runs for every update of every run)
  if (typeof u.id !== 'number' || !Number.isSafeInteger(u.id) || u.id < 0) requireInteger(u.id, 0, `updates[${index}].id`);
  if (ids.has(u.id)) throw new SbkitError('invalid-config', `update id ${u.id} appears twice`);
  ids.add(u.id);
  if (typeof u.key !== 'string') throw new SbkitError('invalid-config', `update ${u.id}: key must be a string`);
  const surrogate = loneSurrogateAt(u.key);
  if (surrogate >= 0) {
    throw new SbkitError(
      'invalid-config',
      `update ${u.id}: key must be well-formed UTF-16, got ${show(u.key)} with a lone surrogate at index ${surrogate}`,
    );
  }
  if (!(u.value instanceof Uint8Array)) throw new SbkitError('invalid-config', `update ${u.id}: value must be a Uint8Array`);
  if (!Number.isSafeInteger(u.diff)) throw new SbkitError('invalid-config', `update ${u.id}: diff must be an integer, got ${show(u.diff)}`);
  if (Math.abs(u.diff) > MAX_ABS_DIFF) {
    throw new SbkitError('invalid-config', `update ${u.id}: diff must be within ±${MAX_ABS_DIFF} (2^52 − 1), got ${show(u.diff)}`);
  }
  if (!Number.isSafeInteger(u.time) || u.time < asOf || u.time >= intervals) {
    throw new SbkitError('update-outside-description', `update ${u.id} has time ${show(u.time)}, outside [${asOf}, ${intervals}) (asOf, intervals)`);
  }
}

/** One incarnation's sink settings: the run's, for `replica`, starting at `startLower` (the supervisor
 * and a replica process both start sinks; they must start the same ones). */
export function sinkSettingsOf(run: ResolvedRun, replica: number, startLower: number, restarted: boolean): SinkSettings {
  return {
    replica,
    // The async sink (v1) never shares: every worker writes its own batch, as with the variant off.
    policy: run.sink === 'v1' ? ASYNC_SINK_POLICY : run.policy,
    processes: run.processes,
    workersPerProcess: run.workersPerProcess,
    intervals: run.intervals,
    maxBytes: run.maxBytes,
    barrier: run.barrier,
    pushChunkUpdates: run.pushChunkUpdates,
    noData: run.noData,
    pacing: run.pacing,
    startLower,
    restarted,
  };
}
