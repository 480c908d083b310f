/**
 * Shared vocabulary of shared-batch-kit: the words model/ and impl/ both speak, as types only.
 *
 * This module holds no logic (a few constant lists aside). model/ and impl/ may both import it;
 * impl/ never imports model/ or conformance/. The semantics behind every word are in
 * vocab/PROTOCOL.md, which both halves implement independently.
 */

/** How the workers of one process coalesce their per-interval batches: a registered variant's name
 * (vocab/variant.ts; which exist, each layer's registry says: impl/variants/, model/variants/,
 * explore/variants/). */
export type { Variant, VariantMeta, VariantOptionSpec, VariantOptionValues, VariantOptions } from './variant.ts';

/**
 * What a worker with no data for a description does while the description is shared (variant ≠ off and
 * maxBytes > 0; vocab/PROTOCOL.md "Routing"): `skip` does nothing (route `none`; under the barrier it
 * reports a skip), `finish` opens a handle on the shared id and finishes it without pushing (route
 * `empty`; #37591's doc: "all workers must call finish even if they did not push").
 */
export type NoDataPolicy = 'skip' | 'finish';
export const NO_DATA_POLICIES: readonly NoDataPolicy[] = ['skip', 'finish'];

/**
 * Which of Materialize's two MV sinks (vocab/PROTOCOL.md "The two sinks"): `v1`, the async sink (the
 * default there), keeps one description slot and writes every worker's own batch (no SharedBatches);
 * `v2`, the sync sink, shares batches (the variant) and supersedes a description the shard passed.
 */
export type SinkVersion = 'v1' | 'v2';
export const SINK_VERSIONS: readonly SinkVersion[] = ['v1', 'v2'];

/** Named, realistic bugs that can be switched on in impl/ (and, for the review bug, in model/). */
export type BugName =
  | 'sweep-upgrade-race'
  | 'drop-without-finish'
  | 'late-handle-joins-finished-builder'
  | 'barrier-lost-wakeup'
  | 'barrier-skip-double-count'
  | 'append-keeps-batches-on-mismatch'
  | 'threshold-inclusive'
  | 'indeterminate-cas-deletes-batches'
  | 'restart-rewrites-appended-interval'
  | 'cleanup-deletes-in-flight-part'
  | 'mismatch-delete-error-swallowed'
  | 'barrier-flag-read-per-worker'
  | 'empty-finish-hands-nothing'
  | 'stale-hand-appended'
  | 'batch-ids-collide-across-sinks'
  | 'own-batch-ignores-max-runs'
  | 'timer-seals-pushing-handle'
  | 'late-worker-joins-completed-barrier';
export const BUG_NAMES: readonly BugName[] = [
  'sweep-upgrade-race',
  'drop-without-finish',
  'late-handle-joins-finished-builder',
  'barrier-lost-wakeup',
  'barrier-skip-double-count',
  'append-keeps-batches-on-mismatch',
  'threshold-inclusive',
  'indeterminate-cas-deletes-batches',
  'restart-rewrites-appended-interval',
  'cleanup-deletes-in-flight-part',
  'mismatch-delete-error-swallowed',
  'barrier-flag-read-per-worker',
  'empty-finish-hands-nothing',
  'stale-hand-appended',
  'batch-ids-collide-across-sinks',
  'own-batch-ignores-max-runs',
  'timer-seals-pushing-handle',
  'late-worker-joins-completed-barrier',
];

/** Gallery bugs that show only when storage fails or replicas are aborted (`sbkit check --faults`). */
export const FAULT_BUGS: readonly BugName[] = [
  'indeterminate-cas-deletes-batches',
  'restart-rewrites-appended-interval',
  'cleanup-deletes-in-flight-part',
  'mismatch-delete-error-swallowed',
];

/** A storage call the fault plan decides (blob: S3; consensus: Postgres/CockroachDB). */
export type StorageOp =
  | 'blob.get'
  | 'blob.set'
  | 'blob.delete'
  | 'blob.list'
  | 'consensus.head'
  | 'consensus.scan'
  | 'consensus.cas';
