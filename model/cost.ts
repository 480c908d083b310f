/**
 * What a run should cost, computed from the trace the model accepted (vocab/PROTOCOL.md "Cost"): blob
 * PUTs (and their bytes), GETs, deletes and listings; consensus head reads, scans and compare-and-sets
 * (the shard's and the writer registry's apart); the state-diff bytes the shard stores; and the
 * scheduling points of waits and wake-ups. Each counter is an interval [min, max]: a single value where
 * the trace decides it, a bound where the schedule does — and each bound says why.
 *
 * Where the schedule decides (and the trace cannot show it):
 * - a compare-and-set that loses its race (another writer committed between the read it was built from
 *   and its send) costs one more head read, one more scan and one more compare-and-set, and a bump that
 *   loses its race (another writer moved the shard) two more reads: how many there were is the store's
 *   count and the append attempts' (ScheduleOutcomes), each held to a bound of its own (another
 *   writer's commits are the only way to lose);
 * - a read whose moment no event pins (a poll's, the refused first attempt before a bump, a lost bump's)
 *   scans or not, depending on what committed meanwhile: each such read widens the scans by one;
 * - part keys carry numbers in the order parts were cut across workers: when a mismatch deleted some,
 *   which numbers the shard kept (and so how many digits its keys have) is a bound;
 * - a process registry's lock is held across a scheduling point only while its call sweeps: calls that
 *   arrive then wait and pass their point again (at most one wait per other worker per sweep);
 * - a builder task reads its channel once per chunk and once more when it closes, and reads it empty
 *   at most once before each of those;
 * - the mint polls at most once when a window of its description opens and once per wake-up in it (a
 *   frontier step, its own append or delete, any writer moving the shard), and passes its point without
 *   polling at most once per description (the window closed while it waited).
 * In the fault world (fault events, aborts): a storage call that failed and was retried, an applied
 * write whose answer was lost (a read-back), an aborted incarnation's work no event shows (parts of
 * batches it never handed, reads of an append it never finished), and supervisor steps started over
 * after a permanent failure widen the bounds; every counter is then a bound.
 *
 * Pure: reads only the trace, the sinks' model configurations and the run's shape.
 */
import type { BatchSummary, TraceEvent } from '../vocab/index.ts';
import type { ModelConfig } from './config.ts';
import { diffBytesWithoutKeys, digits, keyBytesBounds, partObjectBytes, writerIdLength } from './cost-sizes.ts';
import { compaction } from './parts.ts';

export const COST_COUNTERS = [
  'blob.puts',
  'blob.putBytes',
  'blob.gets',
  'blob.deletes',
  'blob.lists',
  'consensus.heads',
  'consensus.scans',
  'consensus.cas',
  'shard.cas',
  'registry.cas',
  'state.bytes',
  'mint.polls',
  'points.mint.poll',
  'points.builder.recv',
  'points.registry-lock',
  'points.barrier.wake',
  'compaction.rewrites',
] as const;
export type CostCounter = (typeof COST_COUNTERS)[number];

/** What each counter means, for failure messages and docs. */
export const COST_MEANING: Readonly<Record<CostCounter, string>> = {
  'blob.puts': 'blob PUTs that reached the store',
  'blob.putBytes': 'bytes those PUTs stored',
  'blob.gets': 'blob GETs',
  'blob.deletes': 'blob deletes',
  'blob.lists': 'blob listings',
  'consensus.heads': 'consensus head reads',
  'consensus.scans': 'consensus scans',
  'consensus.cas': 'consensus compare-and-sets that reached the store',
  'shard.cas': "compare-and-sets attempted on the shards' state (metrics consensusCommands)",
  'registry.cas': "compare-and-sets attempted on the writer registries (metrics writerRegistrations)",
  'state.bytes': 'state-diff bytes committed to the shards',
  'mint.polls': "the mints' polls of the shard (wake-ups)",
  'points.mint.poll': 'scheduling points `mint.poll`',
  'points.builder.recv': 'scheduling points `builder.recv`',
  'points.registry-lock': 'scheduling points `shared.open` and `barrier.skip` (the registry lock)',
  'points.barrier.wake': 'scheduling points `barrier.wake`',
  'compaction.rewrites': 'part writes the compaction of merged runs costs while own batches are built (metrics compactionRewrites)',
};

/** A counter's prediction: exact when min = max. `why` says what made it a bound. */
export interface CostBound {
  readonly min: number;
  readonly max: number;
  readonly why: readonly string[];
}

