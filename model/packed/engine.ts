/**
 * Successors of packed states, computed by system.ts and memoized by read set.
 *
 * For a packed vector `cur`: each actor's candidate events are memoized by (actor, ids of the
 * components the actor reads); each candidate's outcome by (candidate, ids of the components the event
 * reads), read-sets.ts. An outcome is "not enabled" or (the model's expected event, the slots it
 * writes). On a miss the engine materializes `cur` with guards for everything undeclared and calls
 * system.ts's `actorCandidates` or `predict`, so the model is the only source of behaviour.
 * Property verdicts are memoized the same way, by the components `viewOf` reads. In the fault world
 * every state's fault history is kept as its summary (history-summary.ts: what the properties read of it).
 *
 * An engine may be reused for several searches of the same configuration (the bench measures a warm
 * engine too); its tables only grow.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import { barrierOneSharedBatchPerGroup, type Property } from '../../spec/properties.ts';
import { processOf, type ModelConfig } from '../config.ts';
import { actorCandidates, actorsOf, initialState, predict, type Actor } from '../system.ts';
import type { SystemState } from '../state.ts';
import { viewOf } from '../view.ts';
import { applyOps, applySlotPatch, focusOps, sightOf, pathOps, perturb, perturbForView, perturbPath, projectForView, projectHeader, projectInstance, projectPath, type Entry, type EntryOp, type Focus, type SlotPatch } from './focus.ts';
import type { InstanceRecord } from '../builder.ts';
import { Codec, Interner, Layout, ReadSetError, sameValue, type SlotKind } from './layout.ts';
import { ACTOR_READS, EVENT_RULES, actorReads, eventRule, viewReads, type ActorRules, type EventRules } from './read-sets.ts';
import { GrowInts, TupleMap } from './tuple-set.ts';
import { PackedHistorySummary } from './history-summary.ts';

/** For tests: other read-set tables, or another predict, actorCandidates or viewOf (to show the checks
 * catch a wrong one). */
export interface EngineOptions {
  readonly eventRules?: EventRules;
  readonly actorRules?: ActorRules;
  readonly predict?: typeof predict;
  readonly actorCandidates?: typeof actorCandidates;
  readonly viewOf?: typeof viewOf;
  /** The fault history in its summary (history-summary.ts; default on in the fault world). `false`:
   * the model's history as it is, so the search visits exactly the plain search's states. */
  readonly historySummary?: boolean;
}

export interface MissCounts {
  actors: number;
  outcomes: number;
  views: number;
  /** Entries made by applying a patch to an entry for the first time (the transition table's fills). */
  patched: number;
  /** Outcome misses by event kind. */
  readonly byKind: Record<string, number>;
}

/** A write of an outcome: `[op, slot, arg]` in the write pool. */
const SET = 0;
/** A counter it only adds to: arg is what it adds. */
const ADD = 1;
/** A builder entry changed by a patch (focus.ts): arg is the patch's id. */
const PATCH = 2;

/** How a key position is read: the component id itself, a focused projection (three ints: header,
 * instance count, instance), the entry's path, or not at all (an instance slot of an entry read focused
 * or by path). */
const PLAIN = 0;
const FOCUSED = 1;
const PATH = 2;
const SKIP = 3;
/** View key modes (`verdicts`): whether an entry exists; what the view sees of an instance. */
const PRESENT = 4;
const VIEWED = 5;

/** A candidate's focused read: the builder slot, the focus, its id, and (for `handle`) its handle's slot. */
interface FocusSpec {
  readonly slot: number;
  readonly focus: Focus;
  /** Which of `headerMemo`'s tables (one per `refsUpTo`). */
  readonly header: number;
  readonly handleSlot: number;
}

/** The key of a focused read that finds no instance (no projection has this id). */
const NO_INSTANCE = -1;

