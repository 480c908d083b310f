/**
 * The packed exhaustive search: the same breadth-first search as model/search.ts (the reference), over
 * packed states (layout.ts) whose successors come from system.ts itself.
 *
 * A state is a vector of component ids. Its successors are computed actor by actor (system.ts
 * `actorsOf`, in `candidates`' order): the actor's candidate events are memoized by the ids of the
 * components the actor reads, and each candidate's outcome — not enabled, or the model's expected event
 * and the slots it writes — is memoized by the ids of the components the event reads (read-sets.ts).
 * On a cache miss the search calls system.ts's `actorCandidates` / `predict` on a state materialized with
 * guards for every undeclared component, so the model is never re-implemented here and a wrong read set
 * throws. Property verdicts are memoized the same way by the view's components.
 *
 * Optional reductions and limits: a symmetry `Reducer` (symmetry.ts) maps every new state to its orbit's
 * representative and records the permutation so that traces are un-permuted; `maxStates` and
 * `maxBytes` stop the search and say how far it got; `shard` explores one hash-partition of the
 * frontier at a fixed BFS depth (shards may overlap below it; their verdicts combine, see combine.ts).
 *
 * Every trace this search returns has been replayed with system.ts `step` from `initialState` and
 * re-judged on the state it reaches (so what is printed is a real run), or the search throws.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import type { Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import type { SystemState } from '../state.ts';
import { initialState, isFinal, step } from '../system.ts';
import { viewOf } from '../view.ts';
import { Engine } from './engine.ts';
import { StateStore } from './state-store.ts';
import { PagedInts, TupleMap } from './tuple-set.ts';

/** A symmetry reduction: canonical representatives and the permutations that got there. */
export interface Reducer {
  /** Rewrites `vec` to its orbit's representative; returns the id of the permutation applied (0: none). */
  canonicalize(vec: Int32Array): number;
  /** The real trace: `events[k]` was taken from the k-th representative, then `syms[k]` applied. */
  unpermute(events: readonly TraceEvent[], syms: readonly number[]): TraceEvent[];
  readonly description: string;
  /** The engine whose component ids it reads (the search must use the same one). */
  readonly engine: Engine;
  /** How many states the orbit of representative `vec` holds (null: not computed). */
  orbitSize(vec: Int32Array): number | null;
}

export interface PackedSearchOptions {
  readonly maxStates: number;
  /** Stop when the process's memory (`memory()`, default RSS) reaches this many bytes. */
  readonly maxBytes?: number;
  readonly memory?: () => number;
  /** Check the memory (and `timeUp`) every this many expanded states (default 4096). */
  readonly memoryEvery?: number;
  /** Stop (stopped: 'max-time') when this returns true. */
  readonly timeUp?: () => boolean;
  /** The properties to judge (ignored when an engine is passed: the engine's are judged). */
  readonly properties?: readonly Property[];
  readonly stopAtFirstViolation?: boolean;
  /** Stop as soon as every property named here is settled (violated, or witnessed). */
  readonly until?: readonly string[];
  readonly onProgress?: (expanded: number, states: number) => void;
  readonly progressEvery?: number;
  readonly reducer?: Reducer;
  /**
   * Partial-order reduction: where an event declared confluent in read-sets.ts is enabled and commutes
   * with every other enabled event, take it alone. Preserves every terminal state; since every property
   * here is monotone (checked on every edge: a violation or witness never disappears), verdicts are
   * preserved too, but traces are shortest only within the reduced graph.
   */
  readonly por?: boolean;
  /** Explore only shard `index` of `count`: frontier states at `depth` (default: the first BFS level
   * with at least 16·count states) whose hash is ≡ index (mod count). */
  readonly shard?: { readonly index: number; readonly count: number; readonly depth?: number };
  /** Sees every final (terminal) state found, materialized (tests). */
  readonly onFinal?: (state: SystemState) => void;
}

export interface PackedViolation {
  readonly property: string;
  readonly kind: Property['kind'];
  readonly why: string;
  readonly trace: readonly TraceEvent[];
}

export type StopReason = 'max-states' | 'max-memory' | 'max-time' | 'violation' | 'settled';