export const STORAGE_OPS: readonly StorageOp[] = [
  'blob.get',
  'blob.set',
  'blob.delete',
  'blob.list',
  'consensus.head',
  'consensus.scan',
  'consensus.cas',
];

/**
 * Every scheduling point's label: what is about to happen where a task yields to the scheduler
 * (impl/seams.ts `PointSite`). One vocabulary for the implementation that passes the points and for what
 * reads them: the timing model of `sbkit compare` charges a step by its label (explore/timing.ts, a table
 * over this type, so a new label is a compile error there until it has a cost), and scheduler logs and
 * failure reports print it. A misspelled label would be charged nothing and read wrong in every log.
 */
export const POINT_LABELS = [
  // the mint and the workers of a sink (impl/sink/)
  'input.advance',
  'mint',
  'mint.poll',
  'write.stage',
  'write.hand',
  'write.own',
  // shared batches (impl/shared/)
  'shared.open',
  'shared.push',
  'shared.finish',
  'shared.finish.end',
  'shared.drop',
  'builder.recv',
  'barrier.skip',
  'barrier.register',
  'barrier.wake',
  // a barrier's deadline (impl/shared/barrier-timer.ts): a timer, its site carries the delay
  'barrier.timeout',
  'sweep',
  'sweep.release',
  // the append operator (impl/sink/append.ts)
  'append',
  'append.delete',
  // persist (impl/persist/): storage calls, the compare-and-set's send, cleanup
  'blob.set',
  'blob.delete',
  'blob.list',
  'consensus.head',
  'consensus.cas',
  'cas.send',
  'cleanup.writers',
  'cleanup.state',
  // the supervisor (impl/supervisor.ts): a restart, and a step started over after a permanent failure
  'replica.restart',
  'writer.retire',
  'cleanup.retry',
] as const;

/** A scheduling point's label: one of POINT_LABELS, or a retried storage call (`retry.<op>`). */
export type PointLabel = (typeof POINT_LABELS)[number] | `retry.${StorageOp}`;

/**
 * How one storage call ended, as a fault plan injects it (or a real backend reports it):
 * - `transient`: an error; the call did not take effect (safe to retry as it is);
 * - `indeterminate-applied` / `indeterminate-lost`: an error whose answer was lost — the call took
 *   effect, or did not (Jepsen's indeterminate result, in both directions); `indeterminate` when the
 *   caller cannot know which (a real backend);
 * - `permanent`: an error retrying cannot help: the replica goes down as a crash would.
 */
export type StorageFault = 'transient' | 'indeterminate-applied' | 'indeterminate-lost' | 'indeterminate' | 'permanent';

/** A logical timestamp (non-negative integer). */
export type Time = number;
/** Identifies one update of the desired collection (the same id on every replica). */
export type UpdateId = number;
/** Names a shared batch in traces: its description's mint sequence number, within its MV sink (events of
 * sink s > 0 carry `sink`). The registry itself keys a batch id that cannot collide across sinks (impl:
 * the sink's shard as a namespace, like Materialize's `Uuid::new_v4()`; vocab/PROTOCOL.md "Keying"). */
export type SharedId = number;

/**
 * A batch description, minted by the mint operator of one replica and broadcast to its workers.
 * - `lower < upper`; lowers strictly increase per replica; at most one is live at a time.
 * - `appendWorker` = (mint sequence number) mod (workers of the replica): round robin.
 * - `sharedId` = mint sequence number (0, 1, 2 … per replica).
 * - `maxBytes` = the `shared_batch_max_bytes` knob as read once, at mint. SUBTLE: every worker of the
 *   interval must see the same value, or a barrier waits for a worker that decided not to share.
 * - `barrier` = the `enable_compute_sync_mv_sink_shared_batches_barrier` flag as read once, at mint
 *   (false when the variant is off). SUBTLE: the same reason — read per worker, one id gets both
 *   modes, and the barrier hangs or finishes early (gallery: barrier-flag-read-per-worker).
 */