/** What the schedule decided that no event shows, as the run's stores and metrics counted it. */
export interface ScheduleOutcomes {
  /** Compare-and-sets on the shards' state that lost their race (the writers' count). */
  readonly shardCasLost: number;
  /** Compare-and-sets that reached the store and changed nothing (the store's count: the shards' lost
   * races, the registries', and in the fault world an applied-looking one that had lost its race). */
  readonly storeCasLost: number;
  /** Bumps that lost their race (the shard moved between the refused attempt and the bump). */
  readonly bumpsLost: number;
}

export interface CostPrediction {
  readonly counters: Readonly<Record<CostCounter, CostBound>>;
  /** The bounds the schedule's outcomes must keep: each is a check of its own (`registryCasLost` is
   * the store's lost compare-and-sets that were not the shards' lost races). */
  readonly outcomes: Readonly<Record<'shardCasLost' | 'registryCasLost' | 'bumpsLost', CostBound>>;
}

/** The run as the cost model needs it: each MV sink's configuration (index = sink), and whether
 * leaked-blob cleanup ran (the fault world). */
export interface CostRun {
  readonly sinks: readonly ModelConfig[];
  readonly cleanup: boolean;
}


/** A part as the cost model needs it: payload bytes, updates, and whether it is a blob object. */
interface Part {
  readonly payload: number;
  readonly updates: number;
  readonly hollow: boolean;
}

/** Counters as intervals: `add` for what the trace decides, `range` for what the schedule does. */
class Tally {
  readonly min = new Map<string, number>();
  readonly max = new Map<string, number>();
  readonly why = new Map<string, Set<string>>();
  add(c: string, n: number): void {
    this.range(c, n, n, '');
  }
  range(c: string, lo: number, hi: number, why: string): void {
    this.min.set(c, (this.min.get(c) ?? 0) + lo);
    this.max.set(c, (this.max.get(c) ?? 0) + hi);
    if (hi > lo) {
      const set = this.why.get(c) ?? new Set<string>();
      set.add(why);
      this.why.set(c, set);
    }
  }
  bound(c: string): CostBound {
    return { min: this.min.get(c) ?? 0, max: this.max.get(c) ?? 0, why: [...(this.why.get(c) ?? [])] };
  }
}

/** One writer incarnation of one sink: its ShardWriter's view of the shard, its names, its tokens. */
interface Writer {
  readonly sink: number;
  readonly replica: number;
  /** Its incarnation number: known at startup; after a restart, at least the registry versions the
   * trace shows before it (retirements and started-over claims may come first). */
  readonly incarnation: number;
  /** The shard's last version its state has seen (-1: none). */
  have: number;
  /** compareAndAppend calls so far (each takes the next idempotency token). */
  calls: number;
  /** Commits (state diffs) it wrote. */
  commits: number;
  /** Part keys it minted, known, and at most this many more (an aborted incarnation's). */
  minted: number;
  mintedSlack: number;
  /** Hollow parts its committed diffs reference. */
  committed: number;
  /** Commits by other writers of the shard since this writer's last pinned read. */
  othersSince: number;
  /** Its compare-and-set applied though the answer was lost: its append or bump event comes after a
   * re-read that finds its token. */
  pending: boolean;
  /** A backpressure flush (PUTs) no later event confirmed yet. */
  flush: { readonly puts: number; readonly bytes: number } | null;
  alive: boolean;
  /** Updates its workers staged, with a bound on their part bytes: what its hidden work is bounded by. */
  staged: number;
  stagedBytes: number;
}

interface Desc {
  readonly sharedId: number;
  readonly lower: number;
  readonly upper: number;
  readonly hands: Part[][];
  flushed: boolean;
}

/** A shared builder instance: the chunks pushed into it, its handles, its barrier. */
interface Instance {
  readonly ids: number[];
  chunks: number;
  readonly barrier: boolean;
  pending: number;
  /** The latest finisher (the barrier's deliverer). */
  deliverer: string | null;
  handles: number;
  finished: number;
  /** A barrier with a deadline whose timer fired: later arrivals (a late skip) wake nobody. */
  expired?: boolean;
}

/** A map key of two to four parts joined by `/` (a template, not a rest array joined: the walk makes
 * several per event). */
const key = (a: number | string, b: number | string, c?: number | string, d?: number | string): string =>
  c === undefined ? `${a}/${b}` : d === undefined ? `${a}/${b}/${c}` : `${a}/${b}/${c}/${d}`;

/**
 * The run's cost, counter by counter. `outcomes`: what the schedule decided that no event shows (the
 * stores' and metrics' counts); the prediction bounds each of them too (`CostPrediction.outcomes`).
 */
export function predictCost(run: CostRun, trace: readonly TraceEvent[], outcomes: ScheduleOutcomes): CostPrediction {
  return new CostWalk(run, trace).predict(outcomes);
}

