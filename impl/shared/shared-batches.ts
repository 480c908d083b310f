/**
 * SharedBatches: the process-global registry `batch id → builder state` (#37591, barrier #37617), as
 * Materialize's `src/storage-operators/src/persist.rs` runs it (vocab/PROTOCOL.md "Sweep", "Keying").
 *
 * - builder(id, desc, {worker, participants?, sink?}) takes the registry's lock, sweeps the map if it
 *   has grown past twice its length after the last sweep (the length before this call's insert), then
 *   returns a handle on the live state for `id`, or on a new one (a dead entry is replaced: best-effort's
 *   separate batch per overlap group). A live id whose {shard, lower, upper} (or participant count)
 *   differs is `conflicting-descriptions` (Materialize: `assert_eq!`, a panic).
 * - noteSkip(id, participants) takes the lock too: a participant with nothing to push reports; before
 *   the state exists the skip is recorded and applied at creation; when all participants skipped the
 *   record goes.
 * - A barrier may have a deadline (`OpenOptions.deadline`, vocab/PROTOCOL.md "Barrier with a deadline"):
 *   its first report starts a timer (barrier-timer.ts); once it completed at its deadline the id is
 *   `late`: a later builder() gives a best-effort handle (a new entry replaces the completed barrier's
 *   even while its waiters hold it; late workers share among themselves), a later noteSkip does nothing.
 * - The lock is held from the call's first step to its `open` (the sweep and the lookup happen under
 *   it); finishes never take it, so they interleave with a sweep — the review's race (sweep.ts).
 * - Keyed by the batch id alone (batch-id.ts): ids of different sinks never collide, and every MV sink
 *   of the process opens its handles here (`OpenOptions.sink`); the sweep counts and removes every
 *   sink's entries.
 *
 * Invariants:
 * - at most one entry per id; every entry has exactly one builder task;
 * - `completed` holds barrier ids whose every participant reported; any later open or skip of such an
 *   id is an over-report (typed error) rather than a new barrier that would wait forever. (It grows by
 *   one id per barrier interval.) `late` holds barrier ids that completed at their deadline (one id per
 *   interval that timed out).
 */
import type { SharedId } from '../../vocab/index.ts';
import { SbkitError, requireInteger } from '../errors.ts';
import { Notify } from '../runtime/notify.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import { BarrierState, type Deadline } from './barrier-state.ts';
import { barrierDeadline } from './barrier-timer.ts';
import { asBatchId, keyOf, showId, type SharedBatchId } from './batch-id.ts';
import { BuilderInstance } from './builder-instance.ts';
import { runBuilderTask } from './builder-task.ts';
import { SHARED_CHANNEL_CAPACITY, type BatchRange, type RegistrySink, type SharedBatchesContext } from './context.ts';
import { BuilderEntry } from './entry.ts';
import { SharedBatchHandle } from './handle.ts';
import { sweepUnderLock } from './sweep.ts';

export interface OpenOptions {
  /** The worker opening the handle (index within its replica), for traces and scheduling sites. */
  readonly worker: number;
  /** Barrier variant: the number of workers that will each finish or skip exactly once. */
  readonly participants?: number;
  /** With `participants`: the barrier's deadline in milliseconds (absent or Infinity: none), from its
   * first report. Only the open that creates the state gives it its deadline. */
  readonly deadline?: number;
  /** The MV sink opening it (default: the registry's own sink, with its writer, trace and shard). */
  readonly sink?: RegistrySink;
}

interface EarlySkips {
  count: number;
  readonly participants: number;
}

export class SharedBatches {
  readonly #entries = new Map<string, BuilderEntry>();
  readonly #earlySkips = new Map<string, EarlySkips>();
  readonly #completed = new Set<string>();
  readonly #late = new Set<string>();
  /** The map's length after the last sweep (Materialize's `last_retained_len`). */
  #retained = 0;
  /** The worker whose builder() or noteSkip() call holds the registry's lock, or null. */
  #lockedBy: number | null = null;
  readonly #released = new Notify();
  /** The registry's own sink as its context describes it (one-sink callers pass no sink). */
  readonly #sink0: RegistrySink;
  /** Per sink, the context its handles and builder tasks see (its writer and trace). */
  readonly #contexts = new Map<number, SharedBatchesContext>();

