/**
 * THE table of what each event kind, actor and the property view read: the packed search memoizes
 * `predict(cfg, state, event)` by (event, the ids of exactly these components), `actorCandidates` by
 * (actor, its components) and the properties' verdicts by (final, the view's components).
 *
 * Verified, not trusted: on every cache miss the state is materialized with every other component
 * replaced by a guard that throws `ReadSetError` (layout.ts), so a read set that is too small fails
 * loudly instead of memoizing a wrong successor. A read set that is too large only costs cache hits.
 *
 * Adding an event kind to vocab's `TraceEvent` means one entry here (the mapped type makes a missing
 * entry a compile error; `eventReads` throws on an unknown kind at run time) and, if the event carries
 * a worker index or update ids, a rule in symmetry.ts's `EVENT_SHAPES`.
 */
import type { SweepBy, TraceEvent, TraceEventKind, WorkerRef } from '../../vocab/index.ts';
import { barrierTimesOut, type Actor } from '../system.ts';
import type { BuilderRead } from './focus.ts';
import type { Layout } from './layout.ts';

type EventOf<K extends TraceEventKind> = Extract<TraceEvent, { kind: K }>;

/** What every worker event reads: every replica's status, its replica's live description (mint) and
 * superseded one (which of the two the worker is on), its worker and its handle. */
const worker = (e: WorkerRef, L: Layout): number[] => [
  ...L.status,
  L.mint(e.replica),
  L.superseded(e.replica),
  L.worker(e.replica, e.worker),
  L.handle(e.replica, e.worker),
];
/** What every replica-level event reads at least: every replica's status. */
const replica = (L: Layout, ...slots: number[]): number[] => [...L.status, ...slots];
/** Everything a replica's sink holds (an abort judges what it leaves behind). */
const sinkOf = (r: number, L: Layout): number[] => [
  L.mint(r),
  L.append(r),
  L.superseded(r),
  ...L.workersOf(r).flatMap((w) => [w, w + 1]),
  ...Array.from({ length: L.cfg.processes }, (_, p) => [L.sweep(r, p), ...L.entriesOf(r, p)]).flat(),
];
const process = (e: WorkerRef, L: Layout): number => Math.floor(e.worker / L.cfg.workersPerProcess);
/** A sweep event's worker (the builder() call it belongs to) as worker events read it. */
const sweeper = (e: SweepBy, L: Layout): number[] =>
  e.worker === undefined ? [...L.status] : worker({ replica: e.replica, process: e.process, worker: e.worker }, L);
/** The header slot of the worker's builder entry, and all its slots (an entry is read whole, layout.ts). */
const current = (e: WorkerRef & { readonly sharedId: number }, L: Layout): number => L.builder(e.replica, process(e, L), e.sharedId);
const entryOf = (e: WorkerRef & { readonly sharedId: number }, L: Layout): number[] => L.entry(e.replica, process(e, L), e.sharedId);
/** The worker's builder entry, read as `builder` says (focus.ts). */
const focus = (e: WorkerRef & { readonly sharedId: number }, L: Layout, read: Omit<BuilderRead, 'slot'>): BuilderRead => ({ slot: current(e, L), ...read });
/** The other entries of the worker's registry (their state paths: which are entries, which are live). */
const otherEntries = (e: WorkerRef & { readonly sharedId: number }, L: Layout): number[] => L.buildersOf(e.replica, process(e, L)).filter((slot) => slot !== current(e, L));

/**
 * `reads`: the components predict may read for the event. `adds`: history counters it only adds to
 * (`counter + k`, with k a function of the read components): they stay out of the memo key, the outcome
 * stores k, and every miss re-predicts with the counters shifted to check that nothing else depends on
 * them (engine.ts). Counters added to by several events commute.
 */