class CostWalk {
  readonly t = new Tally();
  readonly sinks: number;
  readonly replicas: number;
  readonly registryWorkers: number;
  readonly faulty: boolean;
  readonly sizes: readonly ReadonlyMap<number, number>[];
  readonly inlineMax: readonly number[];
  /** Per sink shard: its last version's index, its upper, hollow parts it references. */
  readonly head: number[];
  readonly upper: number[];
  readonly referenced: number[];
  /** Per sink: registry versions the trace shows (claims, retirements), and how many more may exist
   * (a supervisor step started over after a permanent failure may claim again). */
  readonly registry: number[];
  readonly registryExtra: number[];
  readonly writers = new Map<string, Writer>();
  readonly everyWriter: Writer[] = [];
  shardLostMax = 0;
  bumpsLostMax = 0;
  /** Registry compare-and-set attempts that failed (faults) and were tried again. */
  registryFaults = 0;
  readonly live = new Map<string, Desc>();
  readonly superseded = new Map<string, Desc>();
  readonly built = new Map<string, Part[]>();
  readonly window = new Map<string, boolean>();
  readonly instances = new Map<string, Instance>();
  readonly everyInstance: Instance[] = [];
  readonly handleOf = new Map<string, Instance>();
  readonly earlySkips = new Map<string, number>();
  lockWaitsMax = 0;
  /** Per replica: the sinks its current incarnation hosts (an abort's restart hosts those it restarts). */
  readonly hosted: Set<number>[];
  readonly restarting: boolean[];

  constructor(
    readonly run: CostRun,
    readonly trace: readonly TraceEvent[],
  ) {
    const cfg = run.sinks[0] as ModelConfig;
    this.sinks = run.sinks.length;
    this.replicas = cfg.replicas;
    this.registryWorkers = cfg.workersPerProcess * this.sinks;
    this.faulty = trace.some((e) => e.kind === 'fault' || e.kind === 'abort');
    this.sizes = run.sinks.map((c) => new Map(c.updates.map((u) => [u.id, u.size])));
    this.inlineMax = run.sinks.map((c) => c.persist.inlineSingleMaxBytes);
    const perSink = (v: number): number[] => Array.from({ length: this.sinks }, () => v);
    this.head = perSink(-1);
    this.upper = perSink(0);
    this.referenced = perSink(0);
    this.registry = perSink(0);
    this.registryExtra = perSink(0);
    this.hosted = Array.from({ length: this.replicas }, () => new Set(Array.from({ length: this.sinks }, (_, s) => s)));
    this.restarting = Array.from({ length: this.replicas }, () => false);
  }

  predict(outcomes: ScheduleOutcomes): CostPrediction {
    const { t } = this;
    // Startup, per sink: every replica claims a writer (a registry scan and compare-and-set each), then
    // the shard is read once (a scan); nothing faults yet.
    for (let s = 0; s < this.sinks; s++) {
      for (let r = 0; r < this.replicas; r++) {
        this.claim(s);
        this.newWriter(s, r, r);
      }
      t.add('consensus.scans', 1);
    }
    for (const e of this.trace) this.event(e);
    this.end(outcomes);
    return this.result(outcomes);
  }

  claim(s: number): void {
    this.t.add('consensus.scans', 1);
    this.t.add('registry.cas', 1);
    this.t.add('registry.reached', 1);
    this.registry[s] = (this.registry[s] as number) + 1;
  }

  newWriter(sink: number, replica: number, incarnation: number): Writer {
    const w: Writer = { sink, replica, incarnation, have: -1, calls: 0, commits: 0, minted: 0, mintedSlack: 0, committed: 0, othersSince: 0, pending: false, flush: null, alive: true, staged: 0, stagedBytes: 0 };
    this.writers.set(key(sink, replica), w);
    this.everyWriter.push(w);
    return w;
  }

  writer(sink: number, replica: number): Writer {
    const w = this.writers.get(key(sink, replica));
    if (w === undefined) throw new Error(`cost: no writer for sink ${sink}, replica ${replica}`);
    return w;
  }

  // --- reads and commits ---------------------------------------------------------------------------

  /** A head read at a moment an event pins: it scans iff the shard has a version this writer lacks. */
  pinnedRead(w: Writer): void {
    this.t.add('consensus.heads', 1);
    const h = this.head[w.sink] as number;
    if (h > w.have) {
      this.t.add('consensus.scans', 1);
      w.have = h;
    }
    this.shardLostMax += w.othersSince;
    this.bumpsLostMax += w.othersSince;
    w.othersSince = 0;
  }

  /** A head read no event pins: it scans or not, as the schedule has it (and then spares at most the
   * writer's next pinned read its scan: the scans stay within [pinned, pinned + unpinned]). */
  unpinnedRead(why: string): void {
    this.t.add('consensus.heads', 1);
    this.t.range('consensus.scans', 0, 1, why);
  }

