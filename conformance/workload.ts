/**
 * Workloads for the conformance suite: what fast-check generates and shrinks, and how a workload
 * becomes the implementation's updates and the model's configuration.
 *
 * A workload names a *load class* per (interval, worker) rather than raw rows, so that shrinking moves
 * towards fewer, simpler loads and every class means the same thing at any threshold:
 * - `none`: no updates;
 * - `tiny`: one small update (its part is inline);
 * - `medium`: two updates, together above the inline limit and below the threshold (hollow, shared);
 * - `boundary`: staged bytes exactly equal to the threshold (must fall back: the rule is strict `<`);
 * - `large`: above the threshold (falls back to the worker's own batch);
 * - `inline-edge`: staged bytes exactly INLINE_EDGE (4096): with the run's inline_writes_single_max_bytes
 *   at 4095, 4096 or 4097, an own (or lone shared) part sits one above, exactly at, or one below the limit;
 * - `cut-edge`: two updates of exactly CUT_EDGE (6000) bytes together, then a tiny one: with the run's
 *   blob_target_size at 5999, 6000 or 6001 the builder cuts one above, exactly at, or not at the target.
 *
 * The other persist limit, inline_writes_total_max_bytes, is hit by computing it: in `edge` mode it is
 * the inline bytes the first description's append carries (lockstep), minus one, exactly, or plus one.
 */
import fc from 'fast-check';
import type { NoDataPolicy, PersistConfig, SinkVersion, Variant, VariantOptionSpec, VariantOptionValues } from '../vocab/index.ts';
import { encodedUpdateSize, partitionWorker, type Update } from '../impl/update.ts';
import { swarmArb, swarmFlags, swarmLoad, swarmPersist, swarmShape } from './swarm.ts';
import { sharesAtAll, variantMeta } from '../impl/variants/index.ts';
import { MODEL_DEFAULTS } from '../model/defaults.ts';
import { defaultBarrier } from '../model/variants/index.ts';

import { CUT_EDGE, INLINE_EDGE, type LoadClass } from './load-classes.ts';

export { CUT_EDGE, INLINE_EDGE, LOAD_CLASSES, type LoadClass } from './load-classes.ts';

export interface Workload {
  readonly variant: Variant;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  /** The sinks' as-of: intervals below it carry no updates; above the fresh shard's upper 0, the first
   * append bumps the shard. */
  readonly asOf: number;
  /** The threshold the load classes are sized against. */
  readonly threshold: number;
  /** The knob as read at mint, by the description's lower (the last value holds beyond the list). */
  readonly knob: readonly number[];
  /** The barrier flag by the replica's desired frontier when it is read (the last value holds beyond
   * the list): it may flip between intervals. Ignored by the off variant. */
  readonly barrierFlags: readonly boolean[];
  /** loads[interval][worker], worker ∈ [0, processes·workersPerProcess). */
  readonly loads: readonly (readonly LoadClass[])[];
  readonly blobTargetSize: number;
  readonly inlineSingleMaxBytes: number;
  readonly inlineTotalMaxBytes: number;
  readonly pushChunkUpdates: number;
  /** 'lockstep': the input advances once the sink caught up; 'free': it may run ahead, so one
   * description can span several frontier steps. */
  readonly pacing: 'lockstep' | 'free';
  /** What a worker with no data for a shared description does (impl RunConfig.noData, the model's
   * noData): 'skip' (nothing; a skip under the barrier) or 'finish' (open a handle, finish it empty). */
  readonly noData: NoDataPolicy;
  /** Which MV sink (impl RunConfig.sink): 'v2', the sync sink, shares as the variant says; 'v1', the
   * async sink, never shares (every worker writes its own batch). Both supersede. */
  readonly sink: SinkVersion;
  /** More MV sinks in each replica (impl RunConfig.sinks = 1 + this list's length; absent: one sink):
   * per extra sink its own loads[interval][worker], shaped like `loads`. Every sink has its own shard
   * and desired collection and shares the replica's per-process registries with the others. */
  readonly sinkLoads?: readonly (readonly (readonly LoadClass[])[])[];
  /** How update ids are assigned (absent: 'time'). An update id is only a name: 'time' numbers the
   * updates in time order; 'reversed' numbers each interval's block of updates after the later
   * intervals' blocks (ascending within an interval, as staged), so a worker's updates of several
   * intervals are out of id order and a description spanning them must sort them (the staged order is
   * by id). */
  readonly idOrder?: IdOrder;
  /** The variant's options (impl RunConfig.variantOptions; absent: a variant without options). */
  readonly variantOptions?: VariantOptionValues;
  /** persist_batch_max_runs (absent: 1, Materialize's default, which no builder compacts at): own
   * batches compact their runs to at most this many (vocab PersistConfig.maxRuns); the shared builder
   * ignores it. */
  readonly maxRuns?: number;
}

