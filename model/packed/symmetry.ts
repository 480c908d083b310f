/**
 * Symmetry reduction for the packed search: interchangeable workers within a process, and replicas.
 *
 * A symmetry `g = (ρ, π)` moves replica r to ρ(r) and, inside it, worker w to π_r(w) (staying in its
 * process), renaming every worker index, replica index and update id by shapes.ts (an update moves to
 * the update of the same rank in its new worker's id-sorted list). It is an automorphism of the model
 * when π_r only exchanges workers with *identical loads* (the same (time, size) list in id order).
 * SUBTLE: a description's `appendWorker` is not renamed (shapes.ts: opaque). The mint derives it from its
 * sequence number (vocab Description: appendWorker = seq mod workers) and nothing in the model reads it,
 * so a state with the workers permuted around an unchanged append worker has the permuted successors:
 * the append worker moves with the rest. The commutation and replay tests (symmetry.test.ts) hold this
 * and fail on a model that reads it. `appendWorkers: 'fixed'` keeps the smaller group that fixes every
 * present and future append worker (`fixedWorkers`), for comparison.
 * Replicas are always interchangeable (every replica writes the same desired collection).
 *
 * Canonical form by sorting: in each class of movable workers, workers are ordered by a key that
 * describes the worker without naming absolute indices (its own components with its update ids by rank
 * and others' as placeholders, and its role in shared components: whether its builder() call holds the
 * registry's lock, which batches hold its updates, receiver, deliverer, its hand, its history, its updates
 * in retired builders); ties keep their order. Replicas are then ordered by their
 * components. Keys and components are compared by content (value hashes, JSON text on a collision),
 * never by id: ids are first-sight order, another in every search and thread, so the representative of
 * an orbit is a function of its content alone — the same in every run, every thread of a parallel
 * search (parallel.ts) and every search of a swarm (swarm.ts). The result is a member of the orbit
 * (always sound); ties make it occasionally not the orbit's unique representative (fewer merges, never
 * wrong ones).
 */
import type { TraceEvent } from '../../vocab/index.ts';
import type { ModelConfig } from '../config.ts';
import { processOf, workersPerReplica } from '../config.ts';
import type { MintContext } from '../mint.ts';
import type { Local } from '../local.ts';
import type { ReplicaState, SystemState } from '../state.ts';
import type { Engine } from './engine.ts';
import { Interner, NULLABLE, SLOT_KINDS, type SlotKind } from './layout.ts';
import { GrowInts } from './tuple-set.ts';
import type { Reducer } from './search.ts';
import { COMPONENT_SHAPES, ENTRY_SHAPE, eventShape, type Shape } from './shapes.ts';
import { TupleMap } from './tuple-set.ts';

/** `replicas[r]` = where replica r goes; `workers[r][w]` = where worker w of (source) replica r goes. */
export interface Sym {
  readonly replicas: readonly number[];
  readonly workers: readonly (readonly number[])[];
}

export function identity(cfg: ModelConfig): Sym {
  const W = workersPerReplica(cfg);
  return {
    replicas: Array.from({ length: cfg.replicas }, (_, r) => r),
    workers: Array.from({ length: cfg.replicas }, () => Array.from({ length: W }, (_, w) => w)),
  };
}

/** (b ∘ a): first a, then b. */
export function compose(b: Sym, a: Sym): Sym {
  return {
    replicas: a.replicas.map((r) => b.replicas[r] as number),
    workers: a.workers.map((pi, r) => pi.map((w) => (b.workers[a.replicas[r] as number] as readonly number[])[w] as number)),
  };
}

export function inverse(g: Sym): Sym {
  const replicas = new Array<number>(g.replicas.length);
  const workers = new Array<number[]>(g.replicas.length);
  g.replicas.forEach((to, r) => {
    replicas[to] = r;
    const inv = new Array<number>(g.workers[r]?.length ?? 0);
    (g.workers[r] as readonly number[]).forEach((wTo, w) => {
      inv[wTo] = w;
    });
    workers[to] = inv;
  });
  return { replicas, workers };
}

const isIdentity = (g: Sym): boolean => g.replicas.every((r, i) => r === i) && g.workers.every((pi) => pi.every((w, i) => w === i));

// ---------------------------------------------------------------------------------------------------
// Loads and renaming

/** Per worker its update ids ascending, and per update its (worker, rank). */
export class Loads {
  readonly idsOf: readonly (readonly number[])[];
  private readonly owner = new Map<number, { readonly worker: number; readonly rank: number }>();
  /** Workers with equal signature strings are interchangeable (if in the same process). */
  readonly signature: readonly string[];

  constructor(readonly cfg: ModelConfig) {
    const W = workersPerReplica(cfg);
    const byWorker: { id: number; time: number; size: number }[][] = Array.from({ length: W }, () => []);
    for (const u of cfg.updates) byWorker[u.worker]?.push(u);
    for (const list of byWorker) list.sort((a, b) => a.id - b.id);
    this.idsOf = byWorker.map((list) => list.map((u) => u.id));
    byWorker.forEach((list, worker) => list.forEach((u, rank) => this.owner.set(u.id, { worker, rank })));
    this.signature = byWorker.map((list) => JSON.stringify(list.map((u) => [u.time, u.size])));
  }