  constructor(private readonly ctx: SharedBatchesContext) {
    this.#sink0 = { sink: 0, writer: ctx.writer, trace: ctx.trace, shard: ctx.shard };
    this.#contexts.set(0, ctx);
  }

  #contextOf(s: RegistrySink): SharedBatchesContext {
    let c = this.#contexts.get(s.sink);
    if (c === undefined) {
      c = { ...this.ctx, writer: s.writer, trace: s.trace };
      this.#contexts.set(s.sink, c);
    }
    return c;
  }

  /** Entries in the map, live or dead. */
  get size(): number {
    return this.#entries.size;
  }

  /** The map's length after the last sweep. */
  get retained(): number {
    return this.#retained;
  }

  /** Strong references held on `id` (0 if absent or dead). */
  refs(id: SharedId | SharedBatchId): number {
    return this.#entries.get(keyOf(asBatchId(id)))?.refs ?? 0;
  }

  /** Skips recorded for `id` before its state existed. */
  earlySkips(id: SharedId | SharedBatchId): number {
    return this.#earlySkips.get(keyOf(asBatchId(id)))?.count ?? 0;
  }

  async builder(id: SharedId | SharedBatchId, range: BatchRange, opts: OpenOptions): Promise<SharedBatchHandle> {
    const bid = asBatchId(id);
    const sink = opts.sink ?? this.#sink0;
    requireInteger(bid.seq, 0, 'shared id');
    requireInteger(opts.worker, 0, 'worker', 'invalid-workers');
    validateRange(bid, range);
    if (opts.participants !== undefined) requireInteger(opts.participants, 1, 'participants', 'invalid-workers');
    const deadline = opts.deadline;
    if (deadline !== undefined && !(deadline >= 0)) throw new SbkitError('invalid-config', `barrier deadline of shared batch ${showId(bid)} must be ≥ 0 ms, got ${String(deadline)}`);

    const where = this.#where(opts.worker);
    await this.#acquire(() => pointAt(this.ctx.scheduler, 'shared.open', where), opts.worker);
    try {
      const key = keyOf(bid);
      // (any open: the id's barrier completed, so an open in either mode is a report after it)
      this.#refuseCompleted(key, bid, 'builder()');
      // Amortized: the map is swept only once it has doubled since the last sweep, counting every
      // entry, live or dead, before this call inserts its own.
      if (this.#entries.size > 2 * this.#retained) {
        await sweepUnderLock(this.#sweepHost(), opts.worker, sink);
        await pointAt(this.ctx.scheduler, 'shared.open', where);
      }
      // A late worker: the id's barrier completed at its deadline (its timer may have fired during this
      // call's sweep: asked at the lookup); it shares best-effort with the other late workers.
      // BUG (late-worker-joins-completed-barrier): the late set is not asked.
      const late = opts.participants !== undefined && this.#late.has(key) && !this.ctx.bugs.has('late-worker-joins-completed-barrier');
      const participants = late ? undefined : opts.participants;
      let entry = this.#entries.get(key);
      let created = false;
      // (a live entry of a completed barrier is not joined: a late worker replaces it)
      const joinable = entry !== undefined && entry.live && !(late && entry.barrier !== undefined);
      if (entry !== undefined && (joinable || (!entry.live && this.ctx.bugs.has('late-handle-joins-finished-builder')))) {
        // BUG (late-handle-joins-finished-builder) when `entry` is dead: it is revived instead of
        // replaced, but its receiver already closed the channel, so this handle pushes into nothing.
        requireSame(entry, sink.shard, range, participants);
      } else {
        entry = this.#create(key, bid, range, participants, deadline, sink);
        created = true;
      }
      entry.refs += 1;
      entry.barrier?.join();
      const ctx = this.#contextOf(sink);
      const handle = new SharedBatchHandle(ctx, entry, entry.nextHandleId(), opts.worker, (atDeadline) => this.#finalized(key, atDeadline));
      ctx.trace.emit({
        kind: 'open',
        replica: this.ctx.replica,
        process: this.ctx.process,
        worker: opts.worker,
        sharedId: bid.seq,
        created,
        participants: participants ?? null,
      });
      return handle;
    } finally {
      this.#release();
    }
  }

  async noteSkip(id: SharedId | SharedBatchId, participants: number, worker: number, sink: RegistrySink = this.#sink0): Promise<void> {
    const bid = asBatchId(id);
    requireInteger(bid.seq, 0, 'shared id');
    requireInteger(participants, 1, 'participants', 'invalid-workers');
    requireInteger(worker, 0, 'worker', 'invalid-workers');

    await this.#acquire(() => pointAt(this.ctx.scheduler, 'barrier.skip', this.#where(worker)), worker);
    try {
      const key = keyOf(bid);
      const name = showId(bid);
      if (this.#late.has(key)) {
        // A late worker's skip: its barrier completed at its deadline, nothing waits for it.
        this.#contextOf(sink).trace.emit({ kind: 'skip', replica: this.ctx.replica, process: this.ctx.process, worker, sharedId: bid.seq, early: false });
        return;
      }
      this.#refuseCompleted(key, bid, 'noteSkip()');
      const entry = this.#entries.get(key);
      let early: boolean;
      if (entry?.live) {
        if (entry.barrier === undefined || entry.participants !== participants) {
          throw new SbkitError(
            'conflicting-descriptions',
            `noteSkip(${name}, ${participants}) on a shared batch opened with ${entry.participants === undefined ? 'no barrier' : `${entry.participants} participants`}`,
          );
        }
        if (entry.barrier.arrive(null)) this.#finalized(key, entry.barrier.late);
        early = false;
      } else {
        const record = this.#earlySkips.get(key) ?? { count: 0, participants };
        if (record.participants !== participants) {
          throw new SbkitError('conflicting-descriptions', `noteSkip(${name}, ${participants}) after skips recorded for ${record.participants} participants`);
        }
        record.count += 1;
        if (record.count === participants) {
          // Every participant skipped: there will be no state; remove the record.
          this.#earlySkips.delete(key);
          this.#completed.add(key);
        } else this.#earlySkips.set(key, record);
        early = true;
      }
      this.#contextOf(sink).trace.emit({ kind: 'skip', replica: this.ctx.replica, process: this.ctx.process, worker, sharedId: bid.seq, early });
    } finally {
      this.#release();
    }
  }

  #where(worker: number): Where {
    return { replica: this.ctx.replica, process: this.ctx.process, worker };
  }

  /** Takes the registry's lock (Materialize: `self.data.lock()`) after the call's point: a call that finds
   * it held waits for its release, then passes its point again before it acts. */
  async #acquire(point: () => Promise<void>, worker: number): Promise<void> {
    for (;;) {
      await point();
      if (this.#lockedBy === null) {
        this.#lockedBy = worker;
        return;
      }
      await this.#released.register();
    }
  }

  #release(): void {
    this.#lockedBy = null;
    this.#released.notifyWaiters();
  }

  #sweepHost() {
    return {
      ctx: this.ctx,
      entries: this.#entries,
      traceOf: (s: RegistrySink) => this.#contextOf(s).trace,
      sweepDone: () => {
        this.#retained = this.#entries.size;
      },
    };
  }

  /** A barrier completed: by every participant's report, or at its deadline (`late`). */
  #finalized(key: string, late: boolean): void {
    (late ? this.#late : this.#completed).add(key);
  }

  /** The barrier's timer of `entry` fired: expire it and, unless it had completed, say so in its sink's trace. */
  #timerFired(key: string, entry: BuilderEntry): void {
    const barrier = entry.barrier as BarrierState;
    const outcome = barrier.expire(this.ctx.bugs);
    if (outcome === 'idle') return;
    if (outcome === 'completed') this.#finalized(key, true);
    // (the sink that created the entry opened a handle: its context exists)
    (this.#contexts.get(entry.sink) as SharedBatchesContext).trace.emit({ kind: 'timeout', replica: this.ctx.replica, process: this.ctx.process, sharedId: entry.id.seq, completes: outcome === 'completed' });
  }

  #refuseCompleted(key: string, id: SharedBatchId, what: string): void {
    if (!this.#completed.has(key)) return;
    throw new SbkitError('barrier-over-report', `${what} for shared batch ${showId(id)}: all participants of its barrier already reported`);
  }

  #create(key: string, id: SharedBatchId, range: BatchRange, participants: number | undefined, deadline: number | undefined, sink: RegistrySink): BuilderEntry {
    const { ctx } = this;
    const name = showId(id);
    const where: Where = { replica: ctx.replica, process: ctx.process };
    const label = sink.sink === 0 ? `#${name}` : `s${sink.sink}#${name}`;
    // Set below, before the timer (armed at the first report, a task of its own) can fire.
    let entry: BuilderEntry | undefined;
    let barrier: BarrierState | undefined;
    if (participants !== undefined) {
      const record = this.#earlySkips.get(key);
      if (record !== undefined && record.participants !== participants) {
        throw new SbkitError('conflicting-descriptions', `builder(${name}) with ${participants} participants after skips recorded for ${record.participants}`);
      }
      this.#earlySkips.delete(key);
      const skips = record?.count ?? 0;
      // BUG (barrier-skip-double-count): the recorded skips are applied twice.
      const applied = ctx.bugs.has('barrier-skip-double-count') ? 2 * skips : skips;
      // (the deadline belongs to the barrier: a late worker's best-effort entry, made with its
      // description's deadline, has none)
      const timer: Deadline | undefined =
        deadline === undefined || !Number.isFinite(deadline)
          ? undefined
          : barrierDeadline(ctx, where, `r${ctx.replica}/p${ctx.process}/${label}`, deadline, () => {
              if (entry !== undefined) this.#timerFired(key, entry);
            });
      barrier = new BarrierState(name, participants, participants - applied, timer);
    }
    const instance = new BuilderInstance(SHARED_CHANNEL_CAPACITY, sink.writer.metrics);
    entry = new BuilderEntry(id, sink.shard, { lower: range.lower, upper: range.upper }, participants, instance, barrier, sink.sink);
    this.#entries.set(key, entry);
    ctx.spawn(`builder r${ctx.replica}/p${ctx.process}/${label}`, () =>
      runBuilderTask(instance, sink.writer, entry.range, ctx.scheduler, where),
    );
    return entry;
  }
}