export type IdOrder = 'time' | 'reversed';

/** The MV sinks of a workload's replicas. */
export const sinksOf = (w: Workload): number => 1 + (w.sinkLoads?.length ?? 0);

/** The no-data policy of workloads made before it existed (replay tokens) and the minimizer's goal. */
export const DEFAULT_NO_DATA: NoDataPolicy = 'skip';

/** The sink of workloads made before it existed (replay tokens) and the minimizer's goal. */
export const DEFAULT_SINK: SinkVersion = 'v2';

export const THRESHOLD = 8192;
/** Materialize's persist defaults, as the model states them (model/defaults.ts). */
export const INLINE_SINGLE_MAX = MODEL_DEFAULTS.persist.inlineSingleMaxBytes;
export const DEFAULT_BLOB_TARGET = MODEL_DEFAULTS.persist.blobTargetSize;
export const DEFAULT_INLINE_TOTAL = MODEL_DEFAULTS.persist.inlineTotalMaxBytes;
/** How inline_writes_total_max_bytes is chosen: the default, small (200), or at the first append's inline
 * bytes −1, exactly, +1 (`edge`). */
export type InlineTotalMode = 'default' | 'small' | 'edge-1' | 'edge' | 'edge+1';

export interface WorkloadBounds {
  readonly maxWorkersPerProcess: number;
  readonly maxProcesses: number;
  readonly maxReplicas: number;
  readonly maxIntervals: number;
}

export const DEFAULT_BOUNDS: WorkloadBounds = {
  maxWorkersPerProcess: 8,
  maxProcesses: 2,
  maxReplicas: 2,
  maxIntervals: 6,
};

/**
 * The arbitrary of workloads for one variant. Every field is generated independently (no `chain`, which
 * shrinks poorly) at the largest shape; the shape integers then select the rows and columns in use, so
 * the shape, the loads and the knob all shrink on their own.
 */
export function workloadArb(variant: Variant, bounds: WorkloadBounds = DEFAULT_BOUNDS): fc.Arbitrary<Workload> {
  const base = workloadWithoutOptions(variant, bounds);
  // The variant's options (vocab VariantOptionSpec), drawn after everything else: a variant without
  // options draws exactly what it drew before options existed.
  const options = variantMeta(variant).options;
  if (options.length === 0) return base;
  const optionsArb = fc.record(Object.fromEntries(options.map((o) => [o.name, fc.constantFrom(...optionChoices(o))])));
  return fc.tuple(base, optionsArb).map(([w, variantOptions]) => ({ ...w, variantOptions }));
}

/** The values the check tries for an option: its default, 0, and `inf` where allowed (under a choice
 * scheduler a duration matters only as zero, some or never: the scheduler decides when a timer fires). */
function optionChoices(o: VariantOptionSpec): number[] {
  return [...new Set([o.default, 0, ...(o.inf ? [Number.POSITIVE_INFINITY] : [])])];
}