export class Engine {
  readonly layout: Layout;
  readonly codec: Codec;
  readonly actors: readonly Actor[];
  private readonly actorSlots: readonly Int32Array[];
  /** Per actor: per key position, its key mode (PLAIN: no actor reads a builder entry in part). */
  private readonly actorModes: readonly Uint8Array[];
  private readonly viewSlots: Int32Array;
  /** Per view slot: PLAIN, PRESENT (an entry's header: only whether there is one) or VIEWED (an
   * instance, by what the view sees of it). */
  private readonly viewModes: Uint8Array;
  private readonly viewInstanceMemo = new GrowInts();

  private readonly candidates: TraceEvent[] = [];
  /** Per candidate: the slots of its memo key (its reads), and those it may also touch (reads + adds). */
  private readonly candSlots: Int32Array[] = [];
  private readonly candModes: Uint8Array[] = [];
  private readonly candTouch: Int32Array[] = [];
  private readonly candAdds: Int32Array[] = [];
  private readonly candFocus: (FocusSpec | null)[] = [];
  private readonly candPaths: Int32Array[] = [];
  /** Per candidate: its focused and path slots flagged (for `extract`'s raw values). */
  private readonly candRaw: Uint8Array[] = [];
  private readonly candIds = new Interner();
  private readonly candLists: Int32Array[] = [];
  private readonly actorMemo = new TupleMap(12);
  private readonly outcomeMemo = new TupleMap(14);
  /** Per candidate: whether its kind is declared confluent (read-sets.ts), for the partial-order reduction. */
  private readonly candConfluent: boolean[] = [];
  /** Per candidate: the actor that proposes it, and whether its outcomes are memoized (read-sets.ts `memo`). */
  private readonly candActor: number[] = [];
  private readonly candMemo: boolean[] = [];
  /** Per actor: its group for the partial-order reduction (the workers of one process, whose builder()
   * calls sweep its registry, form one; the mint and the append operator each their own). */
  readonly actorGroup: readonly number[];
  /** Per outcome: the expected event's id (-1 when the candidate is not enabled), its candidate, and its
   * writes as a range of `writePool` (triples: op, slot, arg). */
  private readonly outcomeEvent = new GrowInts();
  private readonly outcomeCand = new GrowInts();
  private readonly writeStart = new GrowInts();
  private readonly writePool = new GrowInts();
  /** Per outcome: 1 when a patch of it lowers a ref count (`crossesCap`). */
  private readonly outcomeDown = new GrowInts();
  private readonly viewMemo = new TupleMap(12);
  private readonly viewBits: number[] = [];
  private readonly scratch: Int32Array;
  private readonly key: Int32Array;
  /** The model's expected events (interned: far fewer than outcomes); `outcomeEvent` indexes them. */
  private readonly expected = new Interner();
  /** Focused and path projections of builder entries (focus.ts), and the focuses and patches. */
  private readonly projections = new Interner();
  private readonly patches = new Interner();
  /** Per `refsUpTo` in use (`headerCaps`): entry id → its header's projection id (-1: not yet). */
  private readonly headerCaps: number[] = [];
  private readonly headerMemo: GrowInts[] = [];
  /** Per sight (focus.ts `sightOf`): instance id → its projection id (-1: not yet). */
  private readonly instanceMemo = Array.from({ length: 6 }, () => new GrowInts());
  /** Entry id → its path's projection id (-1: not yet). */
  private readonly pathMemo = new GrowInts();
  /** (entry id, patch id) → entry id: the transition table, filled as states need it. */
  private readonly transitions = new TupleMap(14);
  private readonly pair = new Int32Array(2);
  private readonly rawOut: unknown[];
  readonly misses: MissCounts = { actors: 0, outcomes: 0, views: 0, patched: 0, byKind: {} };
  /** The fault history's summary, null without faults or when turned off. */
  readonly summary: PackedHistorySummary | null;

  private readonly eventRules: EventRules;
  private readonly predict: typeof predict;
  private readonly candidatesOf: typeof actorCandidates;
  private readonly viewOf: typeof viewOf;