  commit(w: Writer, upper: number, lower: number, parts: readonly Part[] | null, token: number): void {
    const s = w.sink;
    this.head[s] = (this.head[s] as number) + 1;
    this.upper[s] = upper;
    w.have = this.head[s] as number;
    w.commits += 1;
    this.t.add('shard.cas', 1);
    this.t.add('shard.reached', 1);
    for (const other of this.writers.values()) if (other !== w && other.sink === s) other.othersSince += 1;
    const batch = parts === null ? null : { lower, parts };
    this.t.add('state.bytes', diffBytesWithoutKeys({ seqNo: this.head[s] as number, upper, writerLength: writerIdLength(w.incarnation, w.replica), token, batch }));
    if (parts !== null) {
      const hollow = parts.filter((p) => p.hollow).length;
      w.committed += hollow;
      this.referenced[s] = (this.referenced[s] as number) + hollow;
    }
  }

  // --- parts ---------------------------------------------------------------------------------------

  /** A built batch's parts: its cut (payload bytes per part) over its updates in the order they were
   * added (own: staged, ascending id; shared: push order); inline iff below the sink's inline limit. */
  partsOf(sink: number, b: BatchSummary, order: readonly number[]): Part[] {
    const size = this.sizes[sink] as ReadonlyMap<number, number>;
    const parts: Part[] = [];
    let i = 0;
    for (const bytes of b.partBytes) {
      let sum = 0;
      let n = 0;
      while (sum < bytes && i < order.length) {
        sum += size.get(order[i] as number) ?? 0;
        i += 1;
        n += 1;
      }
      parts.push({ payload: bytes, updates: n, hollow: bytes >= (this.inlineMax[sink] as number) });
    }
    return parts;
  }

  put(w: Writer, parts: readonly Part[]): void {
    for (const p of parts) {
      if (!p.hollow) continue;
      this.t.add('blob.puts', 1);
      this.t.add('blob.putBytes', partObjectBytes(p.payload, p.updates));
      w.minted += 1;
    }
  }

  /** The parts an ok append commits: what was handed for its description, all hollow after a flush. */
  partsFor(d: Desc | undefined): Part[] {
    if (d === undefined) return [];
    return d.hands.flat().map((p) => (d.flushed ? { ...p, hollow: true } : p));
  }

  confirmFlush(w: Writer): void {
    if (w.flush === null) return;
    this.t.add('blob.puts', w.flush.puts);
    this.t.add('blob.putBytes', w.flush.bytes);
    w.minted += w.flush.puts;
    w.flush = null;
  }

  descOf(sink: number, replica: number, lower: number): Desc | undefined {
    const l = this.live.get(key(sink, replica));
    if (l !== undefined && l.lower === lower) return l;
    const sp = this.superseded.get(key(sink, replica));
    return sp !== undefined && sp.lower === lower ? sp : undefined;
  }

  /** A notification the mint waits on: while its window is open, it may poll once more. */
  wake(sink: number, replica: number): void {
    if (this.window.get(key(sink, replica)) === true) this.t.range('mint.polls', 0, 1, 'a mint polls at most once per wake-up while its description may be superseded');
  }

  // --- the walk ------------------------------------------------------------------------------------

