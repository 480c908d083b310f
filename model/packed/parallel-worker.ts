/**
 * One thread of the parallel packed search (parallel.ts): it owns the states whose builders' content
 * hashes to its index, expands them level by level exactly as `searchPacked` does, and hands every successor it
 * does not own to its owner over a port of its own.
 *
 * Component ids are this thread's own (its engine interns by first sight), so a successor crosses as
 * the sender's ids plus, the first time the sender sends an id to that peer, the component's value; the
 * receiver interns the value and keeps a translation per sender and kind. Ownership and the symmetry's
 * representative are functions of content alone (value hashes, symmetry.ts `before`), so every thread
 * agrees on both without sharing ids.
 *
 * A state is known everywhere by its global number `local · jobs + thread`; its edge by the expanding
 * thread's outcome (`outcome · jobs + thread`) and symmetry id, resolved by that thread when the
 * coordinator rebuilds a trace.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { properties as ALL_PROPERTIES, type Property } from '../../spec/properties.ts';
import { policyOf } from '../variants/index.ts';
import type { ModelConfig } from '../config.ts';
import { Engine } from './engine.ts';
import { SLOT_KINDS, type Interner, type SlotKind } from './layout.ts';
import { PersistentSets, VerdictMasks } from './search.ts';
import { StateStore } from './state-store.ts';
import { identity, SymmetryReducer, type Sym } from './symmetry.ts';
import { PagedInts } from './tuple-set.ts';

export interface WorkerInit {
  readonly type: 'init';
  readonly cfg: ModelConfig;
  /** Names of the properties to judge (spec/properties.ts), in the coordinator's order. */
  readonly properties: readonly string[];
  readonly symmetry: boolean;
  readonly por: boolean;
  readonly jobs: number;
  readonly index: number;
  /** ports[peer]: this thread's end of the channel to each other thread (null for itself). */
  readonly ports: readonly (MessagePort | null)[];
  /** States all threads together may store, and their count so far (an Int32Array over it, shared). */
  readonly maxStates: number;
  readonly stored: SharedArrayBuffer;
  readonly maxBytes: number | null;
  /** Epoch milliseconds after which a level stops expanding (null: no limit). */
  readonly deadline: number | null;
}

/** A property settled at a state this thread expanded: `ok` is the verdict there. */
export interface Find {
  readonly property: number;
  readonly gid: number;
  readonly ok: boolean;
  readonly final: boolean;
}

export interface LevelDone {
  readonly type: 'level-done';
  readonly expanded: number;
  readonly added: number;
  readonly finals: number;
  readonly transitions: number;
  readonly dropped: number;
  readonly finds: readonly Find[];
  readonly stopped: 'max-memory' | 'max-time' | null;
  readonly states: number;
}

export type Request =
  | { readonly type: 'level'; readonly unsettled: number }
  | { readonly type: 'record'; readonly local: number }
  | { readonly type: 'event'; readonly outcome: number }
  | { readonly type: 'sym'; readonly id: number }
  | { readonly type: 'stats' };

/** States per message between threads: bounds the memory of a level's hand-over. */
const BATCH = 2048;
/** How close to maxStates the shared count must be before each store reserves its place first (more than
 * the threads can add between a check and their count). */
const NEAR = 1 << 16;
const KIND_INDEX = new Map<SlotKind, number>(SLOT_KINDS.map((k, i) => [k, i]));

interface Outbox {
  vecs: number[];
  meta: number[];
  values: unknown[];
  count: number;
}