  ownerOf(id: number): { readonly worker: number; readonly rank: number } {
    const o = this.owner.get(id);
    if (o === undefined) throw new Error(`update id ${id} is not in the configuration's workload`);
    return o;
  }

  /** The update `id` becomes when its worker moves by `pi`. */
  rename(id: number, pi: readonly number[]): number {
    const { worker, rank } = this.ownerOf(id);
    const into = pi[worker] as number;
    const to = this.idsOf[into]?.[rank];
    if (to === undefined || this.signature[into] !== this.signature[worker]) throw new Error(`worker ${worker} and worker ${into} do not have identical loads`);
    return to;
  }
}

function checkKeys(value: Record<string, unknown>, fields: Readonly<Record<string, Shape>>, where: string): void {
  for (const k of Object.keys(value)) {
    if (!(k in fields)) throw new Error(`model/packed/shapes.ts: ${where} has a field ${JSON.stringify(k)} its shape does not list`);
  }
  for (const k of Object.keys(fields)) {
    if (!(k in value)) throw new Error(`model/packed/shapes.ts: ${where} lacks the field ${JSON.stringify(k)} its shape lists`);
  }
}

/** Renames values by shapes.ts under one symmetry. */
export class Renamer {
  constructor(
    readonly cfg: ModelConfig,
    readonly loads: Loads,
  ) {}

  /** `value` of `shape`, inside (source) replica `r`, moved by `g`. */
  rename(shape: Shape, value: unknown, r: number, g: Sym, where = 'value'): unknown {
    const pi = g.workers[r] as readonly number[];
    switch (shape.t) {
      case 'opaque':
        return value;
      case 'worker':
        return value === null ? null : pi[value as number];
      case 'process':
        return processOf(this.cfg, pi[(value as number) * this.cfg.workersPerProcess] as number);
      case 'replica':
        return g.replicas[value as number];
      case 'ids':
        return (value as readonly number[]).map((id) => this.loads.rename(id, pi));
      case 'idSet':
        return (value as readonly number[]).map((id) => this.loads.rename(id, pi)).sort((a, b) => a - b);
      case 'byWorker': {
        const xs = value as readonly unknown[];
        const out = new Array<unknown>(xs.length);
        xs.forEach((x, w) => {
          out[pi[w] as number] = this.rename(shape.of, x, r, g, `${where}[${w}]`);
        });
        return out;
      }
      case 'byReplica': {
        const xs = value as readonly unknown[];
        const out = new Array<unknown>(xs.length);
        xs.forEach((x, q) => {
          out[g.replicas[q] as number] = this.rename(shape.of, x, q, g, `${where}[${q}]`);
        });
        return out;
      }
      case 'list':
        return (value as readonly unknown[]).map((x, i) => this.rename(shape.of, x, r, g, `${where}[${i}]`));
      case 'sortedByWorker': {
        const out = (value as readonly unknown[]).map((x, i) => this.rename(shape.of, x, r, g, `${where}[${i}]`) as { worker: number });
        return out.map((x, i) => [x, i] as const).sort((a, b) => a[0].worker - b[0].worker || a[1] - b[1]).map(([x]) => x);
      }
      case 'record': {
        const v = value as Record<string, unknown>;
        checkKeys(v, shape.fields, where);
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) out[k] = this.rename(shape.fields[k] as Shape, v[k], r, g, `${where}.${k}`);
        return out;
      }
      case 'nullable':
        return value === null ? null : this.rename(shape.of, value, r, g, where);
      case 'local': {
        const v = value as Local<unknown>;
        checkKeys(v as unknown as Record<string, unknown>, { value: { t: 'opaque' }, context: shape.context }, where);
        return { value: v.value, context: this.rename(shape.context, v.context, r, g, `${where}.context`) };
      }
      case 'ofReplica': {
        const v = value as Record<string, unknown>;
        return this.rename(shape.of, value, v[shape.field] as number, g, where);
      }
    }
  }

  component(kind: SlotKind, value: unknown, r: number, g: Sym): unknown {
    return this.rename(COMPONENT_SHAPES[kind], value, r, g, kind);
  }

  event(e: TraceEvent, g: Sym): TraceEvent {
    return this.rename(eventShape(e.kind), e, e.replica, g, e.kind) as TraceEvent;
  }

  /** A whole SystemState moved by `g` (tests, and the reference for the packed renaming). */
  state(s: SystemState, g: Sym): SystemState {
    const replicas = new Array<ReplicaState>(s.replicas.length);
    s.replicas.forEach((rep, r) => {
      const pi = g.workers[r] as readonly number[];
      const workers = new Array<unknown>(rep.workers.length);
      const handles = new Array<unknown>(rep.handles.length);
      rep.workers.forEach((wk, w) => {
        workers[pi[w] as number] = this.component('worker', wk, r, g);
        handles[pi[w] as number] = this.component('handle', rep.handles[w] ?? null, r, g);
      });
      replicas[g.replicas[r] as number] = {
        up: rep.up,
        incarnation: rep.incarnation,
        mint: this.component('mint', rep.mint, r, g),
        append: this.component('append', rep.append, r, g),
        superseded: this.component('superseded', rep.superseded, r, g),
        workers,
        handles,
        registries: rep.registries.map((reg) => ({
          sweep: this.component('sweep', reg.sweep, r, g),
          builders: reg.builders.map((b) => this.rename(ENTRY_SHAPE, b, r, g, 'builder')),
        })),
      } as unknown as ReplicaState;
    });
    const h = s.history;
    return {
      shard: s.shard,
      replicas,
      history: {
        appends: this.component('appends', h.appends, 0, g),
        shardUppers: h.shardUppers,
        finishesBegun: h.finishesBegun,
        finishesEnded: h.finishesEnded,
        ownBatches: h.ownBatches,
        deleted: h.deleted,
        faults: this.component('faults', h.faults, 0, g),
      },
    } as unknown as SystemState;
  }
}