export interface PackedSearchResult {
  readonly states: number;
  /** The states the stored ones stand for without the symmetry: the sum of their orbits' sizes (null
   * where not computed: with replica symmetry). With the partial-order reduction, the orbits of the
   * reduced graph's states. */
  readonly unreduced: number | null;
  readonly finals: number;
  /** Successor edges generated (including ones to states seen before). */
  readonly transitions: number;
  readonly complete: boolean;
  readonly stopped: StopReason | null;
  /** Deepest BFS level reached (events from the initial state). */
  readonly depth: number;
  /** States stored but not yet expanded when the search stopped. */
  readonly frontier: number;
  /** Successor edges to states not stored because of maxStates. */
  readonly dropped: number;
  readonly violations: readonly PackedViolation[];
  readonly witnesses: readonly { readonly property: string; readonly trace: readonly TraceEvent[] }[];
  readonly unreached: readonly string[];
  /** Bytes of the state store (tuples, index, parents, edges) and of the memo tables. */
  readonly storeBytes: number;
  readonly memoBytes: number;
  readonly memo: { readonly candidates: number; readonly outcomes: number; readonly views: number; readonly components: number; readonly diamonds: number };
  readonly shard?: { readonly index: number; readonly count: number; readonly depth: number; readonly roots: number };
  /** The reductions in words. */
  readonly reduction: string;
  /** With the partial-order reduction: how many states expanded only a persistent subset. */
  readonly porStates: number | null;
}