  event(e: TraceEvent): void {
    const { t } = this;
    const s = e.sink ?? 0;
    switch (e.kind) {
      case 'frontier':
        this.wake(s, e.replica);
        break;
      case 'mint': {
        const k = key(s, e.replica);
        const was = this.live.get(k);
        if (was !== undefined) this.superseded.set(k, was);
        this.live.set(k, { sharedId: e.desc.sharedId, lower: e.desc.lower, upper: e.desc.upper, hands: [], flushed: false });
        this.window.set(k, true);
        t.range('mint.polls', 0, 1, 'a mint polls at most once when its description may be superseded');
        t.range('points.mint.poll', 0, 1, "a description's window may close while its mint waits at its point");
        break;
      }
      case 'poll':
        this.unpinnedRead("a poll's read comes after a point of its own");
        // (its read comes after the event: in the fault world it may fail and its replica go down first)
        if (this.faulty) t.range('consensus.heads', -1, 0, "a poll's read may fail for good, or its replica go down, after the event");
        t.add('points.mint.poll', 1);
        break;
      case 'stage': {
        const w = this.writer(s, e.replica);
        const size = this.sizes[s] as ReadonlyMap<number, number>;
        w.staged += e.updates.length;
        // (each update's bytes and a part header's worst case: one part per update)
        for (const id of e.updates) w.stagedBytes += (size.get(id) ?? 0) + 6;
        this.built.delete(key(s, e.replica, e.worker));
        break;
      }
      case 'open': {
        t.add('points.registry-lock', 1);
        const ik = key(s, e.replica, e.process, e.sharedId);
        let inst = this.instances.get(ik);
        if (e.created || inst === undefined) {
          const early = this.earlySkips.get(ik) ?? 0;
          this.earlySkips.delete(ik);
          inst = { ids: [], chunks: 0, barrier: e.participants !== null, pending: e.participants === null ? 0 : e.participants - early, deliverer: null, handles: 0, finished: 0 };
          this.instances.set(ik, inst);
          this.everyInstance.push(inst);
        }
        inst.handles += 1;
        this.handleOf.set(key(s, e.replica, e.worker, e.sharedId), inst);
        break;
      }
      case 'push': {
        const inst = this.handleOf.get(key(s, e.replica, e.worker, e.sharedId));
        if (inst !== undefined) {
          inst.ids.push(...e.updates);
          inst.chunks += 1;
        }
        break;
      }
      case 'finish-begin': {
        const inst = this.handleOf.get(key(s, e.replica, e.worker, e.sharedId));
        if (inst?.barrier === true) {
          inst.pending -= 1;
          inst.deliverer = key(e.replica, e.worker);
        }
        break;
      }
      case 'skip': {
        t.add('points.registry-lock', 1);
        const ik = key(s, e.replica, e.process, e.sharedId);
        if (e.early) this.earlySkips.set(ik, (this.earlySkips.get(ik) ?? 0) + 1);
        else {
          const inst = this.instances.get(ik);
          if (inst !== undefined && inst.expired !== true) {
            inst.pending -= 1;
            // The finalizing arrival is a skip: the deliverer, a finisher waiting, wakes and passes a point.
            if (inst.pending === 0 && inst.deliverer !== null) t.range('points.barrier.wake', this.faulty ? 0 : 1, 1, 'an aborted deliverer never wakes');
          }
        }
        break;
      }
      case 'timeout': {
        // The barrier's deadline: it completes now when every handle that joined has finished (the
        // latest finisher, waiting, wakes and delivers), else when the last joined handle finishes.
        const inst = this.instances.get(key(s, e.replica, e.process, e.sharedId));
        if (inst !== undefined && inst.expired !== true) {
          inst.expired = true;
          if (e.completes && inst.deliverer !== null) t.range('points.barrier.wake', this.faulty ? 0 : 1, 1, 'an aborted deliverer never wakes');
        }
        break;
      }
      case 'finish-end': {
        const inst = this.handleOf.get(key(s, e.replica, e.worker, e.sharedId));
        if (inst !== undefined) inst.finished += 1;
        if (e.received !== null) {
          const parts = this.partsOf(s, e.received, inst?.ids ?? e.received.updates);
          this.put(this.writer(s, e.replica), parts);
          this.built.set(key(s, e.replica, e.worker), parts);
        }
        break;
      }
      case 'own-batch': {
        const parts = this.partsOf(s, e.batch, e.batch.updates);
        this.put(this.writer(s, e.replica), parts);
        // An own batch honours persist_batch_max_runs: its merges of runs rewrite their parts.
        t.add('compaction.rewrites', compaction(parts.length, this.maxRuns(s)).rewrites);
        this.built.set(key(s, e.replica, e.worker), parts);
        break;
      }
      case 'hand': {
        const k = key(s, e.replica);
        const d = this.live.get(k)?.sharedId === e.sharedId ? this.live.get(k) : this.superseded.get(k);
        if (d !== undefined && e.batches.length > 0) d.hands.push(this.built.get(key(s, e.replica, e.worker)) ?? []);
        this.built.delete(key(s, e.replica, e.worker));
        break;
      }
      case 'backpressure': {
        // The refused step read the shard (pinned: the event is that step); then the flush PUTs every
        // inline part of the append (counted once the retry shows they all went out).
        const w = this.writer(s, e.replica);
        this.pinnedRead(w);
        const d = this.descOf(s, e.replica, e.lower);
        let puts = 0;
        let bytes = 0;
        if (d !== undefined && !d.flushed) {
          for (const p of d.hands.flat()) {
            if (p.hollow) continue;
            puts += 1;
            bytes += partObjectBytes(p.payload, p.updates);
          }
          d.flushed = true;
        }
        w.flush = { puts: (w.flush?.puts ?? 0) + puts, bytes: (w.flush?.bytes ?? 0) + bytes };
        break;
      }
      case 'append': {
        const w = this.writer(s, e.replica);
        this.confirmFlush(w);
        const d = this.descOf(s, e.replica, e.lower);
        this.window.set(key(s, e.replica), false);
        if (w.pending) {
          // The re-read after an applied compare-and-set whose answer was lost: it finds its token.
          w.pending = false;
          this.pinnedRead(w);
        } else {
          this.pinnedRead(w);
          if (e.result.ok) this.commit(w, e.upper, e.lower, e.batches === 0 ? null : this.partsFor(d), w.calls);
          w.calls += 1;
        }
        if (e.result.ok || e.batches === 0) this.live.delete(key(s, e.replica));
        this.wake(s, e.replica);
        if (e.result.ok) for (let r = 0; r < this.replicas; r++) if (r !== e.replica) this.wake(s, r);
        break;
      }
      case 'bump': {
        const w = this.writer(s, e.replica);
        if (w.pending) {
          w.pending = false;
          this.pinnedRead(w);
        } else {
          // The refused attempt (current < lower) read first, at a moment no event pins; then the bump.
          this.unpinnedRead('the refused attempt before a bump reads at a moment no event pins');
          this.pinnedRead(w);
          this.commit(w, e.to, e.from, null, w.calls + 1);
          w.calls += 2;
        }
        for (let r = 0; r < this.replicas; r++) this.wake(s, r);
        break;
      }
      case 'delete': {
        const d = this.descOf(s, e.replica, e.lower);
        if (d !== undefined) {
          const parts = d.hands.flat();
          t.add('blob.deletes', d.flushed ? parts.length : parts.filter((p) => p.hollow).length);
        }
        if (e.reason === 'stale') this.superseded.delete(key(s, e.replica));
        else this.live.delete(key(s, e.replica));
        this.wake(s, e.replica);
        break;
      }
      case 'sweep':
        // The call passes its point again after its sweep, holding the lock: other calls may wait.
        t.add('points.registry-lock', 1);
        this.lockWaitsMax += this.registryWorkers - 1;
        break;
      case 'sweep-hold':
        this.lockWaitsMax += 2 * (this.registryWorkers - 1);
        break;
      case 'fault':
        this.fault(e);
        break;
      case 'abort': {
        const w = this.writer(s, e.replica);
        if (w.alive) this.abort(w);
        this.restarting[e.replica] = true;
        // A restart starts with fresh registries: no instance or early skip of this one carries over.
        for (const m of [this.instances, this.earlySkips]) for (const k of [...m.keys()]) if (k.startsWith(key(s, e.replica, ''))) m.delete(k);
        this.window.set(key(s, e.replica), false);
        this.live.delete(key(s, e.replica));
        this.superseded.delete(key(s, e.replica));
        break;
      }
      case 'restart': {
        // A new incarnation's writer: a claim (a scan and a compare-and-set), then a read of the shard.
        const incarnation = this.registry[s] as number;
        this.claim(s);
        t.add('consensus.scans', 1);
        this.newWriter(s, e.replica, incarnation);
        if (this.restarting[e.replica] === true) {
          this.hosted[e.replica] = new Set();
          this.restarting[e.replica] = false;
        }
        this.hosted[e.replica]?.add(s);
        break;
      }
      case 'cleanup':
        // The registry and the state (a scan each), the blob listing, its deletes.
        t.add('consensus.scans', 2);
        t.add('blob.lists', 1);
        t.add('blob.deletes', e.deleted);
        break;
      default:
        break;
    }
  }