// ---------------------------------------------------------------------------------------------------
// The group

export interface SymmetryOptions {
  /** Exchange workers with identical loads within a process (default true). */
  readonly workers?: boolean;
  /** Exchange replicas (default true). */
  readonly replicas?: boolean;
  /**
   * `move` (default): append workers move like any worker (nothing in the model reads them). `fixed`: the
   * group fixes every present and future append worker (`fixedWorkers`), a subgroup kept to compare the
   * two reductions side by side.
   */
  readonly appendWorkers?: 'move' | 'fixed';
}

/**
 * Workers of replica r that are or will be append workers (the `appendWorkers: 'fixed'` group keeps
 * them in place): the live description's and `(seq + j) mod P·W` for each description still to be
 * minted (at most `intervals − lower`, one fewer while one is live). With `restarts`
 * (the fault world may still abort), a restarted incarnation mints again from seq 0 at a lower no
 * smaller than this one: its append workers are among 0 … intervals − lower − 1 (mod P·W) too.
 */
export function fixedWorkers(mint: Local<MintContext>, restarts = false): number[] {
  const c = mint.context;
  const out = new Set<number>();
  if (c.live !== null) out.add(c.live.appendWorker);
  const future = c.intervals - c.lower - (c.live === null ? 0 : 1);
  for (let j = 0; j < Math.min(future, c.workers); j++) out.add((c.seq + j) % c.workers);
  if (restarts) for (let j = 0; j < Math.min(c.intervals - c.lower, c.workers); j++) out.add(j % c.workers);
  return [...out].sort((a, b) => a - b);
}

/** Classes of workers with identical loads in the same process (each sorted; singletons omitted). */
export function loadClasses(cfg: ModelConfig, loads: Loads): number[][] {
  const classes = new Map<string, number[]>();
  loads.signature.forEach((sig, w) => {
    const key = `${processOf(cfg, w)}|${sig}`;
    const c = classes.get(key);
    if (c === undefined) classes.set(key, [w]);
    else c.push(w);
  });
  return [...classes.values()].filter((c) => c.length > 1);
}

/** Whether `g` is in the symmetry group at `s` (so it is an automorphism from `s` on). */
export function inGroup(cfg: ModelConfig, loads: Loads, s: SystemState, g: Sym, appendWorkers: 'move' | 'fixed' = 'move'): boolean {
  return s.replicas.every((rep, r) => {
    const pi = g.workers[r] as readonly number[];
    const fixed = appendWorkers === 'fixed' ? fixedWorkers(rep.mint, (cfg.faults?.aborts ?? 0) > 0) : [];
    return pi.every((to, w) => processOf(cfg, to) === processOf(cfg, w) && loads.signature[to] === loads.signature[w]) && fixed.every((w) => pi[w] === w);
  });
}

// ---------------------------------------------------------------------------------------------------
// Sorting keys: a worker described without absolute indices

/**
 * `value` of `shape` as seen by worker `self` of replica `r`: its own update ids by rank (`o0`, `o1` …),
 * everyone else's as `x`; worker fields as `self` / `other`; worker-indexed arrays reduced to `self`'s
 * element; id sets reduced to the ranks of `self`'s ids in them (ascending order is not equivariant);
 * records sorted by worker reduced to the multiset of what they say about `self`.
 */
