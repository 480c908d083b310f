/**
 * Swarm search for configurations too big to search exhaustively: many short searches from the initial
 * state, each a depth-first search with its own random successor order, depth bound and state budget,
 * over the packed engine (successors from system.ts, memoized; symmetry and partial-order reductions as
 * in the exhaustive search). It finds violations; it never shows that a property holds.
 *
 * Search k of a swarm with seed S is a function of (configuration, S + k) alone: its random choices come
 * from that seed, and its symmetry orders representatives by content (the same in every thread and
 * run). So a swarm of a given number of searches finds the same violations whatever the threads, and
 * search k replays alone as search 0 of seed S + k. Every trace it reports was replayed with system.ts
 * `step` and re-judged (search.ts `verifiedTrace`).
 */
import type { TraceEvent } from '../../vocab/index.ts';
import type { Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { Engine } from './engine.ts';
import { PersistentSets, VerdictMasks, verifiedTrace } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';
import { TupleSet } from './tuple-set.ts';

export interface SwarmShape {
  /** The deepest any search goes (events from the initial state); search k draws its own bound, log-uniform between 8 and this. */
  readonly depth: number;
  /** States one search visits at most. */
  readonly statesPerSearch: number;
  readonly symmetry: boolean;
  readonly por: boolean;
}

/** A property settled by one search: a violation or a witness, with its trace. */
export interface SwarmFind {
  readonly property: string;
  readonly kind: Property['kind'];
  /** The search that found it, and the seed that replays it as a swarm's only search. */
  readonly search: number;
  readonly seed: number;
  readonly why: string;
  readonly trace: readonly TraceEvent[];
}

export interface SwarmRun {
  readonly searches: number;
  readonly states: number;
  /** The deepest state any search reached. */
  readonly deepest: number;
  readonly finds: readonly SwarmFind[];
}

/** A seeded xorshift32 (every random choice of one search). */
function rngOf(seed: number): () => number {
  let x = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0x2545f491) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

/** The searcher of one thread: one engine (its memo warm across searches) and one reducer. */
export class Swarm {
  private readonly engine: Engine;
  private readonly reducer: SymmetryReducer | null;
  private readonly por: PersistentSets | null;
  private readonly masks: VerdictMasks;

  constructor(
    readonly cfg: ModelConfig,
    readonly properties: readonly Property[],
    readonly shape: SwarmShape,
  ) {
    if (!Number.isInteger(shape.depth) || shape.depth < 1) throw new RangeError(`swarm: depth must be a positive integer, got ${shape.depth}`);
    if (!Number.isInteger(shape.statesPerSearch) || shape.statesPerSearch < 1) throw new RangeError(`swarm: statesPerSearch must be a positive integer, got ${shape.statesPerSearch}`);
    this.engine = new Engine(cfg, properties);
    this.reducer = shape.symmetry ? new SymmetryReducer(this.engine) : null;
    this.por = shape.por ? new PersistentSets(this.engine) : null;
    this.masks = new VerdictMasks(properties);
  }

  /**
   * Search number `search` with seed `seed`: a depth-first search in a random successor order, to its
   * depth bound, until it has visited its budget of states. Returns what it settled (the first trace it
   * found per property) and how far it went.
   */
  search(search: number, seed: number): { readonly states: number; readonly deepest: number; readonly finds: SwarmFind[] } {
    const { engine, reducer, por, masks, properties } = this;
    const rand = rngOf(seed);
    // log-uniform in [min(8, depth), depth]: many shallow searches find short traces, a few deep ones the rest
    const lo = Math.min(8, this.shape.depth);
    const bound = Math.min(this.shape.depth, Math.floor(lo * Math.pow(this.shape.depth / lo, rand()) + 0.5));
    const S = engine.slots;
    const visited = new TupleSet(S, 12);
    // the path: per depth its vector, its symmetry, its shuffled outcomes and how many were taken
    const vecs: Int32Array[] = [];
    const syms: number[] = [];
    const taken: number[] = [];
    const lists: number[][] = [];
    const edge: number[] = [];
    const cur = new Int32Array(S);
    engine.initial(cur);
    syms.push(reducer?.canonicalize(cur) ?? 0);
    vecs.push(Int32Array.from(cur));
    visited.add(cur);
    let states = 1;
    let deepest = 0;
    // per property, the shortest trace this search found so far (a depth-first search may meet a
    // shorter one later)
    const best = new Map<number, SwarmFind>();
    const enabled: number[] = [];
    const settle = (depth: number, bits: number, final: boolean): void => {
      const news = masks.settledAt(bits, final);
      for (let k = 0; news !== 0 && k < properties.length; k++) {
        if ((news & (1 << k)) === 0 || (best.get(k)?.trace.length ?? Infinity) <= depth) continue;
        const prop = properties[k] as Property;
        const events = edge.slice(0, depth).map((o) => engine.expectedOf(o));
        const trace = reducer === null ? events : reducer.unpermute(events, syms.slice(0, depth + 1));
        const v = verifiedTrace(this.cfg, trace, prop, prop.kind === 'sometimes');
        best.set(k, { property: prop.name, kind: prop.kind, search, seed, why: v.why, trace: v.trace });
      }
    };
    const open = (depth: number): void => {
      const vec = vecs[depth] as Int32Array;
      const n = engine.expand(vec, enabled);
      settle(depth, engine.verdicts(vec, n === 0), n === 0);
      if (por !== null) por.restrict(vec, enabled);
      const list = depth >= bound ? [] : enabled.slice();
      for (let i = list.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        const t = list[i] as number;
        list[i] = list[j] as number;
        list[j] = t;
      }
      lists[depth] = list;
      taken[depth] = 0;
    };
    open(0);
    let depth = 0;
    const next = new Int32Array(S);
    while (depth >= 0 && states < this.shape.statesPerSearch) {
      const list = lists[depth] as number[];
      const k = taken[depth] as number;
      if (k >= list.length) {
        depth -= 1;
        continue;
      }
      taken[depth] = k + 1;
      const o = list[k] as number;
      engine.apply(o, vecs[depth] as Int32Array, next);
      const sym = reducer?.canonicalize(next) ?? 0;
      if (visited.add(next) >= 0) continue;
      states += 1;
      depth += 1;
      deepest = Math.max(deepest, depth);
      edge[depth - 1] = o;
      syms[depth] = sym;
      const slot = vecs[depth];
      if (slot === undefined) vecs[depth] = Int32Array.from(next);
      else slot.set(next);
      open(depth);
    }
    return { states, deepest, finds: [...best.values()] };
  }
}

/** Of several finds of a property, the shortest (then the earliest search). */
export function shortestFinds(finds: readonly SwarmFind[]): SwarmFind[] {
  const best = new Map<string, SwarmFind>();
  for (const f of finds) {
    const b = best.get(f.property);
    if (b === undefined || f.trace.length < b.trace.length || (f.trace.length === b.trace.length && f.search < b.search)) best.set(f.property, f);
  }
  return [...best.values()];
}
