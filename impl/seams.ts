/**
 * The seams through which tests and tools steer the implementation. Production passes the defaults:
 * a pass-through scheduler and no observer.
 *
 * Every await that decides an interleaving (channel send and receive, finish, the barrier wait, blob and
 * consensus calls, a worker starting on a description) first passes a scheduling point. A scheduler
 * decides when each point resumes: immediately (production), in a seeded virtual-time order
 * (explore/timing), or in an order chosen by a shrinkable list of choices (conformance/).
 *
 * SUBTLE: code between two points must not wait on timers or on long chains of plain awaits; a
 * scheduler decides "every task is blocked or at a point" by letting the microtask queue drain.
 */
import type { PointLabel, StorageFault, StorageOp } from '../vocab/index.ts';

/** Where a scheduling point is, and what is about to happen there (for timing models and logs). */
export interface PointSite {
  /** What is about to happen, e.g. 'write.stage', 'shared.push', 'blob.set', 'consensus.cas' (vocab POINT_LABELS). */
  readonly label: PointLabel;
  readonly replica: number;
  /** The worker (index within its replica) on whose behalf this runs, if any. */
  readonly worker?: number;
  readonly process?: number;
  /** Bytes this step moves (blob writes, pushes), for timing models. */
  readonly bytes?: number;
  /** Milliseconds the code asks this step to wait before it runs: a timer's duration (a barrier's
   * deadline). A timing model that keeps time resumes the point no earlier than that after it was
   * reached; a scheduler without time (conformance's) may resume it at any step, like any other point.
   * Never a real timer: the implementation itself never waits on time. */
  readonly delay?: number;
  /** The replica incarnation whose task waits here (set by the supervisor): once it is no longer alive
   * (aborted), the point must never resume. */
  readonly owner?: { readonly alive: boolean };
}

export interface Scheduler {
  /** Resolves when the scheduler lets the calling task continue past this point. */
  point(site: PointSite): Promise<void>;
  /**
   * Optional: runSink hands the scheduler its run's control before any task starts, so that a
   * scheduler that decides faults can abort a replica at one of its steps (conformance, compare).
   */
  attach?(control: RunControl): void;
  /**
   * True if the scheduler never resumes a point whose `owner` is no longer alive. Otherwise the
   * supervisor guards every resumed point itself (one more promise per point).
   */
  readonly honorsOwners?: boolean;
}

/** What a scheduler (or a supervisor of real processes) may do to a running sink. */
export interface RunControl {
  /**
   * Tears down (or crashes) the replica's current incarnation now: none of its tasks runs again, its
   * handles are dropped without finish, and a new incarnation starts after a `replica.restart` point.
   * A no-op (returns false) when the replica already finished or is already down.
   */
  abort(replica: number, reason: string): boolean;
}

/**
 * Decides how each storage call ends (persist/faulty.ts wraps blob and consensus with it). Production
 * passes none. `decide` is called once per call, in the order calls are made; a scheduler-driven run
 * makes calls in a deterministic order, so one plan (a list of outcomes) reproduces a run exactly.
 */
export interface FaultPlan {
  decide(op: StorageOp, key: string): StorageFault | 'ok';
}

/** Production: every point resumes at once. */
export const passThroughScheduler: Scheduler = {
  point: () => Promise.resolve(),
};
