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

/** Where a scheduling point is, and what is about to happen there (for timing models and logs). */
export interface PointSite {
  /** What is about to happen, e.g. 'write.stage', 'shared.push', 'blob.set', 'consensus.cas'. */
  readonly label: string;
  readonly replica: number;
  /** The worker (index within its replica) on whose behalf this runs, if any. */
  readonly worker?: number;
  readonly process?: number;
  /** Bytes this step moves (blob writes, pushes), for timing models. */
  readonly bytes?: number;
}

export interface Scheduler {
  /** Resolves when the scheduler lets the calling task continue past this point. */
  point(site: PointSite): Promise<void>;
}

/** Production: every point resumes at once. */
export const passThroughScheduler: Scheduler = {
  point: () => Promise.resolve(),
};
