/**
 * SharedBatches: the process-global registry `sharedId → builder state` (#37591, barrier #37617).
 *
 * - builder(id, range, {worker, participants?}) returns a handle on the live state for `id`, or on a
 *   new one (a dead entry is replaced: best-effort's separate batch per overlap group). A live id
 *   with another range (or participant count) is `conflicting-descriptions`.
 * - noteSkip(id, participants): a participant with nothing to push reports; before the state exists
 *   the skip is recorded and applied at creation; when all participants skipped the record goes.
 * - Creating an entry may start the background sweep (when the map grew past 2 × retained).
 * - Process-global (PROTOCOL.md "Several MV sinks"): every MV sink of the process opens its handles
 *   here (`OpenOptions.sink`). Entries are keyed by (sink, id) and the description check covers the
 *   sink (Materialize: `{shard_id, lower, upper}`); the size that triggers a sweep counts every sink's
 *   entries, and a sweep removes every sink's dead entries.
 *
 * Invariants:
 * - at most one entry per id; every entry has exactly one builder task;
 * - `completed` holds barrier ids whose every participant reported; any later open or skip of such an
 *   id is an over-report (typed error) rather than a new barrier that would wait forever. (It grows by
 *   one id per barrier interval; ids are mint sequence numbers, so a low-water mark could prune it.)
 */
import type { SharedId } from '../../vocab/index.ts';
import { SbkitError, requireInteger } from '../errors.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import { BarrierState } from './barrier-state.ts';
import { BuilderInstance } from './builder-instance.ts';
import { runBuilderTask } from './builder-task.ts';
import { SHARED_CHANNEL_CAPACITY, type BatchRange, type RegistrySink, type SharedBatchesContext } from './context.ts';
import { BuilderEntry } from './entry.ts';
import { SharedBatchHandle } from './handle.ts';
import { sweepDeadEntries } from './sweep.ts';

export interface OpenOptions {
  /** The worker opening the handle (index within its replica), for traces and scheduling sites. */
  readonly worker: number;
  /** Barrier variant: the number of workers that will each finish or skip exactly once. */
  readonly participants?: number;
  /** The MV sink opening it (default: sink 0 with the registry's own writer and trace). */
  readonly sink?: RegistrySink;
}

/** Entry keys: (sink, id) as one number, ascending in (sink, id) order (ids are mint sequence numbers). */
const SINK_STRIDE = 2 ** 32;

interface EarlySkips {
  count: number;
  readonly participants: number;
}

export class SharedBatches {
  readonly #entries = new Map<number, BuilderEntry>();
  readonly #earlySkips = new Map<number, EarlySkips>();
  readonly #completed = new Set<number>();
  #retained = 0;
  #sweepPending = false;
  /** Sink 0 as the registry's own context describes it (one-sink callers pass no sink). */
  readonly #sink0: RegistrySink;
  /** Per sink, the context its handles and builder tasks see (its writer and trace). */
  readonly #contexts = new Map<number, SharedBatchesContext>();

  constructor(private readonly ctx: SharedBatchesContext) {
    this.#sink0 = { sink: 0, writer: ctx.writer, trace: ctx.trace };
    this.#contexts.set(0, ctx);
  }

  /** The key of (sink, id). BUG (registry-keyed-by-id): the id alone, so sinks whose mints number
   * their descriptions alike share entries. */
  #key(sink: number, id: SharedId): number {
    return this.ctx.bugs.has('registry-keyed-by-id') ? id : sink * SINK_STRIDE + id;
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

  /** Strong references held on `id` (0 if absent or dead). */
  refs(id: SharedId, sink = 0): number {
    return this.#entries.get(this.#key(sink, id))?.refs ?? 0;
  }

  /** Skips recorded for `id` before its state existed. */
  earlySkips(id: SharedId, sink = 0): number {
    return this.#earlySkips.get(this.#key(sink, id))?.count ?? 0;
  }