function validateRange(id: SharedBatchId, range: BatchRange): void {
  const name = showId(id);
  requireInteger(range.lower, 0, `shared batch ${name} lower`);
  requireInteger(range.upper, 0, `shared batch ${name} upper`);
  if (range.upper <= range.lower) {
    throw new SbkitError('invalid-config', `shared batch ${name}: upper ${range.upper} must be greater than lower ${range.lower}`);
  }
}

/** The description check against the live state: Materialize's `assert_eq!(state.desc, desc)` over
 * {shard_id, lower, upper}, a typed error here; and, the kit's own, the participant count (a barrier and a
 * best-effort handle on one state would hang or finish early). The shard is named only when it differs. */
function requireSame(entry: BuilderEntry, shard: string, range: BatchRange, participants: number | undefined): void {
  const sameShard = entry.shard === shard;
  if (sameShard && entry.range.lower === range.lower && entry.range.upper === range.upper && entry.participants === participants) return;
  const show = (s: string, r: BatchRange, p: number | undefined): string =>
    `${sameShard ? '' : `shard ${s} `}[${r.lower}, ${r.upper})${p === undefined ? '' : ` with ${p} participants`}`;
  throw new SbkitError(
    'conflicting-descriptions',
    `conflicting descriptions for shared batch ${showId(entry.id)}: live builder has ${show(entry.shard, entry.range, entry.participants)}, builder() asked for ${show(shard, range, participants)}`,
  );
}