export interface EventRule<E extends TraceEvent> {
  readonly reads: (e: E, L: Layout) => readonly number[];
  readonly adds?: (e: E, L: Layout) => readonly number[];
  /**
   * Partial-order reduction (search.ts): the event commutes with every other actor's event and none can
   * disable it, so while it is enabled the search may take it alone. Checked where it is used: the
   * search takes it alone only where it commutes with every other enabled event (a diamond), so a
   * declaration can only be wrong about events that become enabled *while* it waits; the argument for
   * each is written beside it, and tests compare the reduced search with the full one.
   */
  readonly confluent?: true | ((L: Layout) => boolean);
  /**
   * The event reads its builder entry (a slot of `reads`) only in part: its header, `refs` below
   * `refsUpTo`, one instance without its handle count and (unless it is the receiver's) its update ids.
   * The memo keys that projection and keeps the entry's change as a patch (focus.ts, checked on every miss).
   */
  readonly builder?: (e: E, L: Layout) => BuilderRead;
  /** Builder slots of `reads` of which the event reads only the state path (and may change only it). */
  readonly paths?: (e: E, L: Layout) => readonly number[];
  /**
   * `false`: the event's outcome is predicted every time and its key not kept — for an event that reads
   * nearly a whole state (its key would be each state's own: memoizing it only costs memory).
   */
  readonly memo?: false;
}