export interface Description {
  readonly lower: Time;
  readonly upper: Time;
  readonly appendWorker: number;
  readonly sharedId: SharedId;
  readonly maxBytes: number;
  readonly barrier: boolean;
}

/** Persist tunables that decide how batches become parts. */
export interface PersistConfig {
  /** A builder cuts a part once its buffered payload bytes reach this (default 128 MiB). */
  readonly blobTargetSize: number;
  /** A part whose payload bytes are below this (exclusive) is inline (default 4096). */
  readonly inlineSingleMaxBytes: number;
  /** An append whose inline parts would bring state's inline bytes to this or more is refused
   * with inline backpressure; the writer flushes its inline parts to blob and retries (default 1 MiB). */
  readonly inlineTotalMaxBytes: number;
  /**
   * `persist_batch_max_runs` (default 1; absent = 1): a batch builder given a value of 2 or more compacts
   * its runs as it goes so that the batch has at most that many; below 2 every part is a run of its own.
   * Own batches honour it; the shared builder passes a hard-coded `None` and never does (#37591's review;
   * vocab/PROTOCOL.md "Runs: persist_batch_max_runs").
   */
  readonly maxRuns?: number;
}

/** Parts of one or more batches, hollow (one blob PUT each) and inline (in consensus state) apart. */
export interface PartsSummary {
  readonly hollow: number;
  readonly inline: number;
}

/** What the trace says about one batch: which updates it holds (ascending ids), its parts, and the
 * payload bytes of each part in cut order (where the parts were cut; inline iff below the limit). */
export interface BatchSummary {
  readonly updates: readonly UpdateId[];
  readonly parts: PartsSummary;
  readonly partBytes: readonly number[];
}

/** Where an event happened. `worker` is the worker's index within its replica (0 … P·W−1);
 * `process` = floor(worker / workersPerProcess). */
export interface WorkerRef {
  readonly replica: number;
  readonly process: number;
  readonly worker: number;
}

/** A worker's decision for one description (see PROTOCOL.md, "Routing"). `empty`: no data, and the
 * no-data policy `finish` makes it open a handle and finish it without pushing. */
export type Route = 'shared' | 'own' | 'none' | 'empty';

/** Outcome of one compare-and-append. */
export type AppendResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly current: Time };

/**
 * The abstract protocol events that impl/ emits through its observer, in the order they happen, and
 * that model/ accepts (and, exploring, generates). Fields marked (predicted) are observables: the
 * model computes them itself and the conformance suite requires equality. Unmarked fields are
 * inputs (who acted, which chunk was pushed, the knob value read).
 */