function workloadWithoutOptions(variant: Variant, bounds: WorkloadBounds): fc.Arbitrary<Workload> {
  const maxWorkers = bounds.maxWorkersPerProcess * bounds.maxProcesses;
  return fc
    .record({
      workersPerProcess: fc.integer({ min: 1, max: bounds.maxWorkersPerProcess }),
      processes: fc.integer({ min: 1, max: bounds.maxProcesses }),
      replicas: fc.integer({ min: 1, max: bounds.maxReplicas }),
      intervals: fc.integer({ min: 1, max: bounds.maxIntervals }),
      // Mostly 0 (the fresh shard's upper); sometimes ahead of it, so the first append bumps the shard.
      asOf: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: bounds.maxIntervals - 1 }) }),
      // Mostly the threshold; sometimes 0 (sharing off for that interval) or twice it (large loads then
      // share too): the knob changes between intervals.
      knob: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(THRESHOLD) }, { weight: 1, arbitrary: fc.constantFrom(0, 2 * THRESHOLD) }), {
        minLength: 1,
        maxLength: bounds.maxIntervals,
      }),
      // Used when the swarm flips the flag (best-effort and barrier); else the variant's own mode.
      barrierFlags: fc.array(fc.boolean(), { minLength: 2, maxLength: bounds.maxIntervals + 1 }),
      loads: fc.array(fc.array(loadArb, { minLength: maxWorkers, maxLength: maxWorkers }), {
        minLength: bounds.maxIntervals,
        maxLength: bounds.maxIntervals,
      }),
      // A small target makes shared batches span several parts, exercising the cut rule; the targets one
      // either side of CUT_EDGE put a cut exactly at, or one off, the target.
      blobTargetSize: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(DEFAULT_BLOB_TARGET, CUT_EDGE) },
        { weight: 1, arbitrary: fc.constantFrom(CUT_EDGE - 1, CUT_EDGE + 1) },
      ),
      inlineSingleMaxBytes: fc.oneof(
        { weight: 3, arbitrary: fc.constant(INLINE_SINGLE_MAX) },
        { weight: 1, arbitrary: fc.constantFrom(INLINE_EDGE - 1, INLINE_EDGE + 1) },
      ),
      inlineTotal: fc.constantFrom<InlineTotalMode>('default', 'default', 'small', 'edge-1', 'edge', 'edge+1'),
      pushChunkUpdates: fc.constantFrom(256, 1),
      pacing: fc.constantFrom('lockstep' as const, 'free' as const),
      // Both policies in every budget; drawn last, so every other field is drawn as before it existed.
      noData: fc.constantFrom<NoDataPolicy>('skip', 'finish'),
      // Mostly the sync sink (the sharing variants are about it); drawn after the no-data policy.
      sink: fc.constantFrom<SinkVersion>('v2', 'v2', 'v2', 'v1'),
      // Which features and regimes this run enables (swarm.ts).
      swarm: swarmArb(),
      // A second MV sink in about a quarter of runs, with loads of its own; drawn after everything else.
      moreSinks: fc.oneof(
        { weight: 3, arbitrary: fc.constant<LoadClass[][][]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(fc.array(fc.array(loadArb, { minLength: maxWorkers, maxLength: maxWorkers }), { minLength: bounds.maxIntervals, maxLength: bounds.maxIntervals }), {
            minLength: 1,
            maxLength: 1,
          }),
        },
      ),
      // Update ids out of time order in a quarter of runs (drawn after every other field but the last).
      idOrder: fc.constantFrom<IdOrder>('time', 'time', 'time', 'reversed'),
      // persist_batch_max_runs 2 in a quarter of runs, with a blob target of 1 byte (every update a part
      // of its own) and every part hollow, so own batches have more parts than runs and compact them,
      // and the parts are blobs the audit sees; drawn last.
      maxRuns: fc.constantFrom(1, 1, 1, 2),
    })
    .map(({ swarm, moreSinks, idOrder, maxRuns, ...drawn }) => {
      const g = { ...drawn, ...swarmShape(swarm, drawn), ...swarmPersist(swarm, drawn) };
      const workers = g.workersPerProcess * g.processes;
      const asOf = Math.min(g.asOf, g.intervals - 1);
      const w: Workload = {
        variant,
        replicas: g.replicas,
        processes: g.processes,
        workersPerProcess: g.workersPerProcess,
        intervals: g.intervals,
        asOf,
        threshold: THRESHOLD,
        knob: g.knob.slice(0, g.intervals),
        barrierFlags: sharesAtAll(variant) ? swarmFlags(swarm, g.barrierFlags, g.intervals, defaultBarrier(variant)) : [false],
        loads: g.loads.slice(0, g.intervals).map((row, t) => row.slice(0, workers).map((l, worker) => (t < asOf ? 'none' : swarmLoad(swarm, l, worker, g.workersPerProcess)))),
        blobTargetSize: g.blobTargetSize,
        inlineSingleMaxBytes: g.inlineSingleMaxBytes,
        inlineTotalMaxBytes: DEFAULT_INLINE_TOTAL,
        pushChunkUpdates: g.pushChunkUpdates,
        pacing: g.pacing,
        noData: g.noData,
        sink: g.sink,
        ...(moreSinks.length === 0
          ? {}
          : {
              sinkLoads: moreSinks.map((loads) =>
                loads.slice(0, g.intervals).map((row, t) => row.slice(0, workers).map((l, worker) => (t < asOf ? 'none' : swarmLoad(swarm, l, worker, g.workersPerProcess)))),
              ),
            }),
        ...(idOrder === 'time' ? {} : { idOrder }),
        ...(maxRuns === 1 ? {} : { maxRuns, blobTargetSize: 1, inlineSingleMaxBytes: 0 }),
      };
      return { ...w, inlineTotalMaxBytes: inlineTotalFor(w, g.inlineTotal) };
    });
}