function describe(shape: Shape, value: unknown, self: number, r: number, loads: Loads, full: boolean): unknown {
  switch (shape.t) {
    case 'opaque':
      return full ? value : undefined;
    case 'worker':
      return value === null ? null : value === self ? 'self' : full ? 'other' : undefined;
    case 'process':
    case 'replica':
      return full ? value : undefined;
    case 'ids': {
      const xs = value as readonly number[];
      const out = new Array<string>(xs.length);
      for (let i = 0; i < xs.length; i++) out[i] = rankOf(loads, xs[i] as number, self);
      return out;
    }
    case 'idSet': {
      const xs = value as readonly number[];
      const mine: string[] = [];
      for (const x of xs) {
        const o = rankOf(loads, x, self);
        if (o !== 'x') mine.push(o);
      }
      mine.sort();
      return full ? [mine, xs.length] : mine;
    }
    case 'byWorker':
      return describe(shape.of, (value as readonly unknown[])[self], self, r, loads, true);
    case 'byReplica':
      return full ? value : undefined;
    case 'list': {
      const xs = value as readonly unknown[];
      const out = new Array<unknown>(xs.length);
      for (let i = 0; i < xs.length; i++) out[i] = describe(shape.of, xs[i], self, r, loads, full);
      return out;
    }
    case 'sortedByWorker': {
      const out: string[] = [];
      for (const x of value as readonly { worker: number }[]) out.push(JSON.stringify(describe(shape.of, x, self, r, loads, x.worker === self)));
      return out.sort();
    }
    case 'record': {
      const v = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k in shape.fields) out[k] = describe(shape.fields[k] as Shape, v[k], self, r, loads, full);
      return out;
    }
    case 'nullable':
      return value === null ? null : describe(shape.of, value, self, r, loads, full);
    case 'local': {
      const v = value as Local<unknown>;
      return [full ? v.value : undefined, describe(shape.context, v.context, self, r, loads, full)];
    }
    case 'ofReplica':
      return (value as Record<string, unknown>)[shape.field] === r ? describe(shape.of, value, self, r, loads, full) : null;
  }
}

/** Whether values of `shape` may hold a worker index or an update id (so a worker symmetry may change them). */
function namesWorkers(shape: Shape): boolean {
  switch (shape.t) {
    case 'opaque':
    case 'replica':
      return false;
    case 'worker':
    case 'process':
    case 'ids':
    case 'idSet':
    case 'byWorker':
    case 'sortedByWorker':
      return true;
    case 'byReplica':
    case 'list':
    case 'nullable':
    case 'ofReplica':
      return namesWorkers(shape.of);
    case 'record':
      return Object.values(shape.fields).some(namesWorkers);
    case 'local':
      return namesWorkers(shape.context);
  }
}

/** `self`'s own update ids by rank (`o0` …); anyone else's as `x`. */
function rankOf(loads: Loads, id: number, self: number): string {
  const o = loads.ownerOf(id);
  return o.worker === self ? `o${o.rank}` : 'x';
}

// ---------------------------------------------------------------------------------------------------
// The reducer

const NONE: number[] = [];
/** The most permutations `orbitSize` tries for the cells whose swaps do not all fix a state. */
const MAX_TRIED = 40_320;
const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));
function permutations(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}
const KIND_INDEX = new Map<SlotKind, number>(SLOT_KINDS.map((k, i) => [k, i]));

export class SymmetryReducer implements Reducer {
  readonly description: string;
  private readonly cfg: ModelConfig;
  private readonly loads: Loads;
  private readonly renamer: Renamer;
  private readonly classes: number[][];
  private readonly syms: Sym[] = [];
  private readonly symIds = new Map<string, number>();
  private readonly fixedMemo = new Map<number, number[]>();
  /** Descriptions by id (equal descriptions, equal ids). */
  private readonly parts = new Interner();
  /** ownParts[0 worker | 1 handle][w][component id] = part id. */
  private readonly ownParts: [number[][], number[][]];
  /** Per replica, per shared slot: component id → what it says about each worker (-1: not yet described). */
  private readonly roleBySlot: (Int32Array | undefined)[][][];
  private readonly movableMemo = new Map<number, readonly (readonly number[])[]>();
  /** Per replica, per process: the shared slots whose roles enter a worker's key. */
  private readonly sharedByReplica: readonly (readonly (readonly number[])[])[];
  private readonly keyWidth: number;
  private readonly keys: Int32Array;
  private readonly flat: Int32Array;
  private readonly flatIds = new TupleMap(10);
  private readonly order: number[] = [];
  /** Per (slot kind, replica), per symmetry id: component id → its renamed id + 1 (0: not yet). */
  private readonly renameTables: GrowInts[][];
  /** Per slot: its kind's index, and whether id 0 is null. */
  private readonly slotKind: Uint8Array;
  private readonly slotNullable: Uint8Array;
  /** Replica 0's slots (but workers and handles) and the history's whose components may name a worker or an update. */
  private readonly namingWorkers: readonly number[];
  /** Per process: the key columns a sort compares for the state at hand (`workerKeys`), and how many. */
  private readonly cols: Int32Array[];
  private readonly colCount: Int32Array;
  private readonly out: Int32Array;
  private readonly withWorkers: boolean;
  private readonly withReplicas: boolean;
  private readonly fixAppendWorkers: boolean;

