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
 * - `large`: above the threshold (falls back to the worker's own batch).
 */
import fc from 'fast-check';
import type { PersistConfig, Variant } from '../vocab/index.ts';
import { encodedUpdateSize, partitionWorker, type Update } from '../impl/update.ts';

export const LOAD_CLASSES = ['tiny', 'medium', 'none', 'large', 'boundary'] as const;
export type LoadClass = (typeof LOAD_CLASSES)[number];

export interface Workload {
  readonly variant: Variant;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  /** The threshold the load classes are sized against. */
  readonly threshold: number;
  /** The knob as read at mint, by the description's lower (the last value holds beyond the list). */
  readonly knob: readonly number[];
  /** loads[interval][worker], worker ∈ [0, processes·workersPerProcess). */
  readonly loads: readonly (readonly LoadClass[])[];
  readonly blobTargetSize: number;
  readonly inlineTotalMaxBytes: number;
  readonly pushChunkUpdates: number;
  /** 'lockstep': the input advances once the sink caught up; 'free': it may run ahead, so one
   * description can span several frontier steps. */
  readonly pacing: 'lockstep' | 'free';
}

export const THRESHOLD = 8192;
export const INLINE_SINGLE_MAX = 4096;
const DEFAULT_BLOB_TARGET = 128 * 1024 * 1024;
const DEFAULT_INLINE_TOTAL = 1024 * 1024;

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
  const maxWorkers = bounds.maxWorkersPerProcess * bounds.maxProcesses;
  return fc
    .record({
      workersPerProcess: fc.integer({ min: 1, max: bounds.maxWorkersPerProcess }),
      processes: fc.integer({ min: 1, max: bounds.maxProcesses }),
      replicas: fc.integer({ min: 1, max: bounds.maxReplicas }),
      intervals: fc.integer({ min: 1, max: bounds.maxIntervals }),
      // Mostly the threshold; sometimes 0 (sharing off for that interval) or twice it (large loads then
      // share too): the knob changes between intervals.
      knob: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(THRESHOLD) }, { weight: 1, arbitrary: fc.constantFrom(0, 2 * THRESHOLD) }), {
        minLength: 1,
        maxLength: bounds.maxIntervals,
      }),
      loads: fc.array(fc.array(fc.constantFrom(...LOAD_CLASSES), { minLength: maxWorkers, maxLength: maxWorkers }), {
        minLength: bounds.maxIntervals,
        maxLength: bounds.maxIntervals,
      }),
      // A small target makes shared batches span several parts, exercising the cut rule.
      blobTargetSize: fc.constantFrom(DEFAULT_BLOB_TARGET, 6000),
      inlineTotalMaxBytes: fc.constantFrom(DEFAULT_INLINE_TOTAL, 200),
      pushChunkUpdates: fc.constantFrom(256, 1),
      pacing: fc.constantFrom('lockstep' as const, 'free' as const),
    })
    .map((g) => {
      const workers = g.workersPerProcess * g.processes;
      return {
        variant,
        replicas: g.replicas,
        processes: g.processes,
        workersPerProcess: g.workersPerProcess,
        intervals: g.intervals,
        threshold: THRESHOLD,
        knob: g.knob.slice(0, g.intervals),
        loads: g.loads.slice(0, g.intervals).map((row) => row.slice(0, workers)),
        blobTargetSize: g.blobTargetSize,
        // Inline backpressure only with one replica: the model treats flush-and-retry as atomic.
        inlineTotalMaxBytes: g.replicas === 1 ? g.inlineTotalMaxBytes : DEFAULT_INLINE_TOTAL,
        pushChunkUpdates: g.pushChunkUpdates,
        pacing: g.pacing,
      };
    });
}

export function persistOf(w: Workload): PersistConfig {
  return {
    blobTargetSize: w.blobTargetSize,
    inlineSingleMaxBytes: INLINE_SINGLE_MAX,
    inlineTotalMaxBytes: w.inlineTotalMaxBytes,
  };
}

/** The knob's value for a description with this lower. */
export function knobAt(w: Workload, lower: number): number {
  return w.knob[Math.min(lower, w.knob.length - 1)] ?? 0;
}

/**
 * The workload's updates, identical for every replica. Keys are searched so that each update hashes to
 * the worker its load belongs to (the implementation spreads updates by key hash), and value lengths
 * are chosen so that staged bytes land exactly where the load class says.
 */
export function materialize(w: Workload): Update[] {
  const workers = w.processes * w.workersPerProcess;
  const updates: Update[] = [];
  let nextId = 0;
  w.loads.forEach((row, time) => {
    row.forEach((load, worker) => {
      for (const { key, valueLen } of loadShape(load, time, worker, workers, w.threshold)) {
        updates.push({ id: nextId, key, value: valueBytes(nextId, valueLen), time, diff: 1 });
        nextId += 1;
      }
    });
  });
  return updates;
}

interface UpdateShape {
  readonly key: string;
  readonly valueLen: number;
}

/**
 * The keys and value lengths of one load, in staged order. A pure function of its arguments, memoized:
 * finding keys that hash to a worker and value lengths that land exactly on the threshold were most of
 * materialize's cost, and workloads repeat the same few (load, time, worker, shape) combinations.
 */
const shapes = new Map<string, readonly UpdateShape[]>();
function loadShape(load: LoadClass, time: number, worker: number, workers: number, threshold: number): readonly UpdateShape[] {
  const memo = `${load}/${time}/${worker}/${workers}/${threshold}`;
  let shape = shapes.get(memo);
  if (shape === undefined) {
    const key = (n: number) => keyFor(time, worker, n, workers);
    shape = valueLengths(load, threshold, key).map((valueLen, n) => ({ key: key(n), valueLen }));
    shapes.set(memo, shape);
  }
  return shape;
}

/** The n-th key (for `time`, `worker`) that hashes to `worker`. Deterministic. */
function keyFor(time: number, worker: number, n: number, workers: number): string {
  let found = -1;
  for (let salt = 0; ; salt++) {
    const key = `t${time}-w${worker}-${salt}`;
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
  return ramp.slice(start, start + len);
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
    case 'boundary': {
      const first = Math.floor(threshold / 2);
      const rest = threshold - size(0, first);
      return [first, lengthForSize(rest, (len) => size(1, len))];
    }
  }
}

function sizeOf(key: string, valueLen: number): number {
  return encodedUpdateSize({ id: 0, key, value: new Uint8Array(valueLen), time: 0, diff: 1 });
}

/** The value length whose encoded update has exactly `target` bytes. size(len) = c + len + varint(len),
 * so len is within a few bytes (the length prefix's size) below target − c, where c = size(0) − 1. */
function lengthForSize(target: number, size: (len: number) => number): number {
  const base = target - (size(0) - 1);
  for (let len = Math.max(0, base - 10); len <= base; len++) if (size(len) === target) return len;
  throw new Error(`no value length gives an encoded update of exactly ${target} bytes`);
}
