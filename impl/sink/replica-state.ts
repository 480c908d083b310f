/**
 * The state one replica's sink operators share, and the edges between them.
 *
 * Invariants:
 * - `lower` starts at the shard's upper when the writer started (0 for a fresh shard) and only grows
 *   (to `upper` on a successful append, to the shard's `current` on a mismatch);
 * - at most one description is `live`; it is minted with lower = `lower` and ends after its append
 *   (and, after a mismatch, after its batches were deleted), or is superseded: the mint saw the
 *   shard's upper pass its lower before its append began, set `lower` to that upper and minted a newer
 *   one; at most one superseded description is pending (`superseded`) until its append worker deleted
 *   what was handed for it (`stale`);
 * - every change to `desired`, `lower` or `live` notifies `changed` (input and mint wait on it).
 */
import type { Description, NoDataPolicy } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Batch } from '../persist/batch.ts';
import type { BatchWriter } from '../persist/batch-builder.ts';
import type { ShardWriter } from '../persist/shard-writer.ts';
import { Mailbox } from '../runtime/mailbox.ts';
import { Notify } from '../runtime/notify.ts';
import type { Spawn } from '../runtime/task-group.ts';
import type { Trace } from '../runtime/trace.ts';
import type { Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';
import type { RegistrySink } from '../shared/context.ts';
import { SharedBatches } from '../shared/shared-batches.ts';
import type { Update } from '../update.ts';
import type { SharingPolicy } from '../variants/index.ts';
import type { BarrierKnob, MaxBytesKnob } from './route.ts';

/** How the input advances the desired frontier. `lockstep`: only once the sink caught up
 * (lower ≥ desired), one description per step, like a sink that keeps up with its input. `free`: as
 * fast as the scheduler lets it, so a description may span several steps. */
export type Pacing = 'lockstep' | 'free';

export interface SinkSettings {
  readonly replica: number;
  /** The run's variant as the sink consults it (the async sink v1: off's, whatever the variant). */
  readonly policy: SharingPolicy;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  readonly maxBytes: MaxBytesKnob;
  readonly barrier: BarrierKnob;
  readonly pushChunkUpdates: number;
  /** What a worker with no data does for a shared description (vocab NoDataPolicy). */
  readonly noData: NoDataPolicy;
  readonly pacing: Pacing;
  /** The shard's upper when this writer started (0 for a fresh shard): the sink's first lower. */
  readonly startLower: number;
  /** This incarnation replaced an aborted one (supervisor.ts). */
  readonly restarted: boolean;
}

export interface SinkDeps {
  readonly scheduler: Scheduler;
  readonly trace: Trace;
  readonly bugs: BugSwitches;
  readonly metrics: MetricsRecorder;
  readonly spawn: Spawn;
  readonly shard: ShardWriter;
  readonly writer: BatchWriter;
  /** Notified whenever any writer of the run moved the shard's upper (an append or a bump): the
   * persist frontier the v2 mint follows (in-process runs; a lone replica process gets its own). */
  readonly shardMoved: Notify;
  /** The registries (one per process) when the replica hosts several MV sinks: shared by all of them
   * (the supervisor makes them; PROTOCOL.md "Several MV sinks"). Absent: this sink's own. */
  readonly registries?: readonly SharedBatches[];
  /** This sink's index in the run (default 0): whose writer and trace its registry entries use. */
  readonly sink?: number;
}

/** What a worker hands to the description's append worker: 0 or 1 batches. */
export interface Hand {
  readonly desc: Description;
  readonly worker: number;
  readonly batches: readonly Batch[];
}

export class ReplicaState {
  desired = 0;
  lower: number;
  /** Mint sequence: shared ids and append workers. Starts at 0 every run, also when the shard does
   * not (shared ids name entries of this run's in-memory registries only; nothing durable keeps them). */
  seq = 0;
  live: Description | null = null;
  /** The live description's append worker passed its `append` point for it: too late to supersede. */
  appendStarted = false;
  /** The mint's poll is reading the shard (mint.ts): the live description's append waits for the answer. */
  polling = false;
  /** Notified when a poll's read answered (or failed). Not `changed`: the mint waits on that one, and
   * its own read must not wake it (it would poll again and again while the append waits). */
  readonly pollDone = new Notify();
  /** The superseded description whose append worker has not yet deleted its hands (at most one). */
  superseded: Description | null = null;
  readonly changed = new Notify();
  readonly writeQueues: readonly Mailbox<Description>[];
  readonly appendQueues: readonly Mailbox<Description>[];
  readonly inboxes: readonly Mailbox<Hand>[];
  readonly registries: readonly SharedBatches[];
  /** This sink as the registries see it (its index, writer and trace). */
  readonly registrySink: RegistrySink;

  constructor(
    readonly settings: SinkSettings,
    readonly deps: SinkDeps,
    /** Per worker, its updates ascending by (time, id). */
    readonly updatesByWorker: readonly (readonly Update[])[],
  ) {
    this.lower = settings.startLower;
    this.desired = settings.startLower;
    this.#ignoresShard = settings.restarted && deps.bugs.has('restart-rewrites-appended-interval');
    const n = this.workers;
    this.writeQueues = Array.from({ length: n }, () => new Mailbox<Description>());
    this.appendQueues = Array.from({ length: n }, () => new Mailbox<Description>());
    this.inboxes = Array.from({ length: n }, () => new Mailbox<Hand>());
    this.registrySink = { sink: deps.sink ?? 0, writer: deps.writer, trace: deps.trace, shard: deps.shard.shardId };
    this.registries = deps.registries ?? Array.from(
      { length: settings.processes },
      (_, process) =>
        new SharedBatches({
          replica: settings.replica,
          process,
          writer: deps.writer,
          scheduler: deps.scheduler,
          trace: deps.trace,
          bugs: deps.bugs,
          spawn: deps.spawn,
          shard: deps.shard.shardId,
        }),
    );
  }

  /** P·W: the workers of this replica. */
  get workers(): number {
    return this.settings.processes * this.settings.workersPerProcess;
  }

  processOf(worker: number): number {
    return Math.floor(worker / this.settings.workersPerProcess);
  }

  where(worker?: number): Where {
    return worker === undefined
      ? { replica: this.settings.replica }
      : { replica: this.settings.replica, process: this.processOf(worker), worker };
  }

  /**
   * The worker's corrections for a description [lower, upper), ascending by id (the staged order): the
   * desired updates with time < upper that the shard does not hold yet, at times advanced to `lower`
   * (the MV sink's correction buffer). The shard holds exactly the desired updates below its upper, and
   * `lower` is the upper this incarnation last saw, so these are the updates with lower ≤ time < upper —
   * also right after a restart, which starts at the shard's upper.
   */
  staged(worker: number, lower: number, upper: number): Update[] {
    const mine = at(this.updatesByWorker, worker);
    // BUG (restart-rewrites-appended-interval): a restarted incarnation's first description ignores
    // what the shard holds and takes every desired update below its upper as still missing.
    const from = this.#ignoresShard && lower === this.settings.startLower ? 0 : lower;
    const slice = mine.slice(firstAtOrAfter(mine, from), firstAtOrAfter(mine, upper)).map((u) => (u.time < lower ? { ...u, time: lower } : u));
    return upper - from > 1 ? slice.sort((a, b) => a.id - b.id) : slice;
  }

  readonly #ignoresShard: boolean;

  setLower(lower: number): void {
    this.lower = lower;
    this.changed.notifyWaiters();
  }

  endDescription(): void {
    this.live = null;
    this.changed.notifyWaiters();
  }

  /**
   * The sink has nothing left to write (vocab/PROTOCOL.md "Faults", sealed): its lower reached K, no
   * description is live (a refused append's delete has run) and no superseded description waits for
   * its append worker to delete what was handed for it. Until then a storage failure can still stop it.
   */
  get sealed(): boolean {
    return this.live === null && this.superseded === null && this.lower >= this.settings.intervals;
  }

  /** The sink is done (lower reached K): every worker's queues close and its tasks end. */
  closeQueues(): void {
    for (const q of this.writeQueues) q.close();
    for (const q of this.appendQueues) q.close();
    for (const q of this.inboxes) q.close();
  }
}

/** The element of `list` at `i`, which the caller knows exists (worker and process indices). */
export function at<T>(list: readonly T[], i: number): T {
  const v = list[i];
  if (v === undefined) throw new RangeError(`index ${i} outside [0, ${list.length})`);
  return v;
}

/** Index of the first update with time ≥ t in a list sorted by time. */
function firstAtOrAfter(sorted: readonly Update[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(sorted, mid).time < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