  constructor(
    readonly engine: Engine,
    opts: SymmetryOptions = {},
  ) {
    this.cfg = engine.cfg;
    this.loads = new Loads(this.cfg);
    this.renamer = new Renamer(this.cfg, this.loads);
    this.classes = loadClasses(this.cfg, this.loads);
    this.withWorkers = opts.workers !== false && this.classes.length > 0;
    this.withReplicas = opts.replicas !== false && this.cfg.replicas > 1;
    this.fixAppendWorkers = opts.appendWorkers === 'fixed';
    const L = engine.layout;
    this.renameTables = Array.from({ length: SLOT_KINDS.length * this.cfg.replicas }, () => []);
    this.slotKind = Uint8Array.from(L.kinds, (k) => KIND_INDEX.get(k) as number);
    this.slotNullable = Uint8Array.from(L.kinds, (k) => (NULLABLE.has(k) ? 1 : 0));
    const moving = new Set([...L.workersOf(0), ...L.workersOf(0).map((w) => w + 1)]);
    this.namingWorkers = L.kinds.flatMap((k, slot) =>
      !moving.has(slot) && (slot < L.up(0) + L.replicaSpan || L.historySlots.includes(slot)) && namesWorkers(COMPONENT_SHAPES[k]) ? [slot] : [],
    );
    this.ownParts = [Array.from({ length: L.workers }, () => []), Array.from({ length: L.workers }, () => [])];
    this.sharedByReplica = Array.from({ length: this.cfg.replicas }, (_, r) =>
      Array.from({ length: this.cfg.processes }, (_, p) => [L.sweep(r, p), ...L.entriesOf(r, p), L.append(r), L.superseded(r), L.appends, L.faults]),
    );
    this.keyWidth = 2 + 1 + L.ids * (1 + L.instances) + 4;
    this.cols = Array.from({ length: this.cfg.processes }, () => new Int32Array(this.keyWidth));
    this.colCount = new Int32Array(this.cfg.processes);
    this.roleBySlot = Array.from({ length: this.cfg.replicas }, () => Array.from({ length: L.slots }, () => []));
    this.keys = new Int32Array(this.keyWidth * L.workers);
    this.flat = new Int32Array(this.cfg.replicas * L.workers);
    this.out = new Int32Array(L.slots);
    this.intern(identity(this.cfg));
    const what: string[] = [];
    if (this.withWorkers) what.push(`workers with identical loads (classes ${this.classes.map((c) => `{${c.join(',')}}`).join(' ')}, ${this.fixAppendWorkers ? 'append workers fixed' : 'append workers move too'})`);
    if (this.withReplicas) what.push(`${this.cfg.replicas} replicas`);
    this.description = what.length === 0 ? 'symmetry: none applies' : `symmetry: ${what.join('; ')}`;
  }

  /** How many distinct symmetries were used. */
  get used(): number {
    return this.syms.length;
  }

  sym(id: number): Sym {
    const g = this.syms[id];
    if (g === undefined) throw new RangeError(`unknown symmetry id ${id}`);
    return g;
  }

  private intern(g: Sym): number {
    const key = JSON.stringify(g);
    const hit = this.symIds.get(key);
    if (hit !== undefined) return hit;
    this.syms.push(g);
    this.symIds.set(key, this.syms.length - 1);
    return this.syms.length - 1;
  }

  private value(slot: number, id: number): unknown {
    return this.engine.codec.value(slot, id);
  }

  /** The workers of replica r the group fixes at mint `mintId` (none unless `appendWorkers: 'fixed'`). */
  private fixed(mintId: number, r: number): number[] {
    if (!this.fixAppendWorkers) return NONE;
    let f = this.fixedMemo.get(mintId);
    if (f === undefined) {
      f = fixedWorkers(this.value(this.engine.layout.mint(r), mintId) as Local<MintContext>, (this.cfg.faults?.aborts ?? 0) > 0);
      this.fixedMemo.set(mintId, f);
    }
    return f;
  }

  /** The id of a described value (equal descriptions, equal ids: equivariant by construction). */
  private describedId(kind: SlotKind, value: unknown, self: number, r: number, full: boolean): number {
    return this.parts.intern(describe(COMPONENT_SHAPES[kind], value, self, r, this.loads, full));
  }

  /** What worker `w`'s own component (worker or handle) `id` says, with its update ids by rank. */
  private ownPart(kindIndex: 0 | 1, id: number, w: number, r: number): number {
    const table = this.ownParts[kindIndex][w] as number[];
    const hit = table[id];
    if (hit !== undefined) return hit;
    const kind = kindIndex === 0 ? 'worker' : 'handle';
    const slot = kindIndex === 0 ? this.engine.layout.worker(r, w) : this.engine.layout.handle(r, w);
    const p = this.describedId(kind, this.value(slot, id), w, r, true);
    table[id] = p;
    return p;
  }