  constructor(
    readonly cfg: ModelConfig,
    readonly properties: readonly Property[] = [],
    opts: EngineOptions = {},
  ) {
    if (properties.length > 30) throw new RangeError('the packed search judges at most 30 properties');
    this.eventRules = opts.eventRules ?? EVENT_RULES;
    this.predict = opts.predict ?? predict;
    this.candidatesOf = opts.actorCandidates ?? actorCandidates;
    this.viewOf = opts.viewOf ?? viewOf;
    this.layout = new Layout(cfg);
    this.codec = new Codec(this.layout);
    this.actors = actorsOf(cfg);
    this.actorSlots = this.actors.map((a) => Int32Array.from(actorReads(a, this.layout, opts.actorRules ?? ACTOR_READS)));
    // (no actor reads a builder entry in part: every slot of its reads is keyed whole)
    this.actorModes = this.actorSlots.map((slots) => this.modesOf(slots, null, []));
    this.viewSlots = Int32Array.from(viewReads(this.layout));
    this.viewModes = Uint8Array.from(this.viewSlots, (slot) => (this.layout.kinds[slot] === 'builder' ? PRESENT : this.layout.kinds[slot] === 'instance' ? VIEWED : PLAIN));
    const groups = new Map<string, number>();
    this.actorGroup = this.actors.map((a, i) => {
      const name =
        a.kind === 'worker' ? `r${a.replica}p${processOf(cfg, a.worker)}` : `actor${i}`;
      if (!groups.has(name)) groups.set(name, groups.size);
      return groups.get(name) as number;
    });
    this.scratch = new Int32Array(this.layout.slots);
    this.key = new Int32Array(8 + this.layout.slots);
    this.rawOut = new Array<unknown>(this.layout.slots).fill(undefined);
    this.summary =
      cfg.faults === undefined || opts.historySummary === false
        ? null
        : new PackedHistorySummary(cfg, properties.some((p) => p.name === barrierOneSharedBatchPerGroup.name), this.codec);
  }

  get slots(): number {
    return this.layout.slots;
  }

  /** Per read slot its key mode: the focused entry's header FOCUSED, path entries' headers PATH, their
   * instance slots SKIP (the focus key and the path stand for them), the rest PLAIN. */
  private modesOf(reads: ArrayLike<number>, focused: number | null, paths: readonly number[]): Uint8Array {
    const L = this.layout;
    const within = (slot: number, h: number) => slot > h && slot <= h + L.instances;
    return Uint8Array.from(reads, (slot) => {
      if (slot === focused) return FOCUSED;
      if (paths.includes(slot)) return PATH;
      if ((focused !== null && within(slot, focused)) || paths.some((h) => within(slot, h))) return SKIP;
      return PLAIN;
    });
  }

  /** The initial state, packed. */
  initial(out: Int32Array): void {
    this.codec.pack(initialState(this.cfg), out);
    this.summary?.apply(out);
  }

  /** The projection id of the entry whose header slot `slot` holds `id`, read by path. */
  private pathProjection(slot: number, id: number): number {
    const memo = this.pathMemo;
    while (memo.length <= id) memo.push(-1);
    let p = memo.data[id] as number;
    if (p < 0) {
      p = this.projections.intern(projectPath(this.codec.value(slot, id)));
      memo.data[id] = p;
    }
    return p;
  }

  /** How many instances the entry with header slot `h` has in `cur` (they fill its slots from the first). */
  private instancesAt(h: number, cur: Int32Array): number {
    const M = this.layout.instances;
    let n = 0;
    while (n < M && (cur[h + 1 + n] as number) !== 0) n += 1;
    return n;
  }

  /** The instance a focus reads in the entry at `spec.slot` of `cur`, given its `n` instances (-1: none). */
  private focusAt(spec: FocusSpec, cur: Int32Array, n: number): number {
    if (spec.focus.instance === 'current') return n - 1;
    const h = this.codec.value(spec.handleSlot, cur[spec.handleSlot] as number) as { context: { instance: number } } | null;
    const i = h === null ? -1 : h.context.instance;
    return i >= 0 && i < n ? i : -1;
  }