  /** A storage failure the run survived (or a permanent one): what trying again costs. */
  fault(e: Extract<TraceEvent, { kind: 'fault' }>): void {
    const { t } = this;
    const s = e.sink ?? 0;
    const why = `a ${e.op} that failed (${e.fault}) is tried again`;
    const supervisor = e.by === 'supervisor';
    if (e.fault === 'permanent') {
      // An incarnation's: its replica goes down (the abort's slack covers the rest). A supervisor step's:
      // it starts over — a restart claims again (a scan and a compare-and-set, a registry version more),
      // a cleanup reads, lists and deletes again, a retirement commits again.
      if (e.op === 'consensus.cas') t.add(supervisor ? 'registry.cas' : 'shard.cas', 1);
      if (!supervisor) return;
      this.registryExtra[s] = (this.registryExtra[s] as number) + 1;
      t.range('consensus.scans', 0, 3, why);
      t.range('registry.cas', 0, 1, why);
      t.range('registry.reached', 0, 1, why);
      t.range('blob.lists', 0, 1, why);
      if (e.op === 'blob.delete') t.range('blob.deletes', 0, this.t.max.get('blob.puts') ?? 0, why);
      return;
    }
    switch (e.op) {
      case 'consensus.cas':
        if (supervisor) {
          // The writer registry: the attempt counts as a registration; the command is made again on the
          // registry as it is then (a scan first, unless a failure for good cuts the step short). An
          // applied one committed a version nobody holds (a claim's: expired by the next; a
          // retirement's: recorded twice).
          t.add('registry.cas', 1);
          t.range('consensus.scans', 0, 1, why);
          this.registryFaults += 1;
          if (e.fault === 'indeterminate-applied') {
            t.add('registry.reached', 1);
            this.registryExtra[s] = (this.registryExtra[s] as number) + 1;
          }
        } else {
          const w = this.writer(s, e.replica);
          if (e.fault === 'indeterminate-applied') {
            if (w.alive) this.appliedCommit(w);
          } else {
            // The attempt counts as a command; it did not reach the store (or lost its race there);
            // the loop reads again (a scan when the shard moved meanwhile).
            t.add('shard.cas', 1);
            this.unpinnedRead(why);
          }
        }
        break;
      case 'consensus.head':
      case 'consensus.scan':
        // Tried again after a point: the read that succeeds comes later (a scan may come or go).
        t.range('consensus.scans', 0, 1, why);
        break;
      case 'blob.set':
        // Applied: the retry finds the key taken and reads it back to compare its bytes (unless the
        // retry fails for good first, or its replica goes down).
        if (e.fault === 'indeterminate-applied') t.range('blob.gets', 0, 1, why);
        break;
      case 'blob.delete':
        // Applied: the retry deletes again (deleting a missing key is a delete).
        if (e.fault === 'indeterminate-applied') t.add('blob.deletes', 1);
        break;
      default:
        break;
    }
  }