  /**
   * For a shared component (sweep, builder, append, history appends): what it says about worker `w` of
   * replica r. Memoized per (slot, id) and worker, and computed only when a sort compares it: two
   * workers whose own components differ never look at their roles (describing every worker's role for
   * every new builder value was an eighth of the search).
   */
  private role(slot: number, id: number, r: number, w: number): number {
    // (per replica too: a slot shared by the replicas, the history's appends, says something else to each)
    const table = (this.roleBySlot[r] as (Int32Array | undefined)[][])[slot] as (Int32Array | undefined)[];
    let roles = table[id];
    if (roles === undefined) {
      roles = new Int32Array(this.engine.layout.workers).fill(-1);
      table[id] = roles;
    }
    const hit = roles[w] as number;
    if (hit >= 0) return hit;
    const kind = this.engine.layout.kinds[slot] as SlotKind;
    const p = this.describedId(kind, this.value(slot, id), w, r, false);
    roles[w] = p;
    return p;
  }

  /** Fills `keys` (row per worker of replica r, `width` ints) with each worker's own parts; the shared
   * columns are -1 until `before` needs them (`keyAt`). */
  private workerKeys(vec: Int32Array, r: number, keys: Int32Array, width: number): void {
    const L = this.engine.layout;
    const W = L.workers;
    this.keyVec = vec;
    this.keyReplica = r;
    // the columns a sort compares: own parts, and shared slots that are not null (a null one says the
    // same — nothing — about every worker)
    for (let p = 0; p < this.cfg.processes; p++) {
      const cols = this.cols[p] as Int32Array;
      const slots = (this.sharedByReplica[r] as readonly (readonly number[])[])[p] as readonly number[];
      let n = 0;
      cols[n++] = 0;
      cols[n++] = 1;
      for (let k = 0; k < slots.length; k++) {
        const slot = slots[k] as number;
        if ((vec[slot] as number) !== 0 || this.slotNullable[slot] === 0) cols[n++] = 2 + k;
      }
      this.colCount[p] = n;
    }
    for (let w = 0; w < W; w++) {
      keys[w * width] = this.ownPart(0, vec[L.worker(r, w)] as number, w, r);
      keys[w * width + 1] = this.ownPart(1, vec[L.handle(r, w)] as number, w, r);
      for (let i = 2; i < width; i++) keys[w * width + i] = -1;
    }
  }

  /** Column i of worker w's key (computing a role on first use). */
  private keyAt(keys: Int32Array, width: number, w: number, i: number): number {
    const k = keys[w * width + i] as number;
    if (k >= 0) return k;
    const r = this.keyReplica;
    const p = Math.floor(w / this.cfg.workersPerProcess);
    const slots = (this.sharedByReplica[r] as readonly (readonly number[])[])[p] as readonly number[];
    const slot = slots[i - 2];
    if (slot === undefined) throw new RangeError(`symmetry: key column ${i} is beyond the ${slots.length} shared slots of process ${p}`);
    const role = this.role(slot, this.keyVec[slot] as number, r, w);
    keys[w * width + i] = role;
    return role;
  }

  private keyVec: Int32Array = new Int32Array(0);
  private keyReplica = 0;

  /** Per class, its workers not in `fixed` (memoized by the fixed set). */
  private movableOf(fixed: readonly number[]): readonly (readonly number[])[] {
    let mask = 0;
    for (const w of fixed) mask |= 1 << (w & 31);
    const key = fixed.length === 0 ? 0 : mask;
    let hit = this.movableMemo.get(key);
    if (hit === undefined || fixed.some((w) => w >= 31)) {
      hit = this.classes.map((cls) => cls.filter((w) => !fixed.includes(w)));
      if (fixed.every((w) => w < 31)) this.movableMemo.set(key, hit);
    }
    return hit;
  }

  /** Component `id` of slot `slot` (of replica r) renamed by symmetry `symId` (null stays null). */
  private renamed(slot: number, id: number, r: number, symId: number): number {
    if (id === 0 && this.slotNullable[slot] === 1) return 0;
    const byKind = this.renameTables[(this.slotKind[slot] as number) * this.cfg.replicas + r] as GrowInts[];
    let table = byKind[symId];
    if (table === undefined) {
      table = new GrowInts();
      byKind[symId] = table;
    }
    while (table.length <= id) table.push(0);
    const hit = table.data[id] as number;
    if (hit > 0) return hit - 1;
    const kind = this.engine.layout.kinds[slot] as SlotKind;
    const v = this.renamer.component(kind, this.value(slot, id), r, this.sym(symId));
    const to = this.engine.codec.tables[kind].intern(v);
    table.data[id] = to + 1;
    return to;
  }