export const EVENT_RULES: { readonly [K in TraceEventKind]: EventRule<EventOf<K>> } = {
  frontier: { reads: (e, L) => replica(L, L.mint(e.replica)) },
  // a mint while a description is live supersedes it: the shard's upper and the live append decide
  mint: { reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), L.superseded(e.replica), L.shard) },
  // a poll reads what a supersede would (without the shard: it changes nothing, it only may happen)
  poll: { reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), L.superseded(e.replica)) },
  // confluent with one replica: writes only its own worker; reads the live description, which nothing
  // changes before every worker handed (append/delete) — frontier changes only `desired`. With two, a
  // supersede (enabled once another replica appended) would turn an unstaged worker's stage into a skip.
  stage: { reads: (e, L) => worker(e, L), confluent: (L) => L.cfg.replicas < 2 },
  // a worker that had not staged its description when a newer one was minted
  superseded: { reads: (e, L) => worker(e, L) },
  // the lookup of a builder() call: the registry's lock and sweep trigger count every entry
  // (it joins a live entry, adding to refs and to the current instance's handles, or starts an instance
  // with refs 1: it tells them apart by refs ≥ 1; the registry's other entries by their paths. A barrier
  // with a deadline that completed at it takes a late worker's open while finishers still hold refs, and
  // sets refs to 1: there it reads refs whole)
  open: {
    reads: (e, L) => [...worker(e, L), L.sweep(e.replica, process(e, L)), ...L.entriesOf(e.replica, process(e, L))],
    builder: (e, L) => focus(e, L, { instance: 'current', refsUpTo: barrierTimesOut(L.cfg) ? Number.POSITIVE_INFINITY : 1, cut: 'none', fate: false }),
    paths: (e, L) => otherEntries(e, L),
  },
  // (cuts the current instance's parts where the bytes buffered reach the target: it adds its ids)
  push: { reads: (e, L) => [...worker(e, L), ...entryOf(e, L)], builder: (e, L) => focus(e, L, { instance: 'current', refsUpTo: 0, cut: 'shape', fate: false }) },
  // (the last reference, refs = 1, binds the current instance's receiver: it sets it without reading it)
  'finish-begin': {
    reads: (e, L) => [...worker(e, L), ...entryOf(e, L)],
    adds: (_e, L) => [L.finishesBegun],
    builder: (e, L) => focus(e, L, { instance: 'current', refsUpTo: 2, cut: 'none', fate: false }),
  },
  // confluent: writes its own worker and handle, a counter, and its builder only as its own receipt
  // (no guard reads receipts) or, with the barrier, its reference (the last one kills a finalized
  // entry, which no one may join any more; a builder() call's sweep that runs before or after it removes
  // that entry now or at the next sweep — which leaves the view alike, builders keep their instances).
  // (reads its handle's instance, whose batch it receives if it is the receiver; a barrier's last finish
  // drops the last reference)
  'finish-end': {
    reads: (e, L) => [...worker(e, L), ...entryOf(e, L)],
    adds: (_e, L) => [L.finishesEnded],
    confluent: true,
    builder: (e, L) => focus(e, L, { instance: 'handle', refsUpTo: 2, cut: 'receiver', fate: true }),
  },
  // (a barrier skip counts an arrival; the last binds the deliverer as receiver, without reading it)
  // (note_skip takes the registry's lock)
  skip: { reads: (e, L) => [...worker(e, L), L.sweep(e.replica, process(e, L)), ...entryOf(e, L)], builder: (e, L) => focus(e, L, { instance: 'current', refsUpTo: 0, cut: 'none', fate: false }) },
  // a barrier's timer (proposed by its process's first worker): its builder entry, read whole (header and
  // every instance: it may finalize the barrier and bind its deliverer)
  timeout: { reads: (e, L) => replica(L, ...L.entry(e.replica, e.process, e.sharedId)) },
  // confluent: writes only its own worker and a counter.
  'own-batch': { reads: (e, L) => worker(e, L), adds: (_e, L) => [L.ownBatches], confluent: true },
  // confluent: records its own slot of the append's hands (the live or the superseded description's);
  // the append and the stale delete need every hand first, and a supersede leaves it enabled.
  hand: { reads: (e, L) => [...worker(e, L), L.append(e.replica)], confluent: true },
  // the history record lists every worker's route
  append: {
    reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), ...L.workersOf(e.replica), L.shard, L.appends, L.shardUppers),
  },
  // inline backpressure refuses the append and flushes its inline parts: the shard's inline bytes decide
  backpressure: { reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), L.shard) },
  // the as-of is ahead of the shard: an empty compare-and-append moves the shard's upper to the lower
  bump: { reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), L.shard, L.shardUppers) },
  // a delete of batches the shard took (an indeterminate commit misread) counts in the fault history
  delete: { reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), L.superseded(e.replica), L.appends, L.faults), adds: (_e, L) => [L.deleted] },
  // a sweep is its worker's builder() call's (exploration always names the worker): the trigger counts
  // every entry, the removal and the visits read every entry's liveness (removes dead entries: it reads
  // and changes paths only)
  sweep: {
    reads: (e, L) => [...sweeper(e, L), L.sweep(e.replica, e.process), ...L.entriesOf(e.replica, e.process)],
    paths: (e, L) => L.buildersOf(e.replica, e.process),
  },
  // (the review bug: holds a reference of the next live entry above the last visited — which one the
  // state decides, not the event, so every entry is read whole)
  'sweep-hold': { reads: (e, L) => [...sweeper(e, L), L.sweep(e.replica, e.process), ...L.entriesOf(e.replica, e.process)] },
  // (drops the reference the sweep holds: the last one closes the current instance, for nobody if it has
  // no receiver; the entry is the sweep's, so every entry is read whole)
  'sweep-release': { reads: (e, L) => [...sweeper(e, L), L.sweep(e.replica, e.process), ...L.entriesOf(e.replica, e.process)] },
  // never enabled in the model: predict refuses it from the config alone
  drop: { reads: () => [] },
  // the fault world: an indeterminate compare-and-set commits the append (its history record lists
  // every worker's route)
  fault: {
    reads: (e, L) => replica(L, L.mint(e.replica), L.append(e.replica), ...L.workersOf(e.replica), L.shard, L.appends, L.shardUppers, L.faults),
  },
  // an abort counts what the incarnation leaves behind: its whole sink (so nearly every state has its
  // own key: not memoized)
  abort: { reads: (e, L) => replica(L, ...sinkOf(e.replica, L), L.faults), memo: false },
  // a restart starts a fresh incarnation at the shard's upper
  restart: { reads: (_e, L) => replica(L, L.shard, L.faults) },
  // the final cleanup waits for every replica to seal
  // (SUBTLE: `superseded === null` is a comparison a guard cannot catch, so it must be declared)
  cleanup: { reads: (_e, L) => replica(L, L.faults, ...Array.from({ length: L.cfg.replicas }, (_, r) => [L.mint(r), L.superseded(r)]).flat()) },
};