  /**
   * The key of the entry at `spec.slot` of `cur` as `spec` reads it, written to `key[at …at + 2]`: its
   * header's projection (by `refsUpTo`), its instance count, and the projection of the instance it reads
   * (by whether it sees its update ids; NO_INSTANCE when there is none). Memoized by slot value ids.
   */
  private focusKey(spec: FocusSpec, cur: Int32Array, key: Int32Array, at: number): void {
    const id = cur[spec.slot] as number;
    const hdr = this.headerMemo[spec.header] as GrowInts;
    while (hdr.length <= id) hdr.push(-1);
    let h = hdr.data[id] as number;
    if (h < 0) {
      h = this.projections.intern(projectHeader(this.codec.value(spec.slot, id), spec.focus.refsUpTo));
      hdr.data[id] = h;
    }
    key[at] = h;
    const n = this.instancesAt(spec.slot, cur);
    key[at + 1] = n;
    const i = this.focusAt(spec, cur, n);
    if (i < 0) {
      key[at + 2] = NO_INSTANCE;
      return;
    }
    const slot = spec.slot + 1 + i;
    const rid = cur[slot] as number;
    const rec = this.codec.value(slot, rid) as InstanceRecord;
    const sight = sightOf(rec, spec.focus);
    const memo = this.instanceMemo[sight] as GrowInts;
    while (memo.length <= rid) memo.push(-1);
    let r = memo.data[rid] as number;
    if (r < 0) {
      r = this.projections.intern(projectInstance(rec, sight));
      memo.data[rid] = r;
    }
    key[at + 2] = r;
  }

