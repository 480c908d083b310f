/**
 * The packed state: a `SystemState` (state.ts) cut into its components, each replaced by a small integer
 * (its id in that component kind's intern table).
 *
 * A component is one machine's `Local` (mint, append, worker, handle, sweep) or one field of a replica,
 * the shard or the history; a builder entry is cut in two kinds: its header (`builder`: the builder's
 * `Local` without its instances) and one `instance` slot per instance it may have (one per worker of the
 * process: each opens once per description). Slots, per replica r: up, incarnation, mint, append,
 * superseded (a superseded description and its append, or null), then per process p its sweep and per
 * batch id (ids < intervals: lowers strictly increase, so an incarnation mints at most K descriptions)
 * the entry's header and instance slots, then per worker w its worker and handle; after the replicas:
 * shard and the seven history fields (the last, `faults`, is the fault world's).
 *
 * `materialize` rebuilds a SystemState from a packed vector. Given a read set, it builds every other
 * component as a *guard*: a Proxy that throws `ReadSetError` on any property access, arithmetic or
 * serialization. `extract` turns a predicted next state back into slot writes, and refuses a state in
 * which a guard moved to another slot. That is how read-sets.ts's table is verified on every cache miss.
 *
 * Invariants:
 * - the same component value has the same id wherever it sits (intern tables are per kind, not per slot);
 * - id 0 of a nullable kind (append, superseded, handle, builder, instance) is `null`;
 * - a registry's `builders` never ends in `null` (system.ts pads with null only below the id it sets),
 *   so the slots determine the array; `pack` throws otherwise. A materialization with undeclared builder
 *   slots has one element per id (guards where undeclared): only `withBuilder`'s padding reads the length.
 * - an entry's instances fill its instance slots from the first (the rest null); an entry's slots are
 *   declared (read) together or not at all, and its header slot's guard stands for the whole entry.
 */
import type { ModelConfig } from '../config.ts';
import { workersPerReplica } from '../config.ts';
import type { BuilderContext } from '../builder.ts';
import type { Local } from '../local.ts';
import type { History, Registry, ReplicaState, SystemState } from '../state.ts';

/** A builder entry as the model holds it (null: none). */
type Entry = Local<BuilderContext> | null;

export const SLOT_KINDS = [
  'up',
  'incarnation',
  'mint',
  'append',
  'superseded',
  'worker',
  'handle',
  'sweep',
  'builder',
  'instance',
  'shard',
  'appends',
  'shardUppers',
  'finishesBegun',
  'finishesEnded',
  'ownBatches',
  'deleted',
  'faults',
] as const;
export type SlotKind = (typeof SLOT_KINDS)[number];

/** History counters: a slot of these kinds holds the number itself (no intern table). */
export const COUNTER_KINDS: ReadonlySet<SlotKind> = new Set(['finishesBegun', 'finishesEnded', 'ownBatches', 'deleted', 'incarnation']);

const HISTORY_FIELDS = ['appends', 'shardUppers', 'finishesBegun', 'finishesEnded', 'ownBatches', 'deleted', 'faults'] as const;
/** Kinds whose id 0 is `null`. */
export const NULLABLE: ReadonlySet<SlotKind> = new Set(['append', 'superseded', 'handle', 'builder', 'instance']);

/** A read of a component the read set did not declare (read-sets.ts). */
export class ReadSetError extends Error {
  override readonly name = 'ReadSetError';
}

/** Slot arithmetic for one configuration. */
export class Layout {
  readonly workers: number;
  readonly ids: number;
  readonly kinds: SlotKind[] = [];
  readonly labels: string[] = [];
  private readonly replicaBase: number[] = [];
  readonly shard: number;
  readonly appends: number;
  readonly shardUppers: number;
  readonly finishesBegun: number;
  readonly finishesEnded: number;
  readonly ownBatches: number;
  readonly deleted: number;
  readonly faults: number;
  /** Header slots of every builder entry. */
  readonly allBuilders: readonly number[];
  /** Every slot of every builder entry (the view reads them all). */
  readonly allEntries: readonly number[];
  /** Instance slots per entry: the most instances an entry may have (one per worker of its process). */
  readonly instances: number;
  readonly historySlots: readonly number[];
  /** Every replica's `up` and `incarnation`: every event and actor reads these (they are copied by
   * system.ts's withReplica, and booleans cannot be guarded). */
  readonly status: readonly number[];