export function searchPacked(cfg: ModelConfig, opts: PackedSearchOptions, engine: Engine = new Engine(cfg, opts.properties ?? [])): PackedSearchResult {
  const properties = engine.properties;
  const S = engine.slots;
  const store = new StateStore(S);
  const reducer = opts.reducer;
  if (reducer !== undefined && reducer.engine !== engine) throw new Error('searchPacked: the reducer was made for another engine (pass that engine)');
  const cur = new Int32Array(S);
  const next = new Int32Array(S);
  const enabled: number[] = [];
  const por = new PersistentSets(engine);

  /** With a reducer: per state, the symmetry applied to reach its representative. */
  const symOf = reducer === undefined ? null : new PagedInts();
  engine.initial(cur);
  symOf?.push(reducer?.canonicalize(cur) ?? 0);
  store.add(cur, -1, -1);
  let unreduced: number | null = reducer === undefined ? 1 : reducer.orbitSize(cur);

  const traceTo = (n: number): TraceEvent[] => {
    const evs: TraceEvent[] = [];
    const syms: number[] = [];
    for (let at = n; at > 0; at = store.parents.get(at)) {
      evs.push(engine.expectedOf(store.edges.get(at)));
      syms.push(symOf?.get(at) ?? 0);
    }
    evs.reverse();
    syms.reverse();
    return reducer === undefined ? evs : reducer.unpermute(evs, [symOf?.get(0) ?? 0, ...syms]);
  };

  const violations: PackedViolation[] = [];
  const witnesses: { property: string; trace: readonly TraceEvent[] }[] = [];
  const settled = new Set<number>();
  const verdictMasks = new VerdictMasks(properties);
  let unsettled = verdictMasks.all;
  const untilMask = (opts.until ?? []).reduce((m, name) => {
    const k = properties.findIndex((p) => p.name === name);
    if (k < 0) throw new RangeError(`until: no property named ${name}`);
    return m | (1 << k);
  }, 0);
  let finals = 0;
  let transitions = 0;
  let complete = true;
  let stopped: StopReason | null = null;
  const progressEvery = Math.max(1, opts.progressEvery ?? 1024);
  const memory = opts.memory ?? (() => process.memoryUsage().rss);
  const memoryEvery = Math.max(1, opts.memoryEvery ?? 4096);
  let dropped = 0;

  // BFS levels are contiguous ranges of state numbers.
  let levelEnd = 1;
  let depth = 0;
  const shard = opts.shard;
  let shardDepth = -1;
  let shardRange: [number, number] | null = null;
  let roots = 0;
  const owned = (n: number): boolean => {
    if (shardRange === null || shard === undefined || n < shardRange[0] || n >= shardRange[1]) return true;
    let h = 0x811c9dc5;
    for (let i = 0; i < S; i++) h = Math.imul(h ^ (cur[i] as number), 0x01000193);
    return (h >>> 0) % shard.count === shard.index;
  };

  let head = 0;
  for (; head < store.size; head++) {
    if (head === levelEnd) {
      // a new BFS level: states [head, store.size)
      depth += 1;
      levelEnd = store.size;
      const wide = shard?.depth === undefined ? levelEnd - head >= 16 * (shard?.count ?? 0) : depth === shard.depth;
      if (shard !== undefined && shardDepth < 0 && wide) {
        shardDepth = depth;
        shardRange = [head, levelEnd];
      }
    }
    if (opts.onProgress !== undefined && head > 0 && head % progressEvery === 0) opts.onProgress(head, store.size);
    if (head % memoryEvery === 0) {
      if (opts.maxBytes !== undefined && memory() >= opts.maxBytes) {
        complete = false;
        stopped = 'max-memory';
        break;
      }
      if (opts.timeUp?.() === true) {
        complete = false;
        stopped = 'max-time';
        break;
      }
    }
    store.read(head, cur);
    if (!owned(head)) continue;
    if (shardRange !== null && head >= shardRange[0] && head < shardRange[1]) roots += 1;
    const successors = engine.expand(cur, enabled);
    transitions += successors;
    const final = successors === 0;
    if (final) {
      finals += 1;
      opts.onFinal?.(engine.codec.materialize(cur));
    }
    if (opts.por === true) por.restrict(cur, enabled);
    const needBits = unsettled !== 0 || opts.por === true;
    const bits = needBits ? engine.verdicts(cur, final) : 0;
    if (unsettled !== 0) {
      const news = verdictMasks.settledAt(bits, final) & unsettled;
      for (let k = 0; news !== 0 && k < properties.length; k++) {
        if ((news & (1 << k)) === 0) continue;
        unsettled &= ~(1 << k);
        settled.add(k);
        const prop = properties[k] as Property;
        const ok = (bits & (1 << k)) !== 0;
        if (prop.kind === 'sometimes') {
          if (ok) {
            witnesses.push({ property: prop.name, trace: verifiedTrace(cfg, traceTo(head), prop, true).trace });
            settled.add(k);
          }
        } else if (!ok && (prop.kind === 'always' || final)) {
          const v = verifiedTrace(cfg, traceTo(head), prop, false);
          violations.push({ property: prop.name, kind: prop.kind, why: v.why, trace: v.trace });
          settled.add(k);
        }
      }
      if (opts.stopAtFirstViolation === true && violations.length > 0) {
        stopped = 'violation';
        break;
      }
      if (untilMask !== 0 && (unsettled & untilMask) === 0) {
        stopped = 'settled';
        break;
      }
    }
    for (const o of enabled) {
      engine.apply(o, cur, next);
      if (opts.por === true && engine.viewDiffers(cur, next)) verdictMasks.requireMonotone(engine, bits, next, o);
      const sym = reducer === undefined ? 0 : reducer.canonicalize(next);
      if (store.size >= opts.maxStates) {
        if (store.find(next) < 0) {
          complete = false;
          dropped += 1;
          stopped ??= 'max-states';
        }
        continue;
      }
      if (store.add(next, head, o) < 0) {
        if (reducer === undefined) unreduced = (unreduced as number) + 1;
        else {
          symOf?.push(sym);
          if (unreduced !== null) {
            const orbit = reducer.orbitSize(next);
            unreduced = orbit === null ? null : unreduced + orbit;
          }
        }
      }
    }
  }
  return {
    states: store.size,
    unreduced,
    finals,
    transitions,
    complete: complete && stopped === null,
    stopped,
    depth,
    frontier: store.size - head,
    dropped,
    violations,
    witnesses,
    unreached: properties.filter((p, k) => p.kind === 'sometimes' && !settled.has(k)).map((p) => p.name),
    storeBytes: store.bytes() + (symOf?.bytes() ?? 0),
    memoBytes: engine.memoBytes(),
    memo: { ...engine.memoSizes(), diamonds: por.diamonds },
    ...(shard === undefined ? {} : { shard: { index: shard.index, count: shard.count, depth: shardDepth, roots } }),
    reduction: [reducer?.description, opts.por === true ? `partial order: ${por.reduced} states expanded only a persistent subset` : undefined].filter((x) => x !== undefined).join('; ') || 'none',
    porStates: opts.por === true ? por.reduced : null,
  };
}