/** Load classes, the simple ones more often (the edges are for the persist limits). */
const loadArb: fc.Arbitrary<LoadClass> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<LoadClass>('tiny', 'medium', 'none', 'large', 'boundary') },
  { weight: 1, arbitrary: fc.constantFrom<LoadClass>('inline-edge', 'cut-edge') },
);

/** inline_writes_total_max_bytes for a mode; `edge` modes without inline bytes fall back to the default. */
export function inlineTotalFor(w: Workload, mode: InlineTotalMode): number {
  switch (mode) {
    case 'default':
      return DEFAULT_INLINE_TOTAL;
    case 'small':
      return 200;
    default: {
      const first = firstAppendInlineBytes(w);
      if (first === 0) return DEFAULT_INLINE_TOTAL;
      return first + (mode === 'edge-1' ? -1 : mode === 'edge' ? 0 : 1);
    }
  }
}

/**
 * The inline payload bytes the first description's append carries when the sink keeps up (lockstep:
 * the description is [asOf, asOf + 1)): per process the workers that share make one batch, the others
 * their own. Parts are cut as persist cuts them (in staged order per worker, workers in index order —
 * the order matters only when a small blob target cuts a shared batch, and then this is a guess).
 */
function firstAppendInlineBytes(w: Workload): number {
  const t = w.asOf;
  const row = w.loads[t] ?? [];
  const knob = knobAt(w, t);
  const sharing = sharesAtAll(w.variant) && knob > 0;
  const workers = w.processes * w.workersPerProcess;
  let inline = 0;
  const addBatch = (sizes: readonly number[]): void => {
    for (const part of cut(sizes, w.blobTargetSize)) if (part < w.inlineSingleMaxBytes) inline += part;
  };
  for (let p = 0; p < w.processes; p++) {
    const shared: number[] = [];
    for (let worker = p * w.workersPerProcess; worker < (p + 1) * w.workersPerProcess; worker++) {
      const sizes = loadShape('', row[worker] ?? 'none', t, worker, workers, w.threshold).map((u) => u.size);
      const bytes = sizes.reduce((a, b) => a + b, 0);
      if (sizes.length === 0) continue;
      if (sharing && bytes < knob) shared.push(...sizes);
      else addBatch(sizes);
    }
    if (shared.length > 0) addBatch(shared);
  }
  return inline;
}

/** Part payloads of updates of these sizes, cut as persist cuts them (at or above the target). */
function cut(sizes: readonly number[], target: number): number[] {
  const parts: number[] = [];
  let buffered = 0;
  for (const size of sizes) {
    buffered += size;
    if (buffered >= target) {
      parts.push(buffered);
      buffered = 0;
    }
  }
  if (buffered > 0) parts.push(buffered);
  return parts;
}