  /** Fills `key[1 …]` from `cur` for the slots (and modes) given; returns the key's length. */
  private fillKey(first: number, slots: Int32Array, modes: Uint8Array, cur: Int32Array, spec: FocusSpec | null): number {
    const key = this.key;
    key[0] = first;
    let at = 1;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as number;
      const mode = modes[i] as number;
      if (mode === PLAIN) key[at++] = cur[slot] as number;
      else if (mode === PATH) key[at++] = this.pathProjection(slot, cur[slot] as number);
      else if (mode === FOCUSED) {
        this.focusKey(spec as FocusSpec, cur, key, at);
        at += 3;
      }
    }
    return at;
  }

  private actorCandidates(a: number, cur: Int32Array): Int32Array {
    const slots = this.actorSlots[a] as Int32Array;
    const modes = this.actorModes[a] as Uint8Array;
    const len = this.fillKey(a, slots, modes, cur, null);
    const hit = this.actorMemo.get(this.key, len);
    if (hit >= 0) return this.candLists[hit] as Int32Array;
    this.misses.actors += 1;
    const actor = this.actors[a] as Actor;
    this.codec.reader = { call: 'actorCandidates', of: actor };
    const state = this.codec.materialize(cur, slots);
    const proposed = this.candidatesOf(this.cfg, state, actor);
    const list = Int32Array.from(proposed, (e) => {
      const before = this.candIds.size;
      const id = this.candIds.intern(e);
      if (id === before) this.addCandidate(e, a);
      return id;
    });
    this.actorMemo.set(this.key, len, this.candLists.length);
    this.candLists.push(list);
    return list;
  }

  private addCandidate(e: TraceEvent, a: number): void {
    const rule = eventRule(e, this.layout, this.eventRules);
    const b = rule.builder;
    let spec: FocusSpec | null = null;
    if (b !== null) {
      const worker = 'worker' in e ? (e.worker ?? -1) : -1;
      const focus: Focus = { instance: b.instance, refsUpTo: b.refsUpTo, cut: b.cut, fate: b.fate, worker };
      const handleSlot = b.instance === 'handle' && 'worker' in e && e.worker !== undefined ? this.layout.handle(e.replica, e.worker) : -1;
      if (b.instance === 'handle' && (handleSlot < 0 || !rule.reads.includes(handleSlot))) {
        throw new Error(`model/packed/read-sets.ts: ${e.kind} reads its handle's instance but not its handle`);
      }
      let header = this.headerCaps.indexOf(b.refsUpTo);
      if (header < 0) {
        header = this.headerCaps.length;
        this.headerCaps.push(b.refsUpTo);
        this.headerMemo.push(new GrowInts());
      }
      spec = { slot: b.slot, focus, header, handleSlot };
    }
    const raw = new Uint8Array(this.layout.slots);
    if (spec !== null) raw[spec.slot] = 1;
    // (an entry is extracted by its header slot: raw there, the engine cuts it into slot changes)
    for (const slot of rule.paths) raw[slot] = 1;
    this.candidates.push(e);
    this.candSlots.push(Int32Array.from(rule.reads));
    this.candModes.push(this.modesOf(rule.reads, spec?.slot ?? null, rule.paths));
    this.candAdds.push(Int32Array.from(rule.adds));
    this.candTouch.push(Int32Array.from([...rule.reads, ...rule.adds]));
    this.candFocus.push(spec);
    this.candPaths.push(Int32Array.from(rule.paths));
    this.candRaw.push(raw);
    this.candConfluent.push(rule.confluent);
    this.candMemo.push(rule.memo);
    this.candActor.push(a);
  }

  private outcome(c: number, cur: Int32Array): number {
    const spec = this.candFocus[c] as FocusSpec | null;
    // (a candidate whose key is nearly every state's own is predicted each time and its key not kept)
    const memo = this.candMemo[c] === true;
    const len = memo ? this.fillKey(c, this.candSlots[c] as Int32Array, this.candModes[c] as Uint8Array, cur, spec) : 0;
    const hit = memo ? this.outcomeMemo.get(this.key, len) : -1;
    if (hit >= 0) return hit;
    const key = Int32Array.from(this.key.subarray(0, len));
    const event = this.candidates[c] as TraceEvent;
    this.misses.outcomes += 1;
    this.misses.byKind[event.kind] = (this.misses.byKind[event.kind] ?? 0) + 1;
    const adds = this.candAdds[c] as Int32Array;
    const paths = this.candPaths[c] as Int32Array;
    this.codec.reader = { call: 'predict', of: event };
    const state = this.codec.materialize(cur, this.candTouch[c] as Int32Array);
    const i = spec === null ? -1 : this.focusAt(spec, cur, this.instancesAt(spec.slot, cur));
    const first = this.predictWrites(c, event, state, cur, i);
    if (adds.length > 0 || spec !== null || paths.length > 0) {
      // SUBTLE: what the key leaves out — counters only added to, the parts of builder entries a focused
      // or path read does not see (focus.ts) — must not change the outcome: predict again with all of it
      // moved and require the same event, the same writes, the same additions and the same patches.
      const shifted = Int32Array.from(cur);
      for (const a of adds) shifted[a] = (shifted[a] as number) + 1000;
      let moved = adds.length > 0 ? this.codec.shiftCounters(state, adds, 1000) : state;
      const entries: (readonly [number, unknown])[] = Array.from(paths, (slot) => [slot, perturbPath(this.codec.entryAt(slot) as Entry)] as const);
      if (spec !== null) entries.push([spec.slot, perturb(this.codec.entryAt(spec.slot) as Entry, spec.focus, i)]);
      if (entries.length > 0) moved = this.codec.withEntries(moved, entries);
      const again = this.predictWrites(c, event, moved, shifted, i);
      if ((again === null) !== (first === null) || (first !== null && again !== null && (!sameValue(again.event, first.event) || !sameValue(again.writes, first.writes)))) {
        const left = [
          ...Array.from(adds, (a) => `${this.layout.labels[a]} beyond adding to it`),
          ...(spec === null ? [] : [`more of ${this.layout.labels[spec.slot]} than its focus (model/packed/focus.ts)`]),
          ...Array.from(paths, (s) => `more of ${this.layout.labels[s]} than its state path`),
        ];
        throw new ReadSetError(`predict(${JSON.stringify(event)}) depends on ${left.join(', or ')}: declare it in reads (model/packed/read-sets.ts)`);
      }
    }
    const o = this.outcomeEvent.length;
    this.outcomeEvent.push(first === null ? -1 : this.expected.intern(first.event));
    this.outcomeCand.push(c);
    this.writeStart.push(this.writePool.length);
    for (const x of first?.writes ?? []) this.writePool.push(x);
    let down = 0;
    for (let k = 0; first !== null && k < first.writes.length; k += 3) {
      const patch = first.writes[k] === PATCH ? (this.patches.at(first.writes[k + 2] as number) as SlotPatch) : null;
      if (patch?.t === 'header' && patch.refs < 0) down = 1;
    }
    this.outcomeDown.push(down);
    if (memo) this.outcomeMemo.set(key, len, o);
    return o;
  }

  /**
   * predict on `state` (`vec` materialized with guards outside the candidate's reads and adds, last):
   * null when not enabled, else the expected event and the writes as triples [op, slot, arg]: a set
   * component id, an added-to counter's addition, or a builder entry's patch (focus.ts; `i` is the
   * focused instance). A patch must reproduce the model's entry.
   */
  private predictWrites(c: number, event: TraceEvent, state: SystemState, vec: Int32Array, i: number): { event: TraceEvent; writes: number[] } | null {
    const p = this.predict(this.cfg, state, event);
    if (!p.ok) return null;
    this.scratch.set(vec);
    const raw = this.candRaw[c] as Uint8Array;
    const spec = this.candFocus[c] as FocusSpec | null;
    const paths = this.candPaths[c] as Int32Array;
    const adds = this.candAdds[c] as Int32Array;
    const writes = this.codec.extract(p.next, this.scratch, raw, this.rawOut);
    const out: number[] = [];
    for (let k = 0; k < writes.length; k += 2) {
      const slot = writes[k] as number;
      if (adds.includes(slot)) out.push(ADD, slot, (writes[k + 1] as number) - (vec[slot] as number));
      else out.push(SET, slot, writes[k + 1] as number);
    }
    const M = this.layout.instances;
    const patchOf = (h: number, focused: boolean): void => {
      const before = this.codec.entryAt(h) as Entry;
      const after = this.rawOut[h] as Entry;
      this.rawOut[h] = undefined;
      if (after === before || (before !== undefined && sameValue(after, before))) return;
      const ops = focused ? focusOps(before, after, (spec as FocusSpec).focus, i, M) : pathOps(before, after, M);
      const where = `predict(${JSON.stringify(event)}) on ${this.layout.labels[h]}`;
      if (typeof ops === 'string') throw new ReadSetError(`${where} ${ops}: declare what it reads (model/packed/read-sets.ts)`);
      if (!sameValue(applyOps(before, ops, M), after)) throw new ReadSetError(`${where}: its patches do not reproduce the model's entry (model/packed/focus.ts)`);
      for (const op of ops as EntryOp[]) {
        const slot = h + op.at;
        if ('set' in op) out.push(SET, slot, this.codec.tables[this.layout.kinds[slot] as SlotKind].intern(op.set));
        else out.push(PATCH, slot, this.patches.intern(op.patch));
      }
    };
    if (spec !== null) patchOf(spec.slot, true);
    for (const slot of paths) patchOf(slot, false);
    return { event: p.expected, writes: out };
  }

  /** The entry `id` of builder slot `slot` changed by patch `patch` (the transition table, filled lazily). */
  private patched(slot: number, id: number, patch: number): number {
    const pair = this.pair;
    pair[0] = id;
    pair[1] = patch;
    const hit = this.transitions.get(pair, 2);
    if (hit >= 0) return hit;
    this.misses.patched += 1;
    const next = applySlotPatch(this.codec.value(slot, id), this.patches.at(patch) as SlotPatch);
    if (next === undefined) throw new Error(`the packed engine applied a patch to ${this.layout.labels[slot]} it does not apply to (model/packed/focus.ts)`);
    const to = this.codec.tables[this.layout.kinds[slot] as SlotKind].intern(next);
    pair[0] = id;
    pair[1] = patch;
    this.transitions.set(pair, 2, to);
    return to;
  }

  /**
   * The enabled outcomes of `cur`, in `candidates`' order, appended to `out` (cleared first); returns
   * how many.
   */
  expand(cur: Int32Array, out: number[]): number {
    out.length = 0;
    for (let a = 0; a < this.actors.length; a++) {
      const list = this.actorCandidates(a, cur);
      for (let k = 0; k < list.length; k++) {
        const o = this.outcome(list[k] as number, cur);
        if ((this.outcomeEvent.data[o] as number) >= 0) out.push(o);
      }
    }
    return out.length;
  }

  /** The model's version of an enabled outcome's event. */
  expectedOf(o: number): TraceEvent {
    return this.expected.at(this.outcomeEvent.data[o] as number) as TraceEvent;
  }

  /** Whether group `g` is a process (its workers, whose builder() calls sweep its registry), not a replica-level actor. */
  isProcessGroup(g: number): boolean {
    return this.actors.some((a, i) => this.actorGroup[i] === g && a.kind === 'worker');
  }

  /** The partial-order group of outcome `o`'s actor. */
  groupOf(o: number): number {
    return this.actorGroup[this.candActor[(this.outcomeCand.data[o] as number)] as number] as number;
  }

  /** Whether outcome `o` is memoized (so its id stands for its key: read-sets.ts `memo`). */
  memoized(o: number): boolean {
    return this.candMemo[this.outcomeCand.data[o] as number] === true;
  }

  /** Whether outcome `o`'s event kind is declared confluent. */
  confluent(o: number): boolean {
    return this.candConfluent[(this.outcomeCand.data[o] as number)] === true;
  }

  /** The outcome of `o`'s candidate (the same actor's same event) at another state, or -1 if not enabled there. */
  again(o: number, vec: Int32Array): number {
    const o2 = this.outcome((this.outcomeCand.data[o] as number), vec);
    return (this.outcomeEvent.data[o2] as number) >= 0 ? o2 : -1;
  }

  /**
   * Outcome `o` writes nothing `u` reads or writes, and the other way round (counters both only add to
   * count as untouched): then they commute from any state where both are enabled, with these outcomes.
   */
  disjoint(o: number, u: number): boolean {
    return !this.writesInto(o, u) && !this.writesInto(u, o);
  }

  private writesInto(o: number, u: number): boolean {
    const cu = this.outcomeCand.data[u] as number;
    const touch = this.candTouch[cu] as Int32Array;
    const adds = this.candAdds[cu] as Int32Array;
    const pool = this.writePool.data;
    const end = this.writesEnd(o);
    for (let i = this.writeStart.data[o] as number; i < end; i += 3) {
      const op = pool[i] as number;
      const slot = pool[i + 1] as number;
      for (let k = 0; k < touch.length; k++) {
        if (touch[k] === slot && !(op === ADD && adds.includes(slot))) return true;
      }
      if (op !== ADD) {
        // u may write this slot too (without reading it): compare with u's own writes
        const uEnd = this.writesEnd(u);
        for (let j = this.writeStart.data[u] as number; j < uEnd; j += 3) if (pool[j + 1] === slot) return true;
      }
    }
    return false;
  }

  private writesEnd(o: number): number {
    return o + 1 < this.writeStart.length ? (this.writeStart.data[o + 1] as number) : this.writePool.length;
  }

  /**
   * Whether the outcome that follows `u` after `o` (at `o`'s successor) may depend on more than the pair:
   * `o` lowers a ref count (a patch, focus.ts) that `u` reads only up to a cap, so whether it falls below
   * the cap is not in `u`'s key. Otherwise `u` after `o` is a function of (o, u): o's writes are either
   * absolute or additions `u` does not see.
   */
  crossesCap(o: number, u: number): boolean {
    if ((this.outcomeDown.data[o] as number) === 0) return false;
    const spec = this.candFocus[this.outcomeCand.data[u] as number];
    return spec !== null && spec !== undefined && spec.focus.refsUpTo > 0;
  }

  /** `next` := `cur` with outcome `o`'s writes. */
  apply(o: number, cur: Int32Array, next: Int32Array): void {
    next.set(cur);
    const pool = this.writePool.data;
    const end = this.writesEnd(o);
    for (let i = this.writeStart.data[o] as number; i < end; i += 3) {
      const op = pool[i] as number;
      const slot = pool[i + 1] as number;
      const arg = pool[i + 2] as number;
      if (op === SET) next[slot] = arg;
      else if (op === ADD) next[slot] = (next[slot] as number) + arg;
      else next[slot] = this.patched(slot, next[slot] as number, arg);
    }
    // (only an event that changed the fault history can have made it other than its summary)
    const F = this.layout.faults;
    if (this.summary !== null && next[F] !== cur[F]) this.summary.apply(next);
  }

  /** The view's key of instance `id` (focus.ts `projectForView`): its projection id + 1, or 0 for none. */
  private viewedInstance(slot: number, id: number): number {
    if (id === 0) return 0;
    const memo = this.viewInstanceMemo;
    while (memo.length <= id) memo.push(-1);
    let p = memo.data[id] as number;
    if (p < 0) {
      p = this.projections.intern(projectForView(this.codec.value(slot, id) as InstanceRecord));
      memo.data[id] = p;
    }
    return p + 1;
  }

  /** Whether the components the view reads differ between two vectors. */
  viewDiffers(a: Int32Array, b: Int32Array): boolean {
    const slots = this.viewSlots;
    for (let i = 0; i < slots.length; i++) if (a[slots[i] as number] !== b[slots[i] as number]) return true;
    return false;
  }

  /** Bit k set ⇔ `properties[k].check(viewOf(state, final)).ok`. */
  verdicts(cur: Int32Array, final: boolean): number {
    const slots = this.viewSlots;
    const modes = this.viewModes;
    const key = this.key;
    key[0] = final ? 1 : 0;
    for (let i = 0; i < slots.length; i++) {
      const id = cur[slots[i] as number] as number;
      const mode = modes[i] as number;
      key[1 + i] = mode === PLAIN ? id : mode === PRESENT ? (id === 0 ? 0 : 1) : this.viewedInstance(slots[i] as number, id);
    }
    const hit = this.viewMemo.get(key, 1 + slots.length);
    if (hit >= 0) return this.viewBits[hit] as number;
    const saved = Int32Array.from(key.subarray(0, 1 + slots.length));
    this.misses.views += 1;
    this.codec.reader = 'viewOf';
    const state = this.codec.materialize(cur, slots);
    const view = this.viewOf(this.cfg, state, final);
    // SUBTLE: the key holds less of the builder entries than the view is given (focus.ts
    // `projectForView`): the same view with the rest of every entry changed
    const entries = this.layout.allBuilders.filter((h) => (cur[h] as number) !== 0).map((h) => [h, perturbForView(this.codec.entryAt(h) as Entry)] as const);
    if (entries.length > 0 && !sameValue(this.viewOf(this.cfg, this.codec.withEntries(state, entries), final), view)) {
      throw new ReadSetError('viewOf reads more of the builder entries than model/packed/focus.ts projectForView keeps');
    }
    key.set(saved);
    let bits = 0;
    this.properties.forEach((p, k) => {
      if (p.check(view).ok) bits |= 1 << k;
    });
    this.viewMemo.set(saved, 1 + slots.length, this.viewBits.length);
    this.viewBits.push(bits);
    return bits;
  }

  /** Bytes of the memo tables' typed arrays. */
  memoBytes(): number {
    return (
      this.actorMemo.bytes() +
      this.outcomeMemo.bytes() +
      this.viewMemo.bytes() +
      this.outcomeEvent.bytes() +
      this.outcomeCand.bytes() +
      this.writeStart.bytes() +
      this.writePool.bytes() +
      this.headerMemo.reduce((n, m) => n + m.bytes(), 0) +
      this.instanceMemo.reduce((n, m) => n + m.bytes(), 0) +
      this.pathMemo.bytes() +
      this.transitions.bytes()
    );
  }

  memoSizes(): { readonly candidates: number; readonly outcomes: number; readonly views: number; readonly components: number } {
    return {
      candidates: this.candLists.length,
      outcomes: this.outcomeEvent.length,
      views: this.viewBits.length,
      components: Object.values(this.codec.tables).reduce((n, t) => n + t.size, 0),
    };
  }
}