  async builder(id: SharedId, range: BatchRange, opts: OpenOptions): Promise<SharedBatchHandle> {
    const sink = opts.sink ?? this.#sink0;
    requireInteger(id, 0, 'shared id');
    requireInteger(opts.worker, 0, 'worker', 'invalid-workers');
    validateRange(id, range);
    const participants = opts.participants;
    if (participants !== undefined) requireInteger(participants, 1, 'participants', 'invalid-workers');

    await pointAt(this.ctx.scheduler, 'shared.open', this.#where(opts.worker));
    const key = this.#key(sink.sink, id);
    if (participants !== undefined) this.#refuseCompleted(key, id, 'builder()');
    let entry = this.#entries.get(key);
    let created = false;
    if (entry !== undefined && (entry.live || this.ctx.bugs.has('late-handle-joins-finished-builder'))) {
      // BUG (late-handle-joins-finished-builder) when `entry` is dead: it is revived instead of
      // replaced, but its receiver already closed the channel, so this handle pushes into nothing.
      requireSame(entry, range, participants);
    } else {
      entry = this.#create(key, id, range, participants, sink);
      created = true;
    }
    entry.refs += 1;
    const ctx = this.#contextOf(sink);
    const handle = new SharedBatchHandle(ctx, entry, entry.nextHandleId(), opts.worker, () => this.#completed.add(key));
    ctx.trace.emit({
      kind: 'open',
      replica: this.ctx.replica,
      process: this.ctx.process,
      worker: opts.worker,
      sharedId: id,
      created,
      participants: participants ?? null,
    });
    if (created) this.#maybeSweep();
    return handle;
  }

  async noteSkip(id: SharedId, participants: number, worker: number, sink: RegistrySink = this.#sink0): Promise<void> {
    requireInteger(id, 0, 'shared id');
    requireInteger(participants, 1, 'participants', 'invalid-workers');
    requireInteger(worker, 0, 'worker', 'invalid-workers');

    await pointAt(this.ctx.scheduler, 'barrier.skip', this.#where(worker));
    const key = this.#key(sink.sink, id);
    this.#refuseCompleted(key, id, 'noteSkip()');
    const entry = this.#entries.get(key);
    let early: boolean;
    if (entry?.live) {
      if (entry.barrier === undefined || entry.participants !== participants) {
        throw new SbkitError(
          'conflicting-descriptions',
          `noteSkip(${id}, ${participants}) on a shared batch opened with ${entry.participants === undefined ? 'no barrier' : `${entry.participants} participants`}`,
        );
      }
      if (entry.barrier.arrive(null)) this.#completed.add(key);
      early = false;
    } else {
      const record = this.#earlySkips.get(key) ?? { count: 0, participants };
      if (record.participants !== participants) {
        throw new SbkitError('conflicting-descriptions', `noteSkip(${id}, ${participants}) after skips recorded for ${record.participants} participants`);
      }
      record.count += 1;
      if (record.count === participants) {
        // Every participant skipped: there will be no state; remove the record.
        this.#earlySkips.delete(key);
        this.#completed.add(key);
      } else this.#earlySkips.set(key, record);
      early = true;
    }
    this.#contextOf(sink).trace.emit({ kind: 'skip', replica: this.ctx.replica, process: this.ctx.process, worker, sharedId: id, early });
  }

  #where(worker: number): Where {
    return { replica: this.ctx.replica, process: this.ctx.process, worker };
  }

  #refuseCompleted(key: number, id: SharedId, what: string): void {
    if (!this.#completed.has(key)) return;
    throw new SbkitError('barrier-over-report', `${what} for shared batch ${id}: all participants of its barrier already reported`);
  }

  #create(key: number, id: SharedId, range: BatchRange, participants: number | undefined, sink: RegistrySink): BuilderEntry {
    const { ctx } = this;
    let barrier: BarrierState | undefined;
    if (participants !== undefined) {
      const record = this.#earlySkips.get(key);
      if (record !== undefined && record.participants !== participants) {
        throw new SbkitError('conflicting-descriptions', `builder(${id}) with ${participants} participants after skips recorded for ${record.participants}`);
      }
      this.#earlySkips.delete(key);
      const skips = record?.count ?? 0;
      // BUG (barrier-skip-double-count): the recorded skips are applied twice.
      const applied = ctx.bugs.has('barrier-skip-double-count') ? 2 * skips : skips;
      barrier = new BarrierState(id, participants, participants - applied);
    }
    const instance = new BuilderInstance(SHARED_CHANNEL_CAPACITY, sink.writer.metrics);
    const entry = new BuilderEntry(id, { lower: range.lower, upper: range.upper }, participants, instance, barrier, sink.sink);
    this.#entries.set(key, entry);
    const where: Where = { replica: ctx.replica, process: ctx.process };
    const name = sink.sink === 0 ? `#${id}` : `s${sink.sink}#${id}`;
    ctx.spawn(`builder r${ctx.replica}/p${ctx.process}/${name}`, () =>
      runBuilderTask(instance, sink.writer, entry.range, ctx.scheduler, where),
    );
    return entry;
  }

  #maybeSweep(): void {
    if (this.#sweepPending || this.#entries.size <= 2 * this.#retained) return;
    this.#sweepPending = true;
    const host = {
      ctx: this.ctx,
      entries: this.#entries,
      sweepDone: () => {
        this.#retained = this.#entries.size;
        this.#sweepPending = false;
      },
    };
    this.ctx.spawn(`sweep r${this.ctx.replica}/p${this.ctx.process}`, () => sweepDeadEntries(host));
  }
}

function validateRange(id: SharedId, range: BatchRange): void {
  requireInteger(range.lower, 0, `shared batch ${id} lower`);
  requireInteger(range.upper, 0, `shared batch ${id} upper`);
  if (range.upper <= range.lower) {
    throw new SbkitError('invalid-config', `shared batch ${id}: upper ${range.upper} must be greater than lower ${range.lower}`);
  }
}

/** The description check against the live state (Materialize: `{shard_id, lower, upper}`). The shard
 * is part of the key (`#key`), so an entry found for (sink, id) is that sink's; what is left to compare
 * is the range and the participants. BUG (registry-keyed-by-id): the key drops the sink, and with it
 * the shard's part of the check. */
function requireSame(entry: BuilderEntry, range: BatchRange, participants: number | undefined): void {
  if (entry.range.lower === range.lower && entry.range.upper === range.upper && entry.participants === participants) return;
  const show = (r: BatchRange, p: number | undefined): string =>
    `[${r.lower}, ${r.upper})${p === undefined ? '' : ` with ${p} participants`}`;
  throw new SbkitError(
    'conflicting-descriptions',
    `conflicting descriptions for shared batch ${entry.id}: live builder has ${show(entry.range, entry.participants)}, builder() asked for ${show(range, participants)}`,
  );
}