  /** An indeterminate compare-and-set of the shard that applied: the live description's append (or
   * its bump, when the shard is behind its lower) committed at this step; its event follows a re-read. */
  appliedCommit(w: Writer): void {
    const d = this.live.get(key(w.sink, w.replica));
    const upper = this.upper[w.sink] as number;
    this.confirmFlush(w);
    if (d !== undefined && upper < d.lower) {
      this.unpinnedRead('the refused attempt before a bump reads at a moment no event pins');
      this.pinnedRead(w);
      this.commit(w, d.lower, upper, null, w.calls + 1);
      w.calls += 2;
    } else {
      this.pinnedRead(w);
      this.commit(w, d?.upper ?? upper, d?.lower ?? upper, d === undefined || d.hands.length === 0 ? null : this.partsFor(d), w.calls);
      w.calls += 1;
    }
    // The writer did not learn of its commit: its re-read finds the new version (and scans).
    w.have -= 1;
    w.pending = true;
  }

  /** An aborted incarnation's work that no event shows: parts of batches it never handed (at most one
   * per update it staged), an unconfirmed flush, deletes of its batches, the reads of an append or a
   * poll in flight. */
  abort(w: Writer): void {
    const { t } = this;
    const why = "an aborted incarnation's work no event shows";
    w.alive = false;
    t.range('blob.puts', 0, w.staged, why);
    t.range('blob.putBytes', 0, w.stagedBytes, why);
    w.mintedSlack += w.staged;
    if (w.flush !== null) {
      t.range('blob.puts', 0, w.flush.puts, why);
      t.range('blob.putBytes', 0, w.flush.bytes, why);
      w.mintedSlack += w.flush.puts;
      w.flush = null;
    }
    t.range('blob.deletes', 0, w.minted + w.mintedSlack, why);
    t.range('compaction.rewrites', 0, this.rewritesAtMost(w.staged, this.maxRuns(w.sink)), why);
    t.range('consensus.heads', 0, 3, why);
    t.range('consensus.scans', 0, 3, why);
    t.range('mint.polls', 0, 1, why);
    // a read that scanned the whole shard, then a lost race against every later commit
    this.shardLostMax += 1;
  }

  maxRuns(sink: number): number | undefined {
    return (this.run.sinks[sink] as ModelConfig).persist.maxRuns;
  }

  /** The most part rewrites own batches of at most `updates` parts in all can cost under `maxRuns`: each
   * batch of k parts costs at most k times the highest rewrites per part of any batch of ≤ `updates` parts. */
  rewritesAtMost(updates: number, maxRuns: number | undefined): number {
    let perPart = 0;
    for (let k = 1; k <= updates; k++) perPart = Math.max(perPart, compaction(k, maxRuns).rewrites / k);
    return Math.ceil(perPart * updates);
  }