class Thread {
  private readonly engine: Engine;
  private readonly reducer: SymmetryReducer | undefined;
  private readonly store: StateStore;
  private readonly symOf = new PagedInts();
  private readonly por: PersistentSets | null;
  private readonly J: number;
  private readonly me: number;
  private readonly S: number;
  /** An edge is `outcome · jobs + thread` in an int32. */
  private readonly maxOutcome: number;
  private readonly slotTable: readonly Interner[];
  private readonly slotKind: Int32Array;
  private readonly counter: Uint8Array;
  private readonly stored: Int32Array;
  private readonly ownerSlots: readonly number[];
  /** sent[peer][kind][id] = 1 once the value went to that peer. */
  private readonly sent: number[][][];
  /** trans[peer][kind][their id] = this thread's id. */
  private readonly trans: number[][][];
  private readonly out: Outbox[];
  private readonly inbox: Batch[][];
  private readonly cur: Int32Array;
  private readonly next: Int32Array;
  private readonly tv: Int32Array;
  private readonly enabled: number[] = [];
  private readonly properties: readonly Property[];
  private readonly masks: VerdictMasks;
  private head = 0;
  private levelEnd = 0;
  private dropped = 0;
  private ends = 0;
  private pendingReport: Omit<LevelDone, 'added' | 'states' | 'dropped'> | null = null;

  constructor(private readonly init: WorkerInit) {
    // The variant's properties (model/variants/: spec/'s, with what the variant adds, drops or changes).
    const known = policyOf(init.cfg).properties(ALL_PROPERTIES);
    this.properties = init.properties.map((name) => {
      const p = known.find((q) => q.name === name);
      if (p === undefined) throw new Error(`parallel search: no property named ${name} for variant ${init.cfg.variant}`);
      return p;
    });
    this.engine = new Engine(init.cfg, this.properties);
    this.masks = new VerdictMasks(this.properties);
    this.reducer = init.symmetry ? new SymmetryReducer(this.engine) : undefined;
    this.por = init.por ? new PersistentSets(this.engine) : null;
    this.J = init.jobs;
    this.me = init.index;
    this.S = this.engine.slots;
    this.maxOutcome = Math.floor(0x7fffffff / this.J) - 1;
    this.store = new StateStore(this.S);
    this.stored = new Int32Array(init.stored);
    const L = this.engine.layout;
    this.slotKind = Int32Array.from(L.kinds, (k) => KIND_INDEX.get(k as SlotKind) as number);
    this.slotTable = L.kinds.map((k) => this.engine.codec.tables[k as SlotKind]);
    this.ownerSlots = [...L.allEntries];
    this.counter = Uint8Array.from(L.kinds.map((_, slot) => (L.isCounter(slot) ? 1 : 0)));
    this.sent = Array.from({ length: this.J }, () => SLOT_KINDS.map(() => []));
    this.trans = Array.from({ length: this.J }, () => SLOT_KINDS.map(() => []));
    this.out = Array.from({ length: this.J }, () => ({ vecs: [], meta: [], values: [], count: 0 }));
    this.inbox = Array.from({ length: this.J }, () => []);
    this.cur = new Int32Array(this.S);
    this.next = new Int32Array(this.S);
    this.tv = new Int32Array(this.S);
    init.ports.forEach((port, peer) => port?.on('message', (m: Batch | 'end') => this.receive(peer, m)));
    // every thread computes the initial state; its owner stores it
    this.engine.initial(this.cur);
    const sym = this.reducer?.canonicalize(this.cur) ?? 0;
    if (this.ownerOf(this.cur) === this.me) this.add(this.cur, -1, -1, sym);
    this.levelEnd = this.store.size;
  }