export type TraceEvent = SinkTag &
  (
  /** The replica's desired frontier advanced: all updates with time < upper are known. */
  | { readonly kind: 'frontier'; readonly replica: number; readonly upper: Time }
  /** The mint operator minted a description (every field predicted: the knobs from the workload's
   * configuration as read at mint; an explorer without one chooses maxBytes and barrier). */
  | { readonly kind: 'mint'; readonly replica: number; readonly desc: Description }
  /** The mint reads the shard's state to follow the persist frontier (one consensus head read): only
   * while its live description `sharedId` may still be superseded — its append not begun, no superseded
   * one pending, and room for a newer lower below the desired frontier (all predicted). */
  | { readonly kind: 'poll'; readonly replica: number; readonly sharedId: SharedId }
  /** A worker took its updates in [lower, upper) and decided its route (updates, bytes, route predicted). */
  | (WorkerRef & {
      readonly kind: 'stage';
      readonly sharedId: SharedId;
      readonly updates: readonly UpdateId[];
      readonly bytes: number;
      readonly route: Route;
    })
  /** builder(id, desc[, participants]) returned a handle; `created` (predicted): a new builder state;
   * `participants` (predicted): the barrier's participant count passed, null for best-effort. */
  | (WorkerRef & { readonly kind: 'open'; readonly sharedId: SharedId; readonly created: boolean; readonly participants: number | null })
  /** One chunk of the worker's staged updates entered the builder's channel (in staged order). */
  | (WorkerRef & { readonly kind: 'push'; readonly sharedId: SharedId; readonly updates: readonly UpdateId[] })
  /** finish() began; `last` (predicted): best-effort — this handle dropped the last reference;
   * barrier — this arrival finalized the barrier. */
  | (WorkerRef & { readonly kind: 'finish-begin'; readonly sharedId: SharedId; readonly last: boolean })
  /** finish() returned; `received` (predicted): the batch, or null for every handle but the receiver. */
  | (WorkerRef & { readonly kind: 'finish-end'; readonly sharedId: SharedId; readonly received: BatchSummary | null })
  /** Barrier only: noteSkip(id, participants); `early` (predicted): no state existed, the skip was recorded. */
  | (WorkerRef & { readonly kind: 'skip'; readonly sharedId: SharedId; readonly early: boolean })
  /**
   * A barrier with a deadline (vocab/PROTOCOL.md "Barrier with a deadline"): its timer fired while the
   * barrier waited for a participant. `completes` (predicted): no handle that joined was still pushing,
   * so the barrier completed now (its batch goes to the last finisher); otherwise it completes when the
   * last joined handle begins its finish. A timer that fires after its barrier completed is no event.
   */
  | { readonly kind: 'timeout'; readonly replica: number; readonly process: number; readonly sharedId: SharedId; readonly completes: boolean }
  /** Supersede (sync sink): before staging, the worker saw a newer description than this one, so it
   * does not write this one (under the barrier, with sharing on, it then reports a skip; then it hands
   * nothing). Nothing here is an input: the model predicts when a worker must take this step. */
  | (WorkerRef & { readonly kind: 'superseded'; readonly sharedId: SharedId })
  /** The worker finished writing its own (fallback or unshared) batch (batch predicted). */
  | (WorkerRef & { readonly kind: 'own-batch'; readonly sharedId: SharedId; readonly batch: BatchSummary })
  /** The worker handed its batches for the description (0 or 1; predicted) to the append worker. */
  | (WorkerRef & { readonly kind: 'hand'; readonly sharedId: SharedId; readonly batches: readonly BatchSummary[] })
  /** The append worker's one compare_and_append over [lower, upper) (everything but replica/lower/upper predicted). */
  | {
      readonly kind: 'append';
      readonly replica: number;
      readonly lower: Time;
      readonly upper: Time;
      readonly batches: number;
      readonly parts: PartsSummary;
      /** (predicted) Σ runs of the appended batches: an own batch's runs as persist_batch_max_runs
       * compacts them, a shared batch one run per part (its builder's max_runs is `None`). */
      readonly runs: number;
      readonly updates: readonly UpdateId[];
      readonly result: AppendResult;
    }
  /** Inline backpressure refused the append's compare-and-set: the append worker flushes its batches'
   * inline parts to blob (`flushed` predicted), then retries. The refusal is this step; the flush's PUTs
   * come after it, so another writer may append before the retry (which then sees a mismatch). */
  | {
      readonly kind: 'backpressure';
      readonly replica: number;
      readonly lower: Time;
      /** (predicted) The shard state's inline payload bytes, and the inline bytes this append would add:
       * their sum reached inline_writes_total_max_bytes. */
      readonly inlineBytes: number;
      readonly adding: number;
      readonly flushed: number;
    }
  /** The shard was behind the description's lower (`current < lower`): the append worker advanced it
   * with an empty compare-and-append over [from, to) and will retry (from predicted; only a bump that
   * committed is an event — a lost one is retried and changes nothing). */
  | { readonly kind: 'bump'; readonly replica: number; readonly from: Time; readonly to: Time }
  /** The append worker deleted batches it could not append (predicted count): `mismatch` after a refused
   * compare-and-append, `stale` for a description superseded before its append (its lower passed). */
  | {
      readonly kind: 'delete';
      readonly replica: number;
      readonly lower: Time;
      readonly batches: number;
      readonly reason: 'mismatch' | 'stale';
    }
  /** The registry sweep removed dead entries (`removed`, predicted, ascending). It runs inside `worker`'s
   * builder() call, under the registry's lock, before the id is looked up, when the map's length (before
   * this call's insert) exceeds twice its length after the last sweep (vocab/PROTOCOL.md "Sweep"). */
  | (SweepBy & {
      readonly kind: 'sweep';
      readonly removed: readonly SharedId[];
      /** Only when the registry serves several MV sinks (RunConfig.sinks > 1): per sink it serves, the
       * entries it removed (`removed` is then their concatenation, in this order). PROTOCOL.md "Several
       * MV sinks". */
      readonly sinks?: readonly SweptSink[];
    })
  /** sweep-upgrade-race only: the sweep took a temporary strong reference to the live entry `sharedId`
   * (predicted: the next live entry in id order)… */
  | (SweepBy & { readonly kind: 'sweep-hold'; readonly sharedId: SharedId; readonly entrySink?: number })
  /** …and released it; `closed` (predicted): it was the last reference, so the batch went to nobody. */
  | (SweepBy & {
      readonly kind: 'sweep-release';
      readonly sharedId: SharedId;
      readonly closed: boolean;
      readonly entrySink?: number;
    })
  /** drop-without-finish only: a handle was dropped without finish(); `closed` as for sweep-release. */
  | (WorkerRef & { readonly kind: 'drop'; readonly sharedId: SharedId; readonly closed: boolean })
  /**
   * A storage call of the replica failed and was survived (retried, or resolved). Inputs: which call,
   * how it failed. Only a compare-and-set of the append that ended indeterminate changes the protocol
   * (`indeterminate-applied`: the shard took the append even though the replica was told it failed);
   * every other fault is a stuttering step for the model. `by: 'supervisor'` when a supervisor step saw it
   * (a restart's claim and read, a retirement, a cleanup), not the replica's incarnation: a supervisor step
   * starts over after a permanent failure, an incarnation goes down (conformance's
   * `permanent-failure-downs-replica`).
   */
  | { readonly kind: 'fault'; readonly replica: number; readonly op: StorageOp; readonly fault: StorageFault; readonly by?: 'supervisor' }
  /** The replica's incarnation was torn down or crashed: every task stops, handles are dropped without
   * finish, what it wrote and did not append leaks (input: why). */
  | { readonly kind: 'abort'; readonly replica: number; readonly reason: string }
  /** A new incarnation of the replica started on the same storage; its sink resumes at the shard's
   * upper (`lower`, predicted). */
  | { readonly kind: 'restart'; readonly replica: number; readonly lower: Time }
  /** Leaked-blob cleanup, run by a writer of the replica: it deleted `deleted` blobs that no state
   * references and whose writer can no longer append (input: how many; what leaked is judged by the
   * audit of the blob store). */
  | { readonly kind: 'cleanup'; readonly replica: number; readonly deleted: number }
  );

/**
 * Several MV sinks in one run (RunConfig.sinks, PROTOCOL.md "Several MV sinks"): an event of sink s > 0
 * (its operators, its handles, its shard's writer; a sweep's hold and release of its entry) carries
 * `sink: s`; sink 0's events carry no `sink` field, so one-sink traces are as before.
 */
export interface SinkTag {
  readonly sink?: number;
}

/**
 * Who ran a sweep: the worker whose builder() call it was (replica, process, worker). `worker` is absent
 * only in one sink's part of a run of several sinks, for a sweep another sink's worker ran (an
 * environment step there: conformance/multi-sink.ts). A hold or release of an entry of another sink than
 * the sweeper's names the entry's sink (`entrySink`; the event's own `sink` is the sweeper's).
 */
export interface SweepBy {
  readonly replica: number;
  readonly process: number;
  readonly worker?: number;
}

/** What a registry sweep removed of one MV sink's entries. */
export interface SweptSink {
  readonly sink: number;
  readonly removed: readonly SharedId[];
}

export type TraceEventKind = TraceEvent['kind'];

/** Receives protocol events from impl/. Optional; production passes none. */
export interface Observer {
  event(e: TraceEvent): void;
}
