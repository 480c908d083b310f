/**
 * SharedBatches: the process-global registry `sharedId → builder state` (#37591, barrier #37617).
 *
 * - builder(id, range, {worker, participants?}) returns a handle on the live state for `id`, or on a
 *   new one (a dead entry is replaced: best-effort's separate batch per overlap group). A live id
 *   with another range (or participant count) is `conflicting-descriptions`.
 * - noteSkip(id, participants): a participant with nothing to push reports; before the state exists
 *   the skip is recorded and applied at creation; when all participants skipped the record goes.
 * - Creating an entry may start the background sweep (when the map grew past 2 × retained).
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
import { SHARED_CHANNEL_CAPACITY, type BatchRange, type SharedBatchesContext } from './context.ts';
import { BuilderEntry } from './entry.ts';
import { SharedBatchHandle } from './handle.ts';
import { sweepDeadEntries } from './sweep.ts';

export interface OpenOptions {
  /** The worker opening the handle (index within its replica), for traces and scheduling sites. */
  readonly worker: number;
  /** Barrier variant: the number of workers that will each finish or skip exactly once. */
  readonly participants?: number;
}

interface EarlySkips {
  count: number;
  readonly participants: number;
}

export class SharedBatches {
  readonly #entries = new Map<SharedId, BuilderEntry>();
  readonly #earlySkips = new Map<SharedId, EarlySkips>();
  readonly #completed = new Set<SharedId>();
  #retained = 0;
  #sweepPending = false;

  constructor(private readonly ctx: SharedBatchesContext) {}

  /** Entries in the map, live or dead. */
  get size(): number {
    return this.#entries.size;
  }

  /** Strong references held on `id` (0 if absent or dead). */
  refs(id: SharedId): number {
    return this.#entries.get(id)?.refs ?? 0;
  }

  /** Skips recorded for `id` before its state existed. */
  earlySkips(id: SharedId): number {
    return this.#earlySkips.get(id)?.count ?? 0;
  }

  async builder(id: SharedId, range: BatchRange, opts: OpenOptions): Promise<SharedBatchHandle> {
    requireInteger(id, 0, 'shared id');
    requireInteger(opts.worker, 0, 'worker', 'invalid-workers');
    validateRange(id, range);
    const participants = opts.participants;
    if (participants !== undefined) requireInteger(participants, 1, 'participants', 'invalid-workers');

    await pointAt(this.ctx.scheduler, 'shared.open', this.#where(opts.worker));
    if (participants !== undefined) this.#refuseCompleted(id, 'builder()');
    let entry = this.#entries.get(id);
    let created = false;
    if (entry !== undefined && (entry.live || this.ctx.bugs.has('late-handle-joins-finished-builder'))) {
      // BUG (late-handle-joins-finished-builder) when `entry` is dead: it is revived instead of
      // replaced, but its receiver already closed the channel, so this handle pushes into nothing.
      requireSame(entry, range, participants);
    } else {
      entry = this.#create(id, range, participants);
      created = true;
    }
    entry.refs += 1;
    const handle = new SharedBatchHandle(this.ctx, entry, entry.nextHandleId(), opts.worker, (done) => this.#completed.add(done));
    this.ctx.trace.emit({
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

  async noteSkip(id: SharedId, participants: number, worker: number): Promise<void> {
    requireInteger(id, 0, 'shared id');
    requireInteger(participants, 1, 'participants', 'invalid-workers');
    requireInteger(worker, 0, 'worker', 'invalid-workers');

    await pointAt(this.ctx.scheduler, 'barrier.skip', this.#where(worker));
    this.#refuseCompleted(id, 'noteSkip()');
    const entry = this.#entries.get(id);
    let early: boolean;
    if (entry?.live) {
      if (entry.barrier === undefined || entry.participants !== participants) {
        throw new SbkitError(
          'conflicting-descriptions',
          `noteSkip(${id}, ${participants}) on a shared batch opened with ${entry.participants === undefined ? 'no barrier' : `${entry.participants} participants`}`,
        );
      }
      if (entry.barrier.arrive(null)) this.#completed.add(id);
      early = false;
    } else {
      const record = this.#earlySkips.get(id) ?? { count: 0, participants };
      if (record.participants !== participants) {
        throw new SbkitError('conflicting-descriptions', `noteSkip(${id}, ${participants}) after skips recorded for ${record.participants} participants`);
      }
      record.count += 1;
      if (record.count === participants) {
        // Every participant skipped: there will be no state; remove the record.
        this.#earlySkips.delete(id);
        this.#completed.add(id);
      } else this.#earlySkips.set(id, record);
      early = true;
    }
    this.ctx.trace.emit({ kind: 'skip', replica: this.ctx.replica, process: this.ctx.process, worker, sharedId: id, early });
  }

  #where(worker: number): Where {
    return { replica: this.ctx.replica, process: this.ctx.process, worker };
  }

  #refuseCompleted(id: SharedId, what: string): void {
    if (!this.#completed.has(id)) return;
    throw new SbkitError('barrier-over-report', `${what} for shared batch ${id}: all participants of its barrier already reported`);
  }

  #create(id: SharedId, range: BatchRange, participants: number | undefined): BuilderEntry {
    const { ctx } = this;
    let barrier: BarrierState | undefined;
    if (participants !== undefined) {
      const record = this.#earlySkips.get(id);
      if (record !== undefined && record.participants !== participants) {
        throw new SbkitError('conflicting-descriptions', `builder(${id}) with ${participants} participants after skips recorded for ${record.participants}`);
      }
      this.#earlySkips.delete(id);
      const skips = record?.count ?? 0;
      // BUG (barrier-skip-double-count): the recorded skips are applied twice.
      const applied = ctx.bugs.has('barrier-skip-double-count') ? 2 * skips : skips;
      barrier = new BarrierState(id, participants, participants - applied);
    }
    const instance = new BuilderInstance(SHARED_CHANNEL_CAPACITY, ctx.writer.metrics);
    const entry = new BuilderEntry(id, { lower: range.lower, upper: range.upper }, participants, instance, barrier);
    this.#entries.set(id, entry);
    const where: Where = { replica: ctx.replica, process: ctx.process };
    ctx.spawn(`builder r${ctx.replica}/p${ctx.process}/#${id}`, () =>
      runBuilderTask(instance, ctx.writer, entry.range, ctx.scheduler, where),
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

function requireSame(entry: BuilderEntry, range: BatchRange, participants: number | undefined): void {
  if (entry.range.lower === range.lower && entry.range.upper === range.upper && entry.participants === participants) return;
  const show = (r: BatchRange, p: number | undefined): string =>
    `[${r.lower}, ${r.upper})${p === undefined ? '' : ` with ${p} participants`}`;
  throw new SbkitError(
    'conflicting-descriptions',
    `conflicting descriptions for shared batch ${entry.id}: live builder has ${show(entry.range, entry.participants)}, builder() asked for ${show(range, participants)}`,
  );
}
