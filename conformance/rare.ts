/**
 * Rare combinations on purpose. A few paths need several things at once — a shape, a policy, a flag and
 * a worker that comes late — and the independent draws of workload and schedule give them a few runs in
 * a budget, or none (conformance/reach.ts counts them). In about one run in six `sbkit check` draws
 * one of them and shapes that run's workload and schedule towards it; the rest of the run is what was
 * drawn. Each combination is a reach counter, required at the default budget (reach.ts requiredReach),
 * so a generator or an implementation that loses the path fails the check as vacuous.
 *
 * - `supersede-skip`: two replicas under free pacing with the barrier flag on, and a worker of replica 0
 *   that comes late: replica 1 appends past replica 0's live lower, replica 0's mint supersedes it, and
 *   the late worker skips the superseded description and reports that as a barrier skip
 *   (`supersede-skip-reported`);
 * - `late-reopen`: two MV sinks in one process with a late worker: the other workers finish an id, the
 *   other sink's builder() calls sweep its dead entry, and the late worker stages and opens the id again,
 *   a new instance of an id the registry no longer holds (`reopen-after-sweep`).
 * Two more only the steered strategy draws (steer.ts), towards whichever path its runs reached least:
 * - `flag-flip-in-flight`: the barrier flag flipping with every interval under free pacing, with a late
 *   worker: it stages descriptions minted under the flag the frontier has since flipped;
 * - `empty-last`: the no-data policy `finish`, the barrier flag on and a late worker with no data, whose
 *   empty finish completes the barrier, so it returns the shared batch (`empty-finish-receives`).
 * And three only the steered strategies' opening sweep draws (steer.ts `QUICK_SWEEP`):
 * - `threshold`: every worker stages exactly the threshold's bytes (`threshold=`);
 * - `supersede-hand`: supersede-skip without the barrier, so the late worker hands the superseded
 *   description to the append worker (`supersede`); it holds in a variant that shares nothing too;
 * - `lost-race-delete-fails` (the fault world only): two replicas in lockstep race to append each
 *   description with blob parts, the loser deletes its batches (`mismatch-deleted`), and the first blob
 *   deletes fail transiently, with no abort and the faults lasting past them: the cleanup of a lost
 *   race must retry, never leak.
 * The other shapes hold for any variant that shares (off shares nothing: they are left undrawn there).
 *
 * The shaping is a function of the drawn workload and schedule, drawn after both, so every other run
 * draws exactly what it drew before; a replay token carries the shaped workload and schedule.
 */
import fc from 'fast-check';
import type { Variant } from '../vocab/index.ts';
import { sharesAtAll } from '../impl/variants/index.ts';
import { FAULT_CODES, FAULT_HORIZON, type FaultSchedule } from './faults.ts';
import { scheduleArb, type Schedule, type Strategy } from './schedule.ts';
import { THRESHOLD, workloadArb, type LoadClass, type Workload, type WorkloadBounds } from './workload.ts';

export const RARE_COMBINATIONS = ['supersede-skip', 'late-reopen'] as const;
/** Shapes only the steered strategy draws (steer.ts), towards the paths its runs reached least. */
export const STEERED_COMBINATIONS = ['flag-flip-in-flight', 'empty-last'] as const;
/** Shapes only the steered strategies' opening sweep draws (steer.ts `QUICK_SWEEP`). */
export const SWEPT_COMBINATIONS = ['threshold', 'supersede-hand', 'lost-race-delete-fails'] as const;
/** The shapes that hold in a variant that shares nothing too. */
export const ANY_VARIANT: readonly RareCombination[] = ['supersede-hand', 'lost-race-delete-fails'];
/** The shapes about the fault world: swept only when the check injects faults. */
export const FAULT_WORLD: readonly RareCombination[] = ['lost-race-delete-fails'];
export type RareCombination = (typeof RARE_COMBINATIONS)[number] | (typeof STEERED_COMBINATIONS)[number] | (typeof SWEPT_COMBINATIONS)[number];

/** The path (reach.ts) each combination is shaped to take. */
export const RARE_PATH: Readonly<Record<RareCombination, string>> = {
  'supersede-skip': 'supersede-skip-reported',
  'late-reopen': 'reopen-after-sweep',
  'flag-flip-in-flight': 'flag-flip-in-flight',
  'empty-last': 'empty-finish-receives',
  threshold: 'threshold=',
  'supersede-hand': 'supersede',
  'lost-race-delete-fails': 'mismatch-deleted',
};

/** None in about five runs of six; each combination in about one run in twelve (sharing variants). */
export function rareArb(variant: Variant): fc.Arbitrary<RareCombination | null> {
  if (!sharesAtAll(variant)) return fc.constant(null);
  return fc.oneof({ weight: 10, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constantFrom(...RARE_COMBINATIONS) });
}

/** One run of the check as drawn: a workload within `bounds`, a schedule for it, then a rare
 * combination shaped onto both (drawn last, so the first two are what they would be without it). */
export function runArb(variant: Variant, bounds: WorkloadBounds, strategy: Strategy, faults: number | undefined): fc.Arbitrary<{ workload: Workload; schedule: Schedule }> {
  const schedules = scheduleArb(bounds.maxReplicas, bounds.maxWorkersPerProcess * bounds.maxProcesses, strategy, faults);
  return fc.tuple(workloadArb(variant, bounds), schedules, rareArb(variant)).map(([w, s, rare]) => shapedFor(rare, w, s));
}