  /**
   * Which thread owns a state: a hash of its builders' contents. (Not of every component: most memo
   * misses are keyed by a builder value new to the search, and with states owned by their builders each
   * such value is met by one thread only — by the whole state, the threads together missed 1.5 times as
   * often as one thread alone, at --workers 6.)
   */
  private ownerOf(vec: Int32Array): number {
    let h = 0x811c9dc5;
    for (const i of this.ownerSlots) h = Math.imul(h ^ (this.slotTable[i] as Interner).hashOf(vec[i] as number), 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return ((h ^ (h >>> 16)) >>> 0) % this.J;
  }

  /**
   * Stores a state unless it is stored already or the threads together hold maxStates (then it counts
   * as dropped if new, as in searchPacked). The count is shared: far from the limit a thread stores
   * first and counts after; near it, it reserves a place before storing, so the total is exact.
   */
  private add(vec: Int32Array, parent: number, edge: number, sym: number): void {
    const max = this.init.maxStates;
    if (Atomics.load(this.stored, 0) < max - NEAR) {
      if (this.store.add(vec, parent, edge) < 0) {
        this.symOf.push(sym);
        this.countOrbit(vec);
        Atomics.add(this.stored, 0, 1);
      }
      return;
    }
    if (this.store.find(vec) >= 0) return;
    if (Atomics.add(this.stored, 0, 1) >= max) {
      Atomics.sub(this.stored, 0, 1);
      this.dropped += 1;
      return;
    }
    this.store.add(vec, parent, edge);
    this.symOf.push(sym);
    this.countOrbit(vec);
  }

  /** The states this thread's stored ones stand for without the symmetry (null: not computed). */
  private unreduced: number | null = 0;

  private countOrbit(vec: Int32Array): void {
    if (this.unreduced === null) return;
    const orbit = this.reducer === undefined ? 1 : this.reducer.orbitSize(vec);
    this.unreduced = orbit === null ? null : this.unreduced + orbit;
  }

  /** Expands this thread's current level; successors of other threads go to their outboxes. */
  level(unsettledIn: number): void {
    const { engine, por, properties } = this;
    const start = this.head;
    // (levelEnd was fixed when the last level ended, after every peer's part of it was absorbed)
    let unsettled = unsettledIn;
    const finds: Find[] = [];
    let finals = 0;
    let transitions = 0;
    let stopped: LevelDone['stopped'] = null;
    const cur = this.cur;
    const next = this.next;
    const enabled = this.enabled;
    for (; this.head < this.levelEnd; this.head++) {
      if ((this.head - start) % 4096 === 0) {
        if (this.init.maxBytes !== null && process.memoryUsage().rss >= this.init.maxBytes) {
          stopped = 'max-memory';
          break;
        }
        if (this.init.deadline !== null && Date.now() >= this.init.deadline) {
          stopped = 'max-time';
          break;
        }
      }
      const n = this.head;
      this.store.read(n, cur);
      const gid = n * this.J + this.me;
      const successors = engine.expand(cur, enabled);
      transitions += successors;
      const final = successors === 0;
      if (final) finals += 1;
      por?.restrict(cur, enabled);
      const bits = unsettled !== 0 || por !== null ? engine.verdicts(cur, final) : 0;
      if (unsettled !== 0) {
        const news = this.masks.settledAt(bits, final) & unsettled;
        for (let k = 0; news !== 0 && k < properties.length; k++) {
          if ((news & (1 << k)) === 0) continue;
          unsettled &= ~(1 << k);
          finds.push({ property: k, gid, ok: (bits & (1 << k)) !== 0, final });
        }
      }
      for (const o of enabled) {
        engine.apply(o, cur, next);
        if (por !== null && engine.viewDiffers(cur, next)) this.masks.requireMonotone(engine, bits, next, o);
        const sym = this.reducer?.canonicalize(next) ?? 0;
        if (o > this.maxOutcome) throw new RangeError(`parallel search: more than ${this.maxOutcome} memoized outcomes in one thread at --jobs ${this.J}; use fewer threads`);
        const edge = o * this.J + this.me;
        const owner = this.ownerOf(next);
        if (owner === this.me) this.add(next, gid, edge, sym);
        else this.enqueue(owner, next, gid, edge, sym);
      }
    }
    for (let peer = 0; peer < this.J; peer++) {
      if (peer === this.me) continue;
      this.flush(peer);
      this.init.ports[peer]?.postMessage('end');
    }
    this.pendingReport = { type: 'level-done', expanded: this.head - start, finals, transitions, finds, stopped };
    this.maybeReport();
  }

  private enqueue(peer: number, vec: Int32Array, parent: number, edge: number, sym: number): void {
    const box = this.out[peer] as Outbox;
    const sent = this.sent[peer] as number[][];
    for (let i = 0; i < this.S; i++) {
      const id = vec[i] as number;
      box.vecs.push(id);
      if (this.counter[i] === 1) continue;
      const k = this.slotKind[i] as number;
      const seen = sent[k] as number[];
      if (seen[id] !== 1) {
        seen[id] = 1;
        box.values.push(k, id, (this.slotTable[i] as Interner).at(id));
      }
    }
    box.meta.push(parent, edge, sym);
    box.count += 1;
    if (box.count >= BATCH) this.flush(peer);
  }

  private flush(peer: number): void {
    const box = this.out[peer] as Outbox;
    if (box.count === 0) return;
    const vecs = Int32Array.from(box.vecs);
    const meta = Int32Array.from(box.meta);
    this.init.ports[peer]?.postMessage({ vecs, meta, values: box.values } satisfies Batch, [vecs.buffer, meta.buffer]);
    this.out[peer] = { vecs: [], meta: [], values: [], count: 0 };
  }

  /**
   * A peer's batch waits in its inbox until the level is over: absorbed then in peer order (after this
   * thread's own successors), each level's states, and so every parent and trace, are the same in every
   * run whatever the timing of the threads.
   */
  private receive(peer: number, m: Batch | 'end'): void {
    if (m === 'end') {
      this.ends += 1;
      this.maybeReport();
      return;
    }
    (this.inbox[peer] as Batch[]).push(m);
  }

  private absorb(peer: number, m: Batch): void {
    const trans = this.trans[peer] as number[][];
    const { values, vecs, meta } = m;
    for (let i = 0; i < values.length; i += 3) {
      const k = values[i] as number;
      (trans[k] as number[])[values[i + 1] as number] = this.engine.codec.tables[SLOT_KINDS[k] as SlotKind].intern(values[i + 2]);
    }
    const tv = this.tv;
    for (let s = 0; s < meta.length / 3; s++) {
      for (let i = 0; i < this.S; i++) {
        const id = vecs[s * this.S + i] as number;
        tv[i] = this.counter[i] === 1 ? id : ((trans[this.slotKind[i] as number] as number[])[id] as number);
      }
      this.add(tv, meta[s * 3] as number, meta[s * 3 + 1] as number, meta[s * 3 + 2] as number);
    }
  }

  /** Reports the level once this thread has expanded it and every peer has handed over its part. */
  private maybeReport(): void {
    // (`level` runs to its end before any message is handled: pendingReport says it has)
    if (this.pendingReport === null || this.ends < this.J - 1) return;
    for (let peer = 0; peer < this.J; peer++) {
      const inbox = this.inbox[peer] as Batch[];
      for (const m of inbox) this.absorb(peer, m);
      inbox.length = 0;
    }
    const report: LevelDone = { ...this.pendingReport, added: this.store.size - this.levelEnd, states: this.store.size, dropped: this.dropped };
    this.levelEnd = this.store.size;
    this.pendingReport = null;
    this.ends = 0;
    parentPort?.postMessage(report);
  }

  answer(r: Exclude<Request, { type: 'level' }>): unknown {
    switch (r.type) {
      case 'record':
        return { parent: this.store.parents.get(r.local), edge: this.store.edges.get(r.local), sym: this.symOf.get(r.local) };
      case 'event':
        return this.engine.expectedOf(r.outcome);
      case 'sym':
        return (this.reducer?.sym(r.id) ?? identity(this.init.cfg)) satisfies Sym;
      case 'stats':
        return {
          states: this.store.size,
          unreduced: this.unreduced,
          frontier: this.store.size - this.head,
          storeBytes: this.store.bytes() + this.symOf.bytes(),
          memoBytes: this.engine.memoBytes(),
          memo: { ...this.engine.memoSizes(), diamonds: this.por?.diamonds ?? 0 },
          reduced: this.por?.reduced ?? 0,
          description: this.reducer?.description,
        };
    }
  }
}

interface Batch {
  readonly vecs: Int32Array;
  readonly meta: Int32Array;
  readonly values: unknown[];
}

let thread: Thread | undefined;
parentPort?.on('message', (m: WorkerInit | Request) => {
  if (m.type === 'init') {
    thread = new Thread(m);
    parentPort?.postMessage({ type: 'ready' });
    return;
  }
  if (thread === undefined) throw new Error('parallel search: a request before init');
  if (m.type === 'level') thread.level(m.unsettled);
  else parentPort?.postMessage(thread.answer(m));
});