/**
 * Replays `trace` with system.ts `step` from the initial state and judges `prop` on the state it
 * reaches: the witness must show, the violation must fail (with its `why`). Throws if the model rejects
 * an event or disagrees: then the packed search itself is wrong.
 */
export function verifiedTrace(
  cfg: ModelConfig,
  trace: readonly TraceEvent[],
  prop: Property,
  witness: boolean,
): { readonly trace: readonly TraceEvent[]; readonly why: string; readonly state: SystemState } {
  let s = initialState(cfg);
  trace.forEach((e, i) => {
    const r = step(cfg, s, e);
    if (!r.ok) throw new Error(`packed search: event ${i + 1} of its ${prop.name} trace is not accepted by the model: ${r.reason}`);
    s = r.state;
  });
  const verdict = prop.check(viewOf(cfg, s, isFinal(cfg, s)));
  if (verdict.ok !== witness) {
    throw new Error(`packed search: the replayed ${prop.name} trace ${witness ? 'does not show the witness' : 'does not violate the property'}`);
  }
  return { trace, why: verdict.ok ? '' : verdict.why, state: s };
}

/**
 * The partial-order reduction's persistent subsets (used by `searchPacked` and by every thread of the
 * parallel search): one confluent event, else the enabled events of one process group (processes share
 * only the read-only live description, hands that commute and counters that only add up), in both cases
 * only if each commutes with every enabled event outside it.
 */
export class PersistentSets {
  private readonly S: number;
  private readonly da: Int32Array;
  private readonly db: Int32Array;
  private readonly dab: Int32Array;
  private readonly dba: Int32Array;
  private readonly table = new TupleMap(12);
  private readonly quad = new Int32Array(4);
  private cur: Int32Array;
  /** States expanded with a proper subset. */
  reduced = 0;

  constructor(private readonly engine: Engine) {
    this.S = engine.slots;
    this.da = new Int32Array(this.S);
    this.db = new Int32Array(this.S);
    this.dab = new Int32Array(this.S);
    this.dba = new Int32Array(this.S);
    this.cur = this.da;
  }

  /** Pairs of outcomes judged. */
  get diamonds(): number {
    return this.table.size;
  }

  /** Narrows `enabled` (the outcomes of `cur`) to a persistent proper subset where there is one. */
  restrict(cur: Int32Array, enabled: number[]): void {
    if (enabled.length < 2) return;
    const ample = this.ample(cur, enabled);
    if (ample === null) return;
    enabled.length = 0;
    enabled.push(...ample);
    this.reduced += 1;
  }

  /** A proper subset of `enabled` (the outcomes of `cur`) that is persistent, or null. */
  private ample(cur: Int32Array, enabled: readonly number[]): number[] | null {
    this.cur = cur;
    const engine = this.engine;
    for (const o of enabled) {
      if (engine.confluent(o) && enabled.every((u) => u === o || this.diamond(o, u))) return [o];
    }
    const groups = new Map<number, number[]>();
    for (const o of enabled) {
      const g = engine.groupOf(o);
      const list = groups.get(g);
      if (list === undefined) groups.set(g, [o]);
      else list.push(o);
    }
    if (groups.size < 2) return null;
    const bySize = [...groups.values()].sort((a, b) => a.length - b.length);
    for (const set of bySize) {
      if (!engine.isProcessGroup(engine.groupOf(set[0] as number))) continue;
      const inside = new Set(set);
      if (set.every((o) => enabled.every((u) => inside.has(u) || this.diamond(o, u)))) return set;
    }
    return null;
  }