  constructor(readonly cfg: ModelConfig) {
    this.workers = workersPerReplica(cfg);
    this.ids = cfg.intervals;
    this.instances = cfg.workersPerProcess;
    const builders: number[] = [];
    const entries: number[] = [];
    const status: number[] = [];
    for (let r = 0; r < cfg.replicas; r++) {
      status.push(this.kinds.length, this.kinds.length + 1);
      this.push('up', `r${r}.up`);
      this.push('incarnation', `r${r}.incarnation`);
      this.replicaBase.push(this.kinds.length);
      this.push('mint', `r${r}.mint`);
      this.push('append', `r${r}.append`);
      this.push('superseded', `r${r}.superseded`);
      for (let p = 0; p < cfg.processes; p++) {
        this.push('sweep', `r${r}.p${p}.sweep`);
        for (let id = 0; id < this.ids; id++) {
          builders.push(this.kinds.length);
          entries.push(this.push('builder', `r${r}.p${p}.builders[${id}]`));
          for (let j = 0; j < this.instances; j++) entries.push(this.push('instance', `r${r}.p${p}.builders[${id}].instances[${j}]`));
        }
      }
      for (let w = 0; w < this.workers; w++) {
        this.push('worker', `r${r}.workers[${w}]`);
        this.push('handle', `r${r}.handles[${w}]`);
      }
    }
    this.allBuilders = builders;
    this.allEntries = entries;
    this.status = status;
    this.shard = this.push('shard', 'shard');
    this.appends = this.push('appends', 'history.appends');
    this.shardUppers = this.push('shardUppers', 'history.shardUppers');
    this.finishesBegun = this.push('finishesBegun', 'history.finishesBegun');
    this.finishesEnded = this.push('finishesEnded', 'history.finishesEnded');
    this.ownBatches = this.push('ownBatches', 'history.ownBatches');
    this.deleted = this.push('deleted', 'history.deleted');
    this.faults = this.push('faults', 'history.faults');
    this.historySlots = [this.appends, this.shardUppers, this.finishesBegun, this.finishesEnded, this.ownBatches, this.deleted, this.faults];
  }

  private push(kind: SlotKind, label: string): number {
    this.kinds.push(kind);
    this.labels.push(label);
    return this.kinds.length - 1;
  }

  get slots(): number {
    return this.kinds.length;
  }

  isCounter(slot: number): boolean {
    return COUNTER_KINDS.has(this.kinds[slot] as SlotKind);
  }

  up(r: number): number {
    return this.base(r) - 2;
  }
  incarnation(r: number): number {
    return this.base(r) - 1;
  }
  mint(r: number): number {
    return this.base(r);
  }
  append(r: number): number {
    return this.base(r) + 1;
  }
  superseded(r: number): number {
    return this.base(r) + 2;
  }
  /** Slots per process: its sweep, then each entry's header and instances. */
  private get perProcess(): number {
    return 1 + this.ids * (1 + this.instances);
  }
  /** Slots from a replica's `up` to its last handle. */
  get replicaSpan(): number {
    return 5 + this.cfg.processes * this.perProcess + 2 * this.workers;
  }
  sweep(r: number, p: number): number {
    return this.base(r) + 3 + p * this.perProcess;
  }
  /** The header slot of entry (r, p, id). */
  builder(r: number, p: number, id: number): number {
    if (!Number.isInteger(id) || id < 0 || id >= this.ids) {
      throw new RangeError(`batch id ${id} is outside the packed layout (ids < intervals = ${this.ids})`);
    }
    return this.sweep(r, p) + 1 + id * (1 + this.instances);
  }
  /** Instance slot j of entry (r, p, id). */
  instance(r: number, p: number, id: number, j: number): number {
    return this.builder(r, p, id) + 1 + j;
  }
  /** Every slot of entry (r, p, id): its header, then its instances. */
  entry(r: number, p: number, id: number): number[] {
    const h = this.builder(r, p, id);
    return Array.from({ length: 1 + this.instances }, (_, j) => h + j);
  }
  /** Every slot of every entry of registry (r, p). */
  entriesOf(r: number, p: number): number[] {
    return Array.from({ length: this.ids }, (_, id) => this.entry(r, p, id)).flat();
  }
  /** Where builder slot `slot` sits: its replica, process and batch id. */
  builderAt(slot: number): { readonly r: number; readonly p: number; readonly id: number } {
    if (this.kinds[slot] !== 'builder') throw new RangeError(`${this.labels[slot] ?? slot} is not a builder slot`);
    for (let r = 0; r < this.cfg.replicas; r++) {
      for (let p = 0; p < this.cfg.processes; p++) {
        const off = slot - this.sweep(r, p) - 1;
        const id = off / (1 + this.instances);
        if (Number.isInteger(id) && id >= 0 && id < this.ids) return { r, p, id };
      }
    }
    throw new RangeError(`builder slot ${slot} is outside the layout`);
  }
  /** The header slots of registry (r, p)'s entries. */
  buildersOf(r: number, p: number): number[] {
    return Array.from({ length: this.ids }, (_, id) => this.builder(r, p, id));
  }
  worker(r: number, w: number): number {
    return this.base(r) + 3 + this.cfg.processes * this.perProcess + 2 * w;
  }
  handle(r: number, w: number): number {
    return this.worker(r, w) + 1;
  }
  workersOf(r: number): number[] {
    return Array.from({ length: this.workers }, (_, w) => this.worker(r, w));
  }

