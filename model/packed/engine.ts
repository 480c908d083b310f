/**
 * Successors of packed states, computed by system.ts and memoized by read set.
 *
 * For a packed vector `cur`: each actor's candidate events are memoized by (actor, ids of the
 * components the actor reads); each candidate's outcome by (candidate, ids of the components the event
 * reads), read-sets.ts. An outcome is "not enabled" or (the model's expected event, the slots it
 * writes). On a miss the engine materializes `cur` with guards for everything undeclared and calls
 * system.ts's `actorCandidates` or `predict`, so the model is the only source of behaviour.
 * Property verdicts are memoized the same way, by the components `viewOf` reads.
 *
 * An engine may be reused for several searches of the same configuration (the bench measures a warm
 * engine too); its tables only grow.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import type { Property } from '../../spec/properties.ts';
import { processOf, type ModelConfig } from '../config.ts';
import { actorCandidates, actorsOf, initialState, predict, type Actor } from '../system.ts';
import type { SystemState } from '../state.ts';
import { viewOf } from '../view.ts';
import { Codec, Interner, Layout, ReadSetError, sameValue } from './layout.ts';
import { ACTOR_READS, EVENT_RULES, actorReads, eventRule, viewReads, type ActorRules, type EventRules } from './read-sets.ts';

/** For tests: other read-set tables, or another predict (to show the checks catch a wrong one). */
export interface EngineOptions {
  readonly eventRules?: EventRules;
  readonly actorRules?: ActorRules;
  readonly predict?: typeof predict;
}
import { GrowInts, TupleMap } from './tuple-set.ts';

export interface MissCounts {
  actors: number;
  outcomes: number;
  views: number;
  /** Outcome misses by event kind. */
  readonly byKind: Record<string, number>;
}

export class Engine {
  readonly layout: Layout;
  readonly codec: Codec;
  readonly actors: readonly Actor[];
  private readonly actorSlots: readonly Int32Array[];
  private readonly viewSlots: Int32Array;

  private readonly candidates: TraceEvent[] = [];
  /** Per candidate: the slots of its memo key (its reads), and those it may also touch (reads + adds). */
  private readonly candSlots: Int32Array[] = [];
  private readonly candTouch: Int32Array[] = [];
  private readonly candAdds: Int32Array[] = [];
  private readonly candIds = new Interner();
  private readonly candLists: Int32Array[] = [];
  private readonly actorMemo = new TupleMap(12);
  private readonly outcomeMemo = new TupleMap(14);
  /** Per candidate: whether its kind is declared confluent (read-sets.ts), for the partial-order reduction. */
  private readonly candConfluent: boolean[] = [];
  /** Per candidate: the actor that proposes it. */
  private readonly candActor: number[] = [];
  /** Per actor: its group for the partial-order reduction (the workers and registry of one process form
   * one; the mint and the append operator each their own). */
  readonly actorGroup: readonly number[];
  /** Per outcome: the expected event's id (-1 when the candidate is not enabled), its candidate, and its
   * writes as a range of `writePool`. */
  private readonly outcomeEvent = new GrowInts();
  private readonly outcomeCand = new GrowInts();
  private readonly writeStart = new GrowInts();
  private readonly writePool = new GrowInts();
  private readonly viewMemo = new TupleMap(12);
  private readonly viewBits: number[] = [];
  private readonly scratch: Int32Array;
  private readonly key: Int32Array;
  /** The model's expected events (interned: far fewer than outcomes); `outcomeEvent` indexes them. */
  private readonly expected = new Interner();
  readonly misses: MissCounts = { actors: 0, outcomes: 0, views: 0, byKind: {} };

  private readonly eventRules: EventRules;
  private readonly predict: typeof predict;