export function persistOf(w: Workload): PersistConfig {
  return {
    blobTargetSize: w.blobTargetSize,
    inlineSingleMaxBytes: w.inlineSingleMaxBytes,
    inlineTotalMaxBytes: w.inlineTotalMaxBytes,
    ...(w.maxRuns === undefined ? {} : { maxRuns: w.maxRuns }),
  };
}

/**
 * The persist tunables a run hands the implementation: only those that differ from Materialize's
 * defaults (the values above, this kit's own statement of them), so most runs run on the
 * implementation's defaults and a wrong default there is caught (Stryker: with every tunable always
 * set, `MiB = 1024 / 1024` in impl/persist/config.ts passed). The model always gets all three
 * (persistOf).
 */
export function persistOverrides(w: Workload): Partial<PersistConfig> {
  const all = persistOf(w);
  return {
    ...(all.blobTargetSize === DEFAULT_BLOB_TARGET ? {} : { blobTargetSize: all.blobTargetSize }),
    ...(all.inlineSingleMaxBytes === INLINE_SINGLE_MAX ? {} : { inlineSingleMaxBytes: all.inlineSingleMaxBytes }),
    ...(all.inlineTotalMaxBytes === DEFAULT_INLINE_TOTAL ? {} : { inlineTotalMaxBytes: all.inlineTotalMaxBytes }),
    ...(all.maxRuns === undefined ? {} : { maxRuns: all.maxRuns }),
  };
}

/** The knob's value for a description with this lower. */
export function knobAt(w: Workload, lower: number): number {
  return w.knob[Math.min(lower, w.knob.length - 1)] ?? 0;
}

/** The barrier flag's value when read at this desired frontier. */
export function barrierAt(w: Workload, desired: number): boolean {
  return w.barrierFlags[Math.min(desired, w.barrierFlags.length - 1)] ?? false;
}

/**
 * The workload's updates, identical for every replica. Keys are searched so that each update hashes to
 * the worker its load belongs to (the implementation spreads updates by key hash), and value lengths
 * are chosen so that staged bytes land exactly where the load class says.
 */
export function materialize(w: Workload): Update[] {
  const workers = w.processes * w.workersPerProcess;
  const rows = w.loads.map((row, time) => row.map((load, worker) => loadShape('', load, time, worker, workers, w.threshold)));
  return numbered(rows, 0, w.idOrder);
}

/**
 * The updates of `rows[time][worker]` (each a list of shapes, in staged order), in time order, with ids
 * from `base` on: each interval's block of ids in `order` (see Workload.idOrder), ascending within it.
 */
function numbered(rows: readonly (readonly (readonly { readonly key: string; readonly valueLen: number }[])[])[], base: number, order: IdOrder | undefined): Update[] {
  const counts = rows.map((row) => row.reduce((n, shape) => n + shape.length, 0));
  const firstIds = new Array<number>(counts.length);
  let next = base;
  const times = counts.map((_, t) => t);
  for (const t of order === 'reversed' ? times.reverse() : times) {
    firstIds[t] = next;
    next += counts[t] as number;
  }
  const updates: Update[] = [];
  rows.forEach((row, time) => {
    let id = firstIds[time] as number;
    for (const shape of row) {
      for (const { key, valueLen } of shape) {
        updates.push({ id, key, value: valueBytes(id, valueLen), time, diff: 1 });
        id += 1;
      }
    }
  });
  return updates;
}

interface UpdateShape {
  readonly key: string;
  readonly valueLen: number;
  /** Its encoded size (memoized with the shape). */
  readonly size: number;
}

/**
 * The keys and value lengths of one load, in staged order. A pure function of its arguments, memoized:
 * finding keys that hash to a worker and value lengths that land exactly on the threshold were most of
 * materialize's cost, and workloads repeat the same few (load, time, worker, shape) combinations.
 */