  private base(r: number): number {
    const b = this.replicaBase[r];
    if (b === undefined) throw new RangeError(`replica ${r} is outside the packed layout (replicas: ${this.cfg.replicas})`);
    return b;
  }
}

/**
 * Component values by id, one table per kind; ids are assigned by first sight. Keyed by a structural
 * hash of the value (`hashValue`: no string is built, and the value itself is the only copy kept), equal
 * values found by deep equality (`sameValue`) within a bucket.
 */
export class Interner {
  /** Counters: the id is the number itself. */
  constructor(private readonly counter = false) {}
  private readonly byHash = new Map<number, number>();
  private readonly collisions = new Map<number, number[]>();
  readonly values: unknown[] = [];
  intern(value: unknown): number {
    if (this.counter) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
        throw new RangeError(`a history counter must be a non-negative int32, got ${String(value)}`);
      }
      return value;
    }
    const h = hashValue(value);
    const first = this.byHash.get(h);
    if (first !== undefined) {
      if (sameValue(this.values[first], value)) return first;
      for (const id of this.collisions.get(h) ?? []) if (sameValue(this.values[id], value)) return id;
    }
    const id = this.values.length;
    this.values.push(value);
    this.hashes.push(h);
    if (first === undefined) this.byHash.set(h, id);
    else this.collisions.set(h, [...(this.collisions.get(h) ?? []), id]);
    return id;
  }
  get size(): number {
    return this.values.length;
  }

  at(id: number): unknown {
    return this.counter ? id : this.values[id];
  }

  /** Per id, its value's `hashValue`. */
  private readonly hashes: number[] = [];

  /** The `hashValue` of id's value: equal in every interner that holds an equal value. */
  hashOf(id: number): number {
    return this.counter ? hashValue(id) : (this.hashes[id] as number);
  }

  /**
   * An order of ids by their values' content, the same in every interner (another thread's, whose ids
   * differ): by hash, and on a collision of different values by their JSON text. Equal ids compare 0.
   */
  compare(a: number, b: number): number {
    if (a === b) return 0;
    if (this.counter) return a - b;
    const ha = this.hashes[a] as number;
    const hb = this.hashes[b] as number;
    if (ha !== hb) return ha < hb ? -1 : 1;
    const ja = JSON.stringify(this.values[a]);
    const jb = JSON.stringify(this.values[b]);
    return ja < jb ? -1 : ja > jb ? 1 : 0;
  }
}