  constructor(
    readonly cfg: ModelConfig,
    readonly properties: readonly Property[] = [],
    opts: EngineOptions = {},
  ) {
    if (properties.length > 30) throw new RangeError('the packed search judges at most 30 properties');
    this.eventRules = opts.eventRules ?? EVENT_RULES;
    this.predict = opts.predict ?? predict;
    this.layout = new Layout(cfg);
    this.codec = new Codec(this.layout);
    this.actors = actorsOf(cfg);
    this.actorSlots = this.actors.map((a) => Int32Array.from(actorReads(a, this.layout, opts.actorRules ?? ACTOR_READS)));
    this.viewSlots = Int32Array.from(viewReads(this.layout));
    const groups = new Map<string, number>();
    this.actorGroup = this.actors.map((a, i) => {
      const name =
        a.kind === 'worker' ? `r${a.replica}p${processOf(cfg, a.worker)}` : `actor${i}`;
      if (!groups.has(name)) groups.set(name, groups.size);
      return groups.get(name) as number;
    });
    this.scratch = new Int32Array(this.layout.slots);
    this.key = new Int32Array(2 + this.layout.slots);
  }

  get slots(): number {
    return this.layout.slots;
  }

  /** The initial state, packed. */
  initial(out: Int32Array): void {
    this.codec.pack(initialState(this.cfg), out);
  }

  private actorCandidates(a: number, cur: Int32Array): Int32Array {
    const slots = this.actorSlots[a] as Int32Array;
    const key = this.key;
    key[0] = a;
    for (let i = 0; i < slots.length; i++) key[1 + i] = cur[slots[i] as number] as number;
    const hit = this.actorMemo.get(key, 1 + slots.length);
    if (hit >= 0) return this.candLists[hit] as Int32Array;
    this.misses.actors += 1;
    const actor = this.actors[a] as Actor;
    this.codec.reader = { call: 'actorCandidates', of: actor };
    const proposed = actorCandidates(this.cfg, this.codec.materialize(cur, slots), actor);
    const list = Int32Array.from(proposed, (e) => {
      const before = this.candIds.size;
      const id = this.candIds.intern(e);
      if (id === before) {
        const rule = eventRule(e, this.layout, this.eventRules);
        this.candidates.push(e);
        this.candSlots.push(Int32Array.from(rule.reads));
        this.candAdds.push(Int32Array.from(rule.adds));
        this.candTouch.push(Int32Array.from([...rule.reads, ...rule.adds]));
        this.candConfluent.push(rule.confluent);
        this.candActor.push(a);
      }
      return id;
    });
    this.actorMemo.set(key, 1 + slots.length, this.candLists.length);
    this.candLists.push(list);
    return list;
  }

  private outcome(c: number, cur: Int32Array): number {
    const slots = this.candSlots[c] as Int32Array;
    const key = this.key;
    key[0] = c;
    for (let i = 0; i < slots.length; i++) key[1 + i] = cur[slots[i] as number] as number;
    const hit = this.outcomeMemo.get(key, 1 + slots.length);
    if (hit >= 0) return hit;
    const event = this.candidates[c] as TraceEvent;
    this.misses.outcomes += 1;
    this.misses.byKind[event.kind] = (this.misses.byKind[event.kind] ?? 0) + 1;
    const adds = this.candAdds[c] as Int32Array;
    this.codec.reader = { call: 'predict', of: event };
    const state = this.codec.materialize(cur, this.candTouch[c] as Int32Array);
    const first = this.predictWrites(event, state, cur, adds);
    if (first !== null && adds.length > 0) {
      // SUBTLE: the counters are not in the key, so the outcome must not depend on them: predict again
      // with every counter shifted and require the same event, the same writes and the same additions.
      const shifted = Int32Array.from(cur);
      for (const a of adds) shifted[a] = (shifted[a] as number) + 1000;
      const again = this.predictWrites(event, this.codec.shiftCounters(state, adds, 1000), shifted, adds);
      if (again === null || !sameValue(again.event, first.event) || !sameValue(again.writes, first.writes)) {
        throw new ReadSetError(
          `predict(${JSON.stringify(event)}) depends on ${[...adds].map((a) => this.layout.labels[a]).join(', ')} beyond adding to ` +
            'it: declare it in reads, not adds (model/packed/read-sets.ts)',
        );
      }
    }
    const o = this.outcomeEvent.length;
    this.outcomeEvent.push(first === null ? -1 : this.expected.intern(first.event));
    this.outcomeCand.push(c);
    this.writeStart.push(this.writePool.length);
    for (const x of first?.writes ?? []) this.writePool.push(x);
    this.outcomeMemo.set(key, 1 + slots.length, o);
    return o;
  }