  /** `vec` moved by symmetry `symId`, written to `out`. */
  apply(vec: Int32Array, symId: number, out: Int32Array): void {
    const L = this.engine.layout;
    const g = this.sym(symId);
    for (let r = 0; r < this.cfg.replicas; r++) {
      const to = g.replicas[r] as number;
      const pi = g.workers[r] as readonly number[];
      out[L.up(to)] = vec[L.up(r)] as number;
      out[L.incarnation(to)] = vec[L.incarnation(r)] as number;
      out[L.mint(to)] = this.renamed(L.mint(r), vec[L.mint(r)] as number, r, symId);
      out[L.append(to)] = this.renamed(L.append(r), vec[L.append(r)] as number, r, symId);
      out[L.superseded(to)] = this.renamed(L.superseded(r), vec[L.superseded(r)] as number, r, symId);
      for (let p = 0; p < this.cfg.processes; p++) {
        // the sweep names the worker whose builder() call holds the registry's lock
        out[L.sweep(to, p)] = this.renamed(L.sweep(r, p), vec[L.sweep(r, p)] as number, r, symId);
        for (let id = 0; id < L.ids; id++) {
          const from = L.builder(r, p, id);
          const into = L.builder(to, p, id);
          for (let j = 0; j <= L.instances; j++) out[into + j] = this.renamed(from + j, vec[from + j] as number, r, symId);
        }
      }
      for (let w = 0; w < L.workers; w++) {
        out[L.worker(to, pi[w] as number)] = this.renamed(L.worker(r, w), vec[L.worker(r, w)] as number, r, symId);
        out[L.handle(to, pi[w] as number)] = this.renamed(L.handle(r, w), vec[L.handle(r, w)] as number, r, symId);
      }
    }
    out[L.shard] = vec[L.shard] as number;
    out[L.appends] = this.renamed(L.appends, vec[L.appends] as number, 0, symId);
    out[L.faults] = this.renamed(L.faults, vec[L.faults] as number, 0, symId);
    for (const s of [L.shardUppers, L.finishesBegun, L.finishesEnded, L.ownBatches, L.deleted]) out[s] = vec[s] as number;
  }

  canonicalize(vec: Int32Array): number {
    const L = this.engine.layout;
    let symId = 0;
    if (this.withWorkers) {
      let moved = false;
      const width = this.keyWidth;
      const keys = this.keys;
      const flat = this.flat;
      for (let r = 0; r < this.cfg.replicas; r++) {
        for (let w = 0; w < L.workers; w++) flat[r * L.workers + w] = w;
        const movables = this.movableOf(this.fixed(vec[L.mint(r)] as number, r));
        let keysReady = false;
        for (const movable of movables) {
          if (movable.length < 2) continue;
          if (!keysReady) {
            this.workerKeys(vec, r, keys, width);
            keysReady = true;
          }
          // insertion sort of the class's workers by key (then index): classes are small
          const order = this.order;
          order.length = 0;
          for (const w of movable) {
            let i = order.length;
            order.push(w);
            while (i > 0 && this.before(keys, width, w, order[i - 1] as number)) {
              order[i] = order[i - 1] as number;
              i -= 1;
            }
            order[i] = w;
          }
          for (let i = 0; i < order.length; i++) {
            const w = order[i] as number;
            const to = movable[i] as number;
            flat[r * L.workers + w] = to;
            if (to !== w) moved = true;
          }
        }
      }
      if (moved) {
        symId = this.internFlat(flat);
        this.apply(vec, symId, this.out);
        vec.set(this.out);
      }
    }
    if (this.withReplicas) {
      const span = L.replicaSpan;
      const order = Array.from({ length: this.cfg.replicas }, (_, r) => r);
      // (ordered as workers are: see `before`)
      const tables = this.engine.codec.tables;
      const cmp = (a: number, b: number): number => {
        const ba = L.up(a);
        const bb = L.up(b);
        for (let i = 0; i < span; i++) {
          const x = vec[ba + i] as number;
          const y = vec[bb + i] as number;
          const d = tables[L.kinds[ba + i] as SlotKind].compare(x, y);
          if (d !== 0) return d;
        }
        return a - b;
      };
      order.sort(cmp);
      if (order.some((r, i) => r !== i)) {
        const replicas = new Array<number>(this.cfg.replicas);
        order.forEach((r, i) => {
          replicas[r] = i;
        });
        const g: Sym = { replicas, workers: identity(this.cfg).workers };
        const rid = this.intern(g);
        this.apply(vec, rid, this.out);
        vec.set(this.out);
        symId = this.intern(compose(g, this.sym(symId)));
      }
    }
    return symId;
  }