const shapes = new Map<string, readonly UpdateShape[]>();
function loadShape(prefix: string, load: LoadClass, time: number, worker: number, workers: number, threshold: number): readonly UpdateShape[] {
  const memo = `${prefix}/${load}/${time}/${worker}/${workers}/${threshold}`;
  let shape = shapes.get(memo);
  if (shape === undefined) {
    const keys: string[] = [];
    const key = (n: number): string => (keys[n] ??= keyFor(prefix, time, worker, n, workers));
    shape = valueLengths(load, threshold, key).map((valueLen, n) => ({ key: key(n), valueLen, size: sizeOf(key(n), valueLen) }));
    shapes.set(memo, shape);
  }
  return shape;
}

/** The n-th key `<prefix>t<time>-w<worker>-<salt>` that hashes to `worker`. Deterministic. */
function keyFor(prefix: string, time: number, worker: number, n: number, workers: number): string {
  let found = -1;
  for (let salt = 0; ; salt++) {
    const key = `${prefix}t${time}-w${worker}-${salt}`;
    if (partitionWorker(key, workers) === worker && ++found === n) return key;
  }
}

/** Byte i of update `seed`'s value is (seed·31 + i) mod 256: a window of one repeating 0…255 ramp. */
let ramp = new Uint8Array(0);
function valueBytes(seed: number, len: number): Uint8Array {
  const start = (seed * 31) & 0xff;
  if (ramp.length < start + len) {
    ramp = new Uint8Array(2 * (256 + len));
    for (let i = 0; i < ramp.length; i++) ramp[i] = i & 0xff;
  }
  // A view, not a copy (nothing writes an update's value; a grown ramp leaves old views on the old one).
  return ramp.subarray(start, start + len);
}

/** Value lengths of the updates of one load, in staged order. */
function valueLengths(load: LoadClass, threshold: number, key: (n: number) => string): number[] {
  const size = (n: number, len: number) => sizeOf(key(n), len);
  switch (load) {
    case 'none':
      return [];
    case 'tiny':
      return [8];
    case 'medium':
      return [2400, 2400];
    case 'large':
      return [threshold / 2, threshold / 2 + 1000];
    case 'boundary':
      return exactly(threshold, size);
    case 'inline-edge':
      return exactly(INLINE_EDGE, size);
    case 'cut-edge':
      return [...exactly(CUT_EDGE, size), 8];
  }
}

/** Two value lengths whose updates together have exactly `total` payload bytes. */
function exactly(total: number, size: (n: number, len: number) => number): number[] {
  const first = Math.floor(total / 2);
  const rest = total - size(0, first);
  return [first, lengthForSize(rest, (len) => size(1, len))];
}

function sizeOf(key: string, valueLen: number): number {
  // (a view of the ramp, not a fresh value: the size reads only its length)
  return encodedUpdateSize({ id: 0, key, value: valueBytes(0, valueLen), time: 0, diff: 1 });
}

/** The value length whose encoded update has exactly `target` bytes. size(len) = c + len + varint(len),
 * so len is within a few bytes (the length prefix's size) below target − c, where c = size(0) − 1. */
function lengthForSize(target: number, size: (len: number) => number): number {
  const base = target - (size(0) - 1);
  for (let len = Math.max(0, base - 10); len <= base; len++) if (size(len) === target) return len;
  throw new Error(`no value length gives an encoded update of exactly ${target} bytes`);
}

/**
 * Every MV sink's updates (index = sink; sink 0's are `materialize(w)`). Sink s > 0 materializes its own
 * loads the same way, its keys prefixed `s<s>-` and its ids continuing after the sinks before it, so no
 * two sinks' updates are alike (an update that lands in the wrong shard is foreign there, not a
 * duplicate).
 */
export function materializeSinks(w: Workload, first: readonly Update[] = materialize(w)): Update[][] {
  const out: Update[][] = [[...first]];
  let nextId = first.length;
  const workers = w.processes * w.workersPerProcess;
  for (const [i, loads] of (w.sinkLoads ?? []).entries()) {
    const prefix = `s${i + 1}-`;
    const rows = loads.map((row, time) => row.map((load, worker) => loadShape(prefix, load, time, worker, workers, w.threshold)));
    const updates = numbered(rows, nextId, w.idOrder);
    nextId += updates.length;
    out.push(updates);
  }
  return out;
}