  /**
   * o then u and u then o both run from the current state and meet in the same state.
   * SUBTLE: whether two outcomes commute depends only on the pair: each outcome fixes its event's read
   * values and its writes (absolute, or additions the other does not see), so the state after both (in
   * either order) is fixed too — except where one lowers a ref count the other reads only up to a cap
   * (focus.ts: "≥ 2" may be 2 or 5): the outcomes that follow (u after o, o after u) may then differ
   * between states with the same pair, so the pair is judged with them, (o, u, u after o, o after u),
   * which fix the result (patches add ref counts and new update ids, and set everything else).
   */
  private diamond(o: number, u: number): boolean {
    const engine = this.engine;
    // (an outcome predicted each time has an id of its own: a pair with it is judged, not kept)
    if (!engine.memoized(o) || !engine.memoized(u)) return this.commutes(o, u, false);
    const quad = this.quad;
    quad[0] = o;
    quad[1] = u;
    let len = 2;
    if (engine.crossesCap(o, u) || engine.crossesCap(u, o)) {
      if (engine.disjoint(o, u)) return true;
      engine.apply(o, this.cur, this.da);
      engine.apply(u, this.cur, this.db);
      const o2 = engine.again(o, this.db);
      const u2 = o2 < 0 ? -1 : engine.again(u, this.da);
      if (u2 < 0) return false;
      quad[2] = u2;
      quad[3] = o2;
      len = 4;
    }
    const hit = this.table.get(quad, len);
    if (hit >= 0) return hit === 1;
    const r = this.commutes(o, u, len === 4);
    quad[0] = o;
    quad[1] = u;
    this.table.set(quad, len, r ? 1 : 0);
    return r;
  }

  /** Whether o and u commute from the current state (`applied`: da, db, and the two outcomes after
   * them in quad[2], quad[3] are already there). */
  private commutes(o: number, u: number, applied: boolean): boolean {
    const engine = this.engine;
    let u2: number;
    let o2: number;
    if (applied) {
      u2 = this.quad[2] as number;
      o2 = this.quad[3] as number;
    } else {
      if (engine.disjoint(o, u)) return true;
      engine.apply(o, this.cur, this.da);
      engine.apply(u, this.cur, this.db);
      // (o after u first: o is the confluent one, u may be an event predicted each time)
      o2 = engine.again(o, this.db);
      u2 = o2 < 0 ? -1 : engine.again(u, this.da);
      if (u2 < 0) return false;
    }
    engine.apply(u2, this.da, this.dab);
    engine.apply(o2, this.db, this.dba);
    for (let i = 0; i < this.S; i++) if (this.dab[i] !== this.dba[i]) return false;
    return true;
  }
}

/**
 * The property masks of a search's verdict bits (bit k: `properties[k]` holds in the state), and the two
 * judgements every search (one thread or many) makes with them.
 */
export class VerdictMasks {
  readonly always: number;
  readonly eventually: number;
  readonly sometimes: number;
  /** Every property. */
  readonly all: number;

  constructor(private readonly properties: readonly Property[]) {
    const maskOf = (kind: Property['kind']) => properties.reduce((m, p, k) => (p.kind === kind ? m | (1 << k) : m), 0);
    this.always = maskOf('always');
    this.eventually = maskOf('eventually');
    this.sometimes = maskOf('sometimes');
    this.all = this.always | this.eventually | this.sometimes;
  }

  /** The properties a state with these verdict bits settles: an always violated, an eventually violated
   * in a final state, a sometimes witnessed. */
  settledAt(bits: number, final: boolean): number {
    return (~bits & (this.always | (final ? this.eventually : 0))) | (bits & this.sometimes);
  }

  /**
   * The partial-order reduction keeps verdicts only for monotone properties: along the edge taken by
   * outcome `o` to `next`, no always may recover and no sometimes may be lost (else this throws).
   */
  requireMonotone(engine: Engine, bits: number, next: Int32Array, o: number): void {
    const after = engine.verdicts(next, false);
    const lost = (~bits & this.always & ~(~after & this.always)) | (bits & this.sometimes & ~after);
    if (lost === 0) return;
    const k = Math.clz32(lost & -lost) ^ 31;
    throw new Error(
      `the partial-order reduction needs monotone properties, but ${this.properties[k]?.name} changes back after ` +
        `${JSON.stringify(engine.expectedOf(o))}: run without it`,
    );
  }
}
