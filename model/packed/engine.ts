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
import type { ModelConfig } from '../config.ts';
import { actorCandidates, actorsOf, initialState, predict, type Actor } from '../system.ts';
import { viewOf } from '../view.ts';
import { Codec, Interner, Layout, ReadSetError } from './layout.ts';
import { ACTOR_READS, EVENT_RULES, actorReads, eventRule, viewReads, type ActorRules, type EventRules } from './read-sets.ts';

/** For tests: other read-set tables, or another predict (to show the checks catch a wrong one). */
export interface EngineOptions {
  readonly eventRules?: EventRules;
  readonly actorRules?: ActorRules;
  readonly predict?: typeof predict;
}
import { PagedInts, TupleMap } from './tuple-set.ts';

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
  /** Per outcome: the expected event's id (-1 when the candidate is not enabled), its candidate, and its
   * writes as a range of `writePool`. */
  private readonly outcomeEvent = new PagedInts();
  private readonly outcomeCand = new PagedInts();
  private readonly writeStart = new PagedInts();
  private readonly writePool = new PagedInts();
  private readonly viewMemo = new TupleMap(12);
  private readonly viewBits: number[] = [];
  private readonly scratch: Int32Array;
  private readonly key: Int32Array;
  /** Expected events by id (traces are stored as these ids). */
  readonly events = new Interner();
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
    this.codec.reader = `actorCandidates(${JSON.stringify(actor)})`;
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
    const first = this.predictWrites(event, cur, c, adds);
    if (first !== null && adds.length > 0) {
      // SUBTLE: the counters are not in the key, so the outcome must not depend on them: predict again
      // with every counter shifted and require the same event, the same writes and the same additions.
      const shifted = Int32Array.from(cur);
      for (const a of adds) shifted[a] = (shifted[a] as number) + 1000;
      const again = this.predictWrites(event, shifted, c, adds);
      if (again === null || again.event !== first.event || again.writes.join() !== first.writes.join()) {
        throw new ReadSetError(
          `predict(${JSON.stringify(event)}) depends on ${[...adds].map((a) => this.layout.labels[a]).join(', ')} beyond adding to ` +
            'it: declare it in reads, not adds (model/packed/read-sets.ts)',
        );
      }
    }
    const o = this.outcomeEvent.length;
    this.outcomeEvent.push(first === null ? -1 : first.event);
    this.outcomeCand.push(c);
    this.writeStart.push(this.writePool.length);
    for (const x of first?.writes ?? []) this.writePool.push(x);
    this.outcomeMemo.set(key, 1 + slots.length, o);
    return o;
  }

  /**
   * predict on `vec` with guards outside the candidate's reads and adds: null when not enabled, else the
   * expected event's id and the writes, [slot, id …], an added-to counter as [-slot - 1, k].
   */
  private predictWrites(event: TraceEvent, vec: Int32Array, c: number, adds: Int32Array): { event: number; writes: number[] } | null {
    this.codec.reader = `predict(${JSON.stringify(event)})`;
    const p = this.predict(this.cfg, this.codec.materialize(vec, this.candTouch[c] as Int32Array), event);
    if (!p.ok) return null;
    this.scratch.set(vec);
    const writes = this.codec.extract(p.next, this.scratch);
    const out: number[] = [];
    for (let i = 0; i < writes.length; i += 2) {
      const slot = writes[i] as number;
      if (adds.includes(slot)) out.push(-slot - 1, (writes[i + 1] as number) - (vec[slot] as number));
      else out.push(slot, writes[i + 1] as number);
    }
    return { event: this.events.intern(p.expected), writes: out };
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
        if (this.outcomeEvent.get(o) >= 0) out.push(o);
      }
    }
    return out.length;
  }

  /** The event id of an enabled outcome. */
  eventOf(o: number): number {
    return this.outcomeEvent.get(o);
  }

  /** Whether outcome `o`'s event kind is declared confluent. */
  confluent(o: number): boolean {
    return this.candConfluent[this.outcomeCand.get(o)] === true;
  }

  /** The outcome of `o`'s candidate (the same actor's same event) at another state, or -1 if not enabled there. */
  again(o: number, vec: Int32Array): number {
    const o2 = this.outcome(this.outcomeCand.get(o), vec);
    return this.outcomeEvent.get(o2) >= 0 ? o2 : -1;
  }

  /** `next` := `cur` with outcome `o`'s writes. */
  apply(o: number, cur: Int32Array, next: Int32Array): void {
    next.set(cur);
    const end = o + 1 < this.writeStart.length ? this.writeStart.get(o + 1) : this.writePool.length;
    for (let i = this.writeStart.get(o); i < end; i += 2) {
      const slot = this.writePool.get(i);
      if (slot >= 0) next[slot] = this.writePool.get(i + 1);
      else next[-slot - 1] = (next[-slot - 1] as number) + this.writePool.get(i + 1);
    }
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