  /**
   * How many states the orbit of representative `vec` holds: |G| / |Stab(vec)|, with G the worker
   * symmetries at `vec` (null with replicas: not computed). A symmetry fixing `vec` maps each worker to
   * one with the same sort key, so it permutes each cell of workers with equal keys; a cell whose
   * adjacent swaps all fix `vec` contributes all its permutations (k!), the rest are counted by trying
   * every permutation of them (null when there would be more than `MAX_TRIED`).
   */
  orbitSize(vec: Int32Array): number | null {
    if (this.withReplicas) return null;
    if (!this.withWorkers) return 1;
    const L = this.engine.layout;
    const width = this.keyWidth;
    const keys = this.keys;
    const movables = this.movableOf(this.fixed(vec[L.mint(0)] as number, 0));
    this.workerKeys(vec, 0, keys, width);
    let group = 1;
    let stab = 1;
    const open: number[][] = [];
    for (const movable of movables) {
      group *= factorial(movable.length);
      let start = 0;
      for (let i = 1; i <= movable.length; i++) {
        if (i < movable.length && this.sameKey(keys, width, movable[i - 1] as number, movable[i] as number)) continue;
        const cell = movable.slice(start, i);
        start = i;
        if (cell.length < 2) continue;
        if (cell.every((w, j) => j === 0 || this.fixes(vec, [[cell[j - 1] as number, w]]))) stab *= factorial(cell.length);
        else open.push(cell);
      }
    }
    if (open.length > 0) {
      const tried = open.reduce((n, c) => n * factorial(c.length), 1);
      if (tried > MAX_TRIED) return null;
      let fixing = 0;
      const each = (k: number, moves: [number, number][]): void => {
        if (k === open.length) {
          if (this.fixes(vec, moves)) fixing += 1;
          return;
        }
        const cell = open[k] as number[];
        for (const p of permutations(cell)) each(k + 1, [...moves, ...cell.map((w, j) => [w, p[j] as number] as [number, number])]);
      };
      each(0, []);
      stab *= fixing;
    }
    return group / stab;
  }

  /** Whether moving workers of replica 0 as `moves` says ([from, to] pairs; a pair alone: a swap) leaves `vec` as it is. */
  private fixes(vec: Int32Array, moves: readonly (readonly [number, number])[]): boolean {
    const flat = this.flat;
    const W = this.engine.layout.workers;
    for (let w = 0; w < W; w++) flat[w] = w;
    if (moves.length === 1) {
      const [a, b] = moves[0] as readonly [number, number];
      flat[a] = b;
      flat[b] = a;
    } else for (const [from, to] of moves) flat[from] = to;
    const id = this.internFlat(flat);
    // vec moved by it, compared slot by slot as `apply` would write it (replica 0; components that name
    // no worker or update stay as they are)
    const L = this.engine.layout;
    for (let w = 0; w < W; w++) {
      const to = flat[w] as number;
      if (this.renamed(L.worker(0, w), vec[L.worker(0, w)] as number, 0, id) !== vec[L.worker(0, to)]) return false;
      if (this.renamed(L.handle(0, w), vec[L.handle(0, w)] as number, 0, id) !== vec[L.handle(0, to)]) return false;
    }
    for (const slot of this.namingWorkers) if (this.renamed(slot, vec[slot] as number, 0, id) !== vec[slot]) return false;
    return true;
  }

  /** Whether workers a and b have equal sort keys (every column). */
  private sameKey(keys: Int32Array, width: number, a: number, b: number): boolean {
    const p = Math.floor(a / this.cfg.workersPerProcess);
    const cols = this.cols[p] as Int32Array;
    for (let c = 0; c < (this.colCount[p] as number); c++) {
      const i = cols[c] as number;
      if (this.parts.compare(this.keyAt(keys, width, a, i), this.keyAt(keys, width, b, i)) !== 0) return false;
    }
    return true;
  }

  /** Worker a's key sorts before worker b's, by what the keys describe (ties: by index). */
  private before(keys: Int32Array, width: number, a: number, b: number): boolean {
    const p = Math.floor(a / this.cfg.workersPerProcess);
    const cols = this.cols[p] as Int32Array;
    const n = this.colCount[p] as number;
    for (let c = 0; c < n; c++) {
      const i = cols[c] as number;
      const x = this.keyAt(keys, width, a, i);
      const y = this.keyAt(keys, width, b, i);
      const d = this.parts.compare(x, y);
      if (d !== 0) return d < 0;
    }
    return a < b;
  }

  /** The id of the worker-only symmetry whose `flat[r·W + w]` is where worker w of replica r goes. */
  private internFlat(flat: Int32Array): number {
    const hit = this.flatIds.get(flat, flat.length);
    if (hit >= 0) return hit;
    const W = this.engine.layout.workers;
    const g: Sym = {
      replicas: Array.from({ length: this.cfg.replicas }, (_, r) => r),
      workers: Array.from({ length: this.cfg.replicas }, (_, r) => Array.from(flat.subarray(r * W, (r + 1) * W))),
    };
    const id = this.intern(g);
    this.flatIds.set(flat, flat.length, id);
    return id;
  }

  unpermute(events: readonly TraceEvent[], syms: readonly number[]): TraceEvent[] {
    return unpermuteWith(
      this.renamer,
      events,
      syms.map((id) => this.sym(id)),
    );
  }
}

/**
 * The real trace of `events` taken between representatives: `syms[0]` took the initial state to its
 * representative, `syms[k + 1]` was applied after `events[k]` (a missing one is the identity).
 */
export function unpermuteWith(renamer: Renamer, events: readonly TraceEvent[], syms: readonly Sym[]): TraceEvent[] {
  const id = identity(renamer.cfg);
  let total = syms[0] ?? id;
  return events.map((e, k) => {
    const real = isIdentity(total) ? e : renamer.event(e, inverse(total));
    total = compose(syms[k + 1] ?? id, total);
    return real;
  });
}