  end(outcomes: ScheduleOutcomes): void {
    const { t } = this;
    // Retirements (with cleanup): each replica's last incarnation, once finished, retires its writer on
    // every sink it hosted (a registry scan and compare-and-set each).
    if (this.run.cleanup) for (const set of this.hosted) for (const s of set) this.claim(s);
    // The run's end, per sink: the shard's state and its writers are read (two scans) and the audit
    // reads every part the shard references and lists the store; with cleanup, the final cleanup (its
    // event), then the state again and the audit again; without, nothing wrote since: nothing more.
    for (let s = 0; s < this.sinks; s++) {
      const audits = this.run.cleanup ? 2 : 1;
      t.add('consensus.scans', audits + 1);
      t.add('blob.lists', audits);
      t.add('blob.gets', audits * (this.referenced[s] as number));
    }
    // What the schedule decided: lost races (one more read, scan and compare-and-set each), lost bumps
    // (two more reads each, at moments no event pins).
    // (in the fault world an abort may come right after a lost race, before its re-read)
    if (this.faulty) t.range('consensus.heads', 0, outcomes.shardCasLost + 2 * outcomes.bumpsLost, 'an abort may come before a lost race or bump reads again');
    else t.add('consensus.heads', outcomes.shardCasLost + 2 * outcomes.bumpsLost);
    t.add('shard.cas', outcomes.shardCasLost);
    t.range('consensus.scans', 0, outcomes.shardCasLost, "a lost race re-reads, and scans; whether the read before it scanned is the schedule's");
    t.range('consensus.scans', 0, 2 * outcomes.bumpsLost, 'a lost bump reads twice at moments no event pins');
    // The registry's lost races: the store's lost compare-and-sets that were not the shards' (in the
    // fault world, some of those may be the shards' applied-looking attempts that had lost).
    const registryLost = Math.max(0, outcomes.storeCasLost - outcomes.shardCasLost);
    if (this.faulty) {
      t.range('registry.cas', 0, registryLost, 'which lost compare-and-sets were the registry’s is the schedule’s');
      t.range('consensus.scans', 0, registryLost, 'a registry that lost its race loads again');
    } else {
      t.add('registry.cas', registryLost);
      t.add('consensus.scans', registryLost);
    }
    // The store saw every compare-and-set that committed and every one that lost there.
    t.add('store.cas', outcomes.storeCasLost);
    // Keys of committed hollow parts: their numbers are the schedule's when a writer minted more than
    // it committed, or an incarnation number (after a restart) when registry versions were written that
    // the trace does not order (retirements, claims started over).
    for (const w of this.everyWriter) {
      const restarted = w.incarnation >= this.replicas;
      const incarnationMax = restarted ? w.incarnation + (this.run.cleanup ? this.replicas : 0) + (this.registryExtra[w.sink] as number) : w.incarnation;
      const lo = writerIdLength(w.incarnation, w.replica);
      const hi = writerIdLength(incarnationMax, w.replica);
      const keys = { min: keyBytesBounds(lo, w.minted, w.committed).min, max: keyBytesBounds(hi, w.minted + w.mintedSlack, w.committed).max };
      t.range('state.bytes', keys.min, keys.max, "part numbers: which of a writer's parts the shard kept is the schedule's");
      t.range('state.bytes', 0, w.commits * (hi - lo), 'a restarted writer’s incarnation number is the schedule’s');
      if (outcomes.bumpsLost > 0 && w.calls + 2 * outcomes.bumpsLost >= 128) t.range('state.bytes', 0, w.commits, 'a lost bump takes two tokens');
    }
    // Waits and wake-ups.
    t.range('points.registry-lock', 0, this.lockWaitsMax, 'a call that comes while another sweeps waits for the lock and passes its point again');
    for (const inst of this.everyInstance) {
      // Once per chunk and once at its close, and at most once empty before each of them.
      const settled = inst.handles > 0 && inst.finished === inst.handles;
      t.range('points.builder.recv', settled ? inst.chunks + 1 : 0, 2 * (inst.chunks + 1), 'a builder task reads its channel empty at most once before each chunk and its close');
    }
  }

  result(outcomes: ScheduleOutcomes): CostPrediction {
    const { t } = this;
    const counters = Object.fromEntries(COST_COUNTERS.map((c) => [c, t.bound(c)])) as Record<CostCounter, CostBound>;
    // The store's compare-and-sets: every commit (shards and registries) and every one that lost there.
    const reached = ['shard.reached', 'registry.reached', 'store.cas'].map((c) => t.bound(c));
    counters['consensus.cas'] = {
      min: reached.reduce((n, b) => n + b.min, 0),
      max: reached.reduce((n, b) => n + b.max, 0),
      why: reached.flatMap((b) => b.why),
    };
    void outcomes;
    return {
      counters,
      outcomes: {
        shardCasLost: { min: 0, max: this.shardLostMax, why: ["a compare-and-set loses its race only to another writer's commit between its read and its send"] },
        registryCasLost: {
          min: 0,
          max: this.faulty ? this.registryFaults + 2 * this.replicas * this.sinks + (this.trace.filter((e) => e.kind === 'fault' && e.op === 'consensus.cas').length) : 0,
          why: ['only supervisor steps (restarts, retirements) write a registry concurrently, and only in the fault world'],
        },
        bumpsLost: { min: 0, max: this.bumpsLostMax, why: ["a bump loses only to another writer moving the shard"] },
      },
    };
  }
}