/** A 32-bit hash of a string (FNV-1a). */
function hashString(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** The final mix of a 32-bit hash (murmur3's). */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A 32-bit hash of plain JSON data that agrees with `sameValue`: equal values hash equal. An object's
 * fields are combined without regard to their order and a field holding `undefined` counts as absent,
 * as in `sameValue` (JSON text, which this replaced, depended on key order and cost a string per call:
 * a fifth of the packed search's time).
 */
export function hashValue(v: unknown): number {
  switch (typeof v) {
    case 'number':
      // -0 and 0 are equal under sameValue (===); every other number by its text
      return Number.isInteger(v) ? mix((v | 0) ^ 0x9e3779b9 ^ Math.imul(Math.floor(v / 0x100000000) | 0, 0x27d4eb2d)) : mix(hashString(String(v), 0x1b873593));
    case 'string':
      return mix(hashString(v, 0x7feb352d));
    case 'boolean':
      return v ? 0x2545f491 : 0x1f83d9ab;
    case 'undefined':
      return 0x5be0cd19;
    case 'object': {
      if (v === null) return 0x6a09e667;
      if (Array.isArray(v)) {
        let h = 0x3c6ef372 ^ v.length;
        for (let i = 0; i < v.length; i++) h = Math.imul(h ^ hashValue(v[i]), 0x01000193);
        return mix(h);
      }
      let sum = 0x510e527f;
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const x = o[k];
        if (x === undefined) continue;
        sum = (sum + mix(hashString(k) ^ Math.imul(hashValue(x), 0x9e3779b1))) | 0;
      }
      return mix(sum);
    }
    default:
      // (functions and symbols: sameValue compares them by identity, so one hash for each kind is exact)
      return typeof v === 'function' ? 0x428a2f98 : 0x71374491;
  }
}

export type Interners = Record<SlotKind, Interner>;

export function interners(): Interners {
  const out = {} as Record<SlotKind, Interner>;
  for (const kind of SLOT_KINDS) {
    out[kind] = new Interner(COUNTER_KINDS.has(kind));
    if (NULLABLE.has(kind)) out[kind].intern(null);
  }
  return out;
}

/** Deep equality of plain JSON data (no allocation): what `JSON.stringify` equality would say. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    n += 1;
    if (!sameValue(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) n -= 1;
  return n === 0;
}

// ---------------------------------------------------------------------------------------------------
// Guards

/** One guard per slot, made once: any access throws, naming the slot and the current reader. */
function makeGuard(label: string, reader: () => string): object {
  const refuse = (what: string): never => {
    throw new ReadSetError(`${reader()} read ${label} (${what}) without declaring it in model/packed/read-sets.ts`);
  };
  return new Proxy(Object.create(null) as object, {
    get: (_t, key) => refuse(`property ${String(key)}`),
    has: (_t, key) => refuse(`'in' ${String(key)}`),
    ownKeys: () => refuse('its keys'),
    getOwnPropertyDescriptor: (_t, key) => refuse(`property ${String(key)}`),
    set: (_t, key) => refuse(`a write of ${String(key)}`),
    defineProperty: (_t, key) => refuse(`a write of ${String(key)}`),
  });
}

const EMPTY = new Int32Array(0);

/** Packs and materializes states of one layout. */
export class Codec {
  readonly tables: Interners = interners();
  private readonly guards: readonly object[];
  private readonly guardSlot = new Map<object, number>();
  /** The component objects of the last materialization, by slot (guards where undeclared). */
  private readonly given: unknown[];
  /** Per header slot: the entry the last materialization assembled there (or a guard). */
  private readonly givenEntry: unknown[];
  private readonly declared: Uint8Array;
  /** Who is reading now (for the guard's message), e.g. `predict(push …)`: a string, or what names it
   * (an event or actor, spelled out only when a message needs it: JSON text on every cache miss was a
   * few percent of the packed search). */
  reader: string | { readonly call: string; readonly of: unknown } = 'the model';

  constructor(readonly layout: Layout) {
    this.guards = layout.labels.map((label) => makeGuard(label, () => this.readerName()));
    this.guards.forEach((g, slot) => this.guardSlot.set(g, slot));
    this.given = new Array<unknown>(layout.slots).fill(undefined);
    this.givenEntry = new Array<unknown>(layout.slots).fill(undefined);
    this.declared = new Uint8Array(layout.slots);
  }

  /** Who is reading now, spelled out. */
  readerName(): string {
    const r = this.reader;
    return typeof r === 'string' ? r : `${r.call}(${JSON.stringify(r.of)})`;
  }

  value(slot: number, id: number): unknown {
    return this.tables[this.layout.kinds[slot] as SlotKind].at(id);
  }

  /** Interns every component of `state` into `out`. */
  pack(state: SystemState, out: Int32Array): void {
    const L = this.layout;
    const put = (slot: number, v: unknown) => {
      out[slot] = this.tables[L.kinds[slot] as SlotKind].intern(v);
    };
    state.replicas.forEach((rep, r) => {
      put(L.up(r), rep.up);
      put(L.incarnation(r), rep.incarnation);
      put(L.mint(r), rep.mint);
      put(L.append(r), rep.append);
      put(L.superseded(r), rep.superseded);
      rep.registries.forEach((reg, p) => {
        put(L.sweep(r, p), reg.sweep);
        if (reg.builders.length > L.ids) throw new RangeError(`registry r${r}.p${p} has ${reg.builders.length} builder ids; the layout has ${L.ids}`);
        if (reg.builders.length > 0 && reg.builders[reg.builders.length - 1] === null) {
          throw new RangeError(`registry r${r}.p${p}'s builders end in null: the packed layout cannot represent that`);
        }
        for (let id = 0; id < L.ids; id++) {
          const h = L.builder(r, p, id);
          const entry = (reg.builders[id] ?? null) as Entry;
          const parts = this.split(h, entry);
          put(h, parts.header);
          for (let j = 0; j < L.instances; j++) put(h + 1 + j, parts.instances[j] ?? null);
        }
      });
      for (let w = 0; w < L.workers; w++) {
        put(L.worker(r, w), rep.workers[w]);
        put(L.handle(r, w), rep.handles[w] ?? null);
      }
    });
    put(L.shard, state.shard);
    HISTORY_FIELDS.forEach((f, i) => put(L.historySlots[i] as number, state.history[f]));
  }

  /**
   * The SystemState of `vec`. With `reads`, every slot not in it is a guard (and `extract` must then be
   * given the same materialization).
   */
  materialize(vec: Int32Array, reads?: readonly number[] | Int32Array): SystemState {
    const L = this.layout;
    this.declared.fill(reads === undefined ? 1 : 0);
    if (reads !== undefined) for (const slot of reads) this.declared[slot] = 1;
    this.vec = vec;
    const replicas: ReplicaState[] = [];
    for (let r = 0; r < L.cfg.replicas; r++) {
      const registries: Registry[] = [];
      for (let p = 0; p < L.cfg.processes; p++) {
        // SUBTLE: with every builder slot declared, the array is the real one (trailing nulls trimmed);
        // with any undeclared, it has one element per id and a guard in each undeclared one (a null there
        // is a fact the memo key does not hold, so it must not look like "nothing was written").
        const builders: unknown[] = [];
        let length = 0;
        let anyUndeclared = false;
        for (let id = 0; id < L.ids; id++) {
          const slot = L.builder(r, p, id);
          if (this.declared[slot] !== 1) anyUndeclared = true;
          else if ((vec[slot] as number) !== 0) length = id + 1;
        }
        if (anyUndeclared) length = L.ids;
        for (let id = 0; id < length; id++) builders.push(this.getEntry(L.builder(r, p, id)));
        for (let id = length; id < L.ids; id++) {
          const h = L.builder(r, p, id);
          for (let j = 0; j <= L.instances; j++) this.given[h + j] = null;
          this.givenEntry[h] = null;
        }
        registries.push({ sweep: this.get(L.sweep(r, p)), builders } as unknown as Registry);
      }
      const workers: unknown[] = [];
      const handles: unknown[] = [];
      for (let w = 0; w < L.workers; w++) {
        workers.push(this.get(L.worker(r, w)));
        handles.push(this.get(L.handle(r, w)));
      }
      replicas.push({
        up: this.get(L.up(r)),
        incarnation: this.get(L.incarnation(r)),
        mint: this.get(L.mint(r)),
        append: this.get(L.append(r)),
        superseded: this.get(L.superseded(r)),
        workers,
        handles,
        registries,
      } as unknown as ReplicaState);
    }
    const history = {} as Record<string, unknown>;
    for (let i = 0; i < HISTORY_FIELDS.length; i++) history[HISTORY_FIELDS[i] as string] = this.get(L.historySlots[i] as number);
    const shard = this.get(L.shard);
    this.vec = EMPTY;
    return { shard, replicas, history: history as unknown as History } as unknown as SystemState;
  }

  /** The vector being materialized (for `get`). */
  private vec: Int32Array = EMPTY;

  /**
   * The builder entry whose header is slot `h`, assembled from its slots (its header's guard when
   * undeclared); recorded in `givenEntry`.
   */
  private getEntry(h: number): unknown {
    if (this.declared[h] !== 1) {
      const g = this.guards[h];
      this.given[h] = g;
      this.givenEntry[h] = g;
      return g;
    }
    const header = this.value(h, this.vec[h] as number) as { value: unknown; context: object } | null;
    this.given[h] = header;
    const instances: unknown[] = [];
    for (let j = 0; j < this.layout.instances; j++) {
      const slot = h + 1 + j;
      if (this.declared[slot] !== 1) throw new Error(`${this.layout.labels[h]} is declared without ${this.layout.labels[slot]}: an entry's slots are read together (read-sets.ts)`);
      const id = this.vec[slot] as number;
      const rec = id === 0 ? null : this.value(slot, id);
      this.given[slot] = rec;
      if (rec !== null) instances.push(rec);
    }
    const entry = header === null ? null : { value: header.value, context: { ...header.context, instances } };
    this.givenEntry[h] = entry;
    return entry;
  }

  /** An entry's header (the builder without its instances) and instances (at most one per slot). */
  private split(h: number, entry: Entry): { readonly header: unknown; readonly instances: readonly unknown[] } {
    if (entry === null) return { header: null, instances: [] };
    const { instances, ...context } = entry.context;
    if (instances.length > this.layout.instances) {
      throw new RangeError(`${this.layout.labels[h]} has ${instances.length} instances; the layout has ${this.layout.instances} (one per worker of the process)`);
    }
    return { header: { value: entry.value, context }, instances };
  }

  /** The entry the last materialization handed out at header slot `h` (or `withEntries` put there). */
  entryAt(h: number): unknown {
    return this.givenEntry[h];
  }

  /** Slot `slot` of the vector being materialized: its value if declared, else its guard (recorded in `given`). */
  private get(slot: number): unknown {
    const v = this.declared[slot] === 1 ? this.value(slot, this.vec[slot] as number) : this.guards[slot];
    this.given[slot] = v;
    return v;
  }

  /**
   * `state`, the last materialization, with the history counters in `slots` moved by `delta`: a new
   * top-level object and history, every component shared; `extract` then takes the moved values as
   * the ones given. (The engine's check that an event only adds to a counter, without a second
   * materialization.)
   */
  shiftCounters(state: SystemState, slots: Int32Array, delta: number): SystemState {
    const history = { ...(state.history as unknown as Record<string, unknown>) };
    for (const slot of slots) {
      const i = this.layout.historySlots.indexOf(slot);
      if (i < 0 || !this.layout.isCounter(slot)) throw new RangeError(`shiftCounters: ${this.layout.labels[slot]} is not a history counter`);
      const field = HISTORY_FIELDS[i] as string;
      const moved = (this.given[slot] as number) + delta;
      history[field] = moved;
      this.given[slot] = moved;
    }
    return { ...state, history: history as unknown as History };
  }

  /**
   * `state`, the last materialization, with builder entries replaced (slot, entry): new objects along the
   * way, every other component shared; `extract` then takes the replacements as the entries given. (The
   * engine's perturbation of what a focused read does not see, focus.ts.)
   */
  withEntries(state: SystemState, entries: readonly (readonly [number, unknown])[]): SystemState {
    const replicas = state.replicas.map((rep) => ({ ...rep, registries: rep.registries.map((reg) => ({ ...reg, builders: [...reg.builders] })) }));
    for (const [slot, entry] of entries) {
      if (entry === this.givenEntry[slot]) continue;
      const { r, p, id } = this.layout.builderAt(slot);
      const builders = (replicas[r]?.registries[p] as Registry).builders as unknown[];
      if (id >= builders.length) throw new RangeError(`withEntries: ${this.layout.labels[slot]} is beyond its registry's builders`);
      builders[id] = entry;
      this.givenEntry[slot] = entry;
    }
    return { ...state, replicas } as unknown as SystemState;
  }

  /**
   * Writes `next`'s components over `out` (a copy of the vector `next` was predicted from, materialized
   * last). A guard left in its own slot means "unchanged"; a guard anywhere else is a read-set error.
   * Returns the changed slots and ids as [slot, id, slot, id …]. Slots flagged in `raw` are not interned:
   * their values go to `rawOut` (the engine makes patches of them, focus.ts).
   */
  extract(next: SystemState, out: Int32Array, raw?: Uint8Array, rawOut?: unknown[]): number[] {
    this.raw = raw;
    this.rawOut = rawOut;
    const L = this.layout;
    const writes: number[] = [];
    for (let r = 0; r < next.replicas.length; r++) {
      const rep = next.replicas[r] as ReplicaState;
      this.put(L.up(r), rep.up, out, writes);
      this.put(L.incarnation(r), rep.incarnation, out, writes);
      this.put(L.mint(r), rep.mint, out, writes);
      this.put(L.append(r), rep.append, out, writes);
      this.put(L.superseded(r), rep.superseded, out, writes);
      for (let p = 0; p < rep.registries.length; p++) {
        const reg = rep.registries[p] as Registry;
        this.put(L.sweep(r, p), reg.sweep, out, writes);
        if (reg.builders.length > L.ids) throw new RangeError(`registry r${r}.p${p} has ${reg.builders.length} builder ids; the layout has ${L.ids}`);
        for (let id = 0; id < L.ids; id++) this.putEntry(L.builder(r, p, id), reg.builders[id] ?? null, out, writes);
      }
      for (let w = 0; w < L.workers; w++) {
        this.put(L.worker(r, w), rep.workers[w], out, writes);
        this.put(L.handle(r, w), rep.handles[w] ?? null, out, writes);
      }
    }
    this.put(L.shard, next.shard, out, writes);
    const history = next.history as unknown as Record<string, unknown>;
    for (let i = 0; i < HISTORY_FIELDS.length; i++) this.put(L.historySlots[i] as number, history[HISTORY_FIELDS[i] as string], out, writes);
    this.raw = undefined;
    this.rawOut = undefined;
    return writes;
  }

  private raw: Uint8Array | undefined;
  private rawOut: unknown[] | undefined;

  /** One entry of `extract` (header slot `h`): raw, unchanged (its guard or the entry given), or cut into its slots. */
  private putEntry(h: number, v: unknown, out: Int32Array, writes: number[]): void {
    if (this.raw !== undefined && this.raw[h] === 1) {
      (this.rawOut as unknown[])[h] = v;
      return;
    }
    if (typeof v === 'object' && v !== null) {
      const from = this.guardSlot.get(v);
      if (from !== undefined) {
        if (from !== h) throw new ReadSetError(`${this.readerName()} moved ${this.layout.labels[from]} to ${this.layout.labels[h]} without declaring it`);
        return;
      }
    }
    if (v === this.givenEntry[h] && v !== undefined) return;
    const parts = this.split(h, v as Entry);
    this.put(h, parts.header, out, writes);
    for (let j = 0; j < this.layout.instances; j++) this.put(h + 1 + j, parts.instances[j] ?? null, out, writes);
  }

  /** One slot of `extract`: records a write of `v` to `slot` in `out` and `writes` unless it is unchanged. */
  private put(slot: number, v: unknown, out: Int32Array, writes: number[]): void {
    const L = this.layout;
    if (this.raw !== undefined && this.raw[slot] === 1) {
      (this.rawOut as unknown[])[slot] = v;
      return;
    }
    if (typeof v === 'object' && v !== null) {
      const from = this.guardSlot.get(v);
      if (from !== undefined) {
        if (from !== slot) throw new ReadSetError(`${this.readerName()} moved ${L.labels[from]} to ${L.labels[slot]} without declaring it`);
        return;
      }
    }
    // SUBTLE: a slot outside the read set is not in the memo key, so another state with the same key
    // may hold something else there: a write to it is recorded even when it equals this state's value.
    if (this.declared[slot] !== 1) {
      const id = this.tables[L.kinds[slot] as SlotKind].intern(v);
      out[slot] = id;
      writes.push(slot, id);
      return;
    }
    const before = this.given[slot];
    if (v === before) return;
    // a rebuilt but equal component (a machine that changed nothing) is no write
    if (before !== undefined && sameValue(v, before)) return;
    const id = this.tables[L.kinds[slot] as SlotKind].intern(v);
    if (out[slot] !== id) {
      out[slot] = id;
      writes.push(slot, id);
    }
  }
}