export type EventRules = { readonly [K in TraceEventKind]: EventRule<EventOf<K>> };

export interface ResolvedRule {
  readonly reads: readonly number[];
  readonly adds: readonly number[];
  readonly confluent: boolean;
  readonly builder: BuilderRead | null;
  readonly paths: readonly number[];
  readonly memo: boolean;
}

export function eventRule(event: TraceEvent, L: Layout, rules: EventRules = EVENT_RULES): ResolvedRule {
  const rule = (rules as Record<string, EventRule<TraceEvent> | undefined>)[event.kind];
  if (rule === undefined) throw new Error(`model/packed/read-sets.ts has no rule for event kind ${JSON.stringify(event.kind)}`);
  const adds = rule.adds?.(event, L) ?? [];
  for (const slot of adds) {
    if (!L.isCounter(slot)) throw new Error(`model/packed/read-sets.ts: ${event.kind} adds to ${L.labels[slot]}, which is not a counter`);
  }
  const confluent = typeof rule.confluent === 'function' ? rule.confluent(L) : rule.confluent === true;
  const reads = rule.reads(event, L);
  const builder = rule.builder?.(event, L) ?? null;
  const paths = rule.paths?.(event, L) ?? [];
  for (const slot of [...(builder === null ? [] : [builder.slot]), ...paths]) {
    const { r, p, id } = L.kinds[slot] === 'builder' ? L.builderAt(slot) : { r: -1, p: -1, id: -1 };
    if (r < 0 || !L.entry(r, p, id).every((s) => reads.includes(s))) {
      throw new Error(`model/packed/read-sets.ts: ${event.kind} reads ${L.labels[slot]} in part, but it is not a builder entry of its reads`);
    }
  }
  if (builder !== null && paths.includes(builder.slot)) throw new Error(`model/packed/read-sets.ts: ${event.kind} reads ${L.labels[builder.slot]} both by path and focused`);
  return { reads, adds, confluent, builder, paths, memo: rule.memo !== false };
}

export const ACTOR_READS: { readonly [K in Actor['kind']]: (a: Extract<Actor, { kind: K }>, L: Layout) => readonly number[] } = {
  faults: (a, L) => replica(L, L.append(a.replica)),
  cleanup: (_a, L) => replica(L),
  mint: (a, L) => replica(L, L.mint(a.replica), L.superseded(a.replica)),
  worker: (a, L) => replica(L, L.mint(a.replica), L.superseded(a.replica), L.worker(a.replica, a.worker), L.handle(a.replica, a.worker)),
  append: (a, L) => replica(L, L.mint(a.replica), L.append(a.replica), L.superseded(a.replica)),
};

export type ActorRules = typeof ACTOR_READS;

export function actorReads(actor: Actor, L: Layout, rules: ActorRules = ACTOR_READS): readonly number[] {
  const rule = (rules as Record<string, ((a: Actor, L: Layout) => readonly number[]) | undefined>)[actor.kind];
  if (rule === undefined) throw new Error(`model/packed/read-sets.ts has no read set for actor kind ${JSON.stringify(actor.kind)}`);
  return rule(actor, L);
}

/** viewOf (model/view.ts) reads every replica's status, every builder (its instances) and the whole history. */
export const viewReads = (L: Layout): readonly number[] => [...L.status, ...L.allEntries, ...L.historySlots];