/** `w` and `s` shaped towards `rare` (unchanged for null). */
export function shapedFor(rare: RareCombination | null, w: Workload, s: Schedule): { workload: Workload; schedule: Schedule } {
  if (rare === null) return { workload: w, schedule: s };
  const workersPerProcess = Math.max(2, w.workersPerProcess);
  const intervals = Math.max(3, w.intervals);
  const late = { replica: 0, worker: 1 };
  const common = {
    workersPerProcess,
    intervals,
    asOf: 0,
    knob: [THRESHOLD],
    sink: 'v2' as const,
    idOrder: undefined,
  };
  const loadsOf = (workers: number, load: (worker: number) => LoadClass): LoadClass[][] => Array.from({ length: intervals }, () => Array.from({ length: workers }, (_, worker) => load(worker)));
  let shaped: Workload;
  switch (rare) {
    case 'supersede-skip':
      shaped = {
        ...w,
        ...common,
        replicas: 2,
        processes: 1,
        pacing: 'free',
        noData: 'skip',
        barrierFlags: [true],
        loads: loadsOf(workersPerProcess, () => 'tiny'),
        sinkLoads: undefined,
      };
      break;
    case 'flag-flip-in-flight':
      // The input runs ahead of a late worker while the flag flips with every interval: the late worker
      // stages descriptions minted under a flag the desired frontier has since flipped.
      shaped = {
        ...w,
        ...common,
        replicas: 1,
        processes: 1,
        pacing: 'free',
        noData: 'skip',
        barrierFlags: Array.from({ length: intervals + 1 }, (_, t) => (t + (w.barrierFlags[0] === true ? 1 : 0)) % 2 === 1),
        loads: loadsOf(workersPerProcess, () => 'tiny'),
        sinkLoads: undefined,
      };
      break;
    case 'empty-last':
      // Under the barrier (the flag on), the late worker has no data and finishes empty: its report
      // completes the barrier, so its empty finish returns the shared batch. Without the barrier the
      // starved worker mostly opens after the others finished, on an instance of its own, and its
      // finish returns nothing.
      shaped = {
        ...w,
        ...common,
        replicas: 1,
        processes: 1,
        noData: 'finish',
        barrierFlags: [true],
        loads: loadsOf(workersPerProcess, (worker) => (worker === late.worker ? 'none' : 'tiny')),
        sinkLoads: undefined,
      };
      break;
    case 'supersede-hand':
      // As supersede-skip, without the barrier: the late worker of replica 0 writes the description
      // replica 1's append superseded and hands it to the append worker, which must delete it.
      shaped = {
        ...w,
        ...common,
        replicas: 2,
        processes: 1,
        pacing: 'free',
        noData: 'skip',
        barrierFlags: [false],
        loads: loadsOf(workersPerProcess, () => 'tiny'),
        sinkLoads: undefined,
      };
      break;
    case 'threshold':
      // Every worker stages exactly the threshold's bytes under the knob at the threshold: each must
      // write its own batch (the rule is a strict `<`), the edge a route that shares at equality misses.
      shaped = {
        ...w,
        ...common,
        replicas: 1,
        processes: 1,
        noData: 'skip',
        loads: loadsOf(workersPerProcess, () => 'boundary'),
        sinkLoads: undefined,
      };
      break;
    case 'lost-race-delete-fails':
      // Lockstep pacing: both replicas mint every description and race to append it, and the loser
      // deletes its batches' blobs (large loads: parts above the inline limit).
      shaped = {
        ...w,
        ...common,
        replicas: 2,
        processes: 1,
        pacing: 'lockstep',
        noData: 'skip',
        loads: loadsOf(workersPerProcess, () => 'large'),
        sinkLoads: undefined,
      };
      break;
    case 'late-reopen':
      shaped = {
        ...w,
        ...common,
        replicas: 1,
        processes: 1,
        noData: 'skip',
        barrierFlags: [false],
        loads: loadsOf(workersPerProcess, () => 'tiny'),
        sinkLoads: [loadsOf(workersPerProcess, () => 'tiny')],
      };
      break;
  }
  const { sinkLoads, idOrder, ...rest } = shaped;
  const workload: Workload = { ...rest, ...(sinkLoads === undefined ? {} : { sinkLoads }), ...(idOrder === undefined ? {} : { idOrder }) };
  const faults = rare === 'lost-race-delete-fails' && s.faults !== undefined ? failingDeletes(s.faults) : s.faults;
  return { workload, schedule: { ...s, starve: [late], ...(faults === undefined ? {} : { faults }) } };
}

/** The blob deletes a `lost-race-delete-fails` run fails transiently (a losing append's batches first). */
const FAILING_DELETES = 8;

/** A fault schedule whose first blob deletes fail transiently, without aborts, until past the horizon. */
function failingDeletes(f: FaultSchedule): FaultSchedule {
  return { ...f, aborts: [], deletes: Array.from({ length: FAILING_DELETES }, () => FAULT_CODES.indexOf('transient')), heal: Math.max(f.heal, FAULT_HORIZON) };
}