  /**
   * predict on `state` (`vec` materialized with guards outside the candidate's reads and adds, last):
   * null when not enabled, else the expected event and the writes, [slot, id …], an added-to counter as
   * [-slot - 1, k].
   */
  private predictWrites(event: TraceEvent, state: SystemState, vec: Int32Array, adds: Int32Array): { event: TraceEvent; writes: number[] } | null {
    const p = this.predict(this.cfg, state, event);
    if (!p.ok) return null;
    this.scratch.set(vec);
    const writes = this.codec.extract(p.next, this.scratch);
    const out: number[] = [];
    for (let i = 0; i < writes.length; i += 2) {
      const slot = writes[i] as number;
      if (adds.includes(slot)) out.push(-slot - 1, (writes[i + 1] as number) - (vec[slot] as number));
      else out.push(slot, writes[i + 1] as number);
    }
    return { event: p.expected, writes: out };
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
    const touch = this.candTouch[(this.outcomeCand.data[u] as number)] as Int32Array;
    const adds = this.candAdds[(this.outcomeCand.data[u] as number)] as Int32Array;
    const end = o + 1 < this.writeStart.length ? (this.writeStart.data[o + 1] as number) : this.writePool.length;
    for (let i = (this.writeStart.data[o] as number); i < end; i += 2) {
      const raw = (this.writePool.data[i] as number);
      const slot = raw >= 0 ? raw : -raw - 1;
      for (let k = 0; k < touch.length; k++) {
        if (touch[k] === slot && !(raw < 0 && adds.includes(slot))) return true;
      }
      if (raw >= 0) {
        // u may write this slot too (without reading it): compare with u's own writes
        const uEnd = u + 1 < this.writeStart.length ? (this.writeStart.data[u + 1] as number) : this.writePool.length;
        for (let j = (this.writeStart.data[u] as number); j < uEnd; j += 2) {
          const other = (this.writePool.data[j] as number);
          if ((other >= 0 ? other : -other - 1) === slot) return true;
        }
      }
    }
    return false;
  }

  /** `next` := `cur` with outcome `o`'s writes. */
  apply(o: number, cur: Int32Array, next: Int32Array): void {
    next.set(cur);
    const end = o + 1 < this.writeStart.length ? (this.writeStart.data[o + 1] as number) : this.writePool.length;
    for (let i = (this.writeStart.data[o] as number); i < end; i += 2) {
      const slot = (this.writePool.data[i] as number);
      if (slot >= 0) next[slot] = (this.writePool.data[i + 1] as number);
      else next[-slot - 1] = (next[-slot - 1] as number) + (this.writePool.data[i + 1] as number);
    }
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
    const key = this.key;
    key[0] = final ? 1 : 0;
    for (let i = 0; i < slots.length; i++) key[1 + i] = cur[slots[i] as number] as number;
    const hit = this.viewMemo.get(key, 1 + slots.length);
    if (hit >= 0) return this.viewBits[hit] as number;
    this.misses.views += 1;
    this.codec.reader = 'viewOf';
    const view = viewOf(this.cfg, this.codec.materialize(cur, slots), final);
    let bits = 0;
    this.properties.forEach((p, k) => {
      if (p.check(view).ok) bits |= 1 << k;
    });
    this.viewMemo.set(key, 1 + slots.length, this.viewBits.length);
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
      this.writePool.bytes()
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
