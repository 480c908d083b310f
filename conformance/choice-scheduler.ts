/**
 * A scheduler driven by a shrinkable list of choice indices.
 *
 * Why not `fc.scheduler()`: its ordering choices never shrink (its shrinker yields nothing; see
 * docs/design/decisions.md), so only the workload shrinks and its counterexamples stay long. Here every ordering decision is one number from a list that
 * fast-check generates and shrinks like any other array: removing an element or lowering it towards 0
 * moves the run towards plain FIFO order, so a counterexample shrinks to the few choices that matter.
 *
 * How a run is driven: every task of the implementation stops at each scheduling point
 * (`point(site)`). `drive` lets the microtask queue drain (one `setImmediate` turn: the code under test
 * never waits on timers), then resumes exactly one pending point — the one at index
 * `choices[step] mod pending` in arrival order, or the oldest once the list is used up — and repeats.
 * When nothing is pending and the run has not settled, every task is blocked on a peer: a deadlock.
 *
 * Random choices rarely starve one task for long (a late handle after all others finished grows rare as
 * the worker count grows), so a schedule may also name *starved* actors: their
 * points are resumed only when nothing else is pending. That reaches "one worker arrives after everyone
 * else finished" in one step, and an empty starve list shrinks away like the choices.
 */
import type { PointSite, RunControl, Scheduler } from '../impl/seams.ts';

interface Pending {
  readonly seq: number;
  readonly site: PointSite;
  readonly resume: () => void;
}

/** One resumed point, as the scheduler log prints it. */
export interface ResumeRecord {
  readonly step: number;
  readonly site: PointSite;
  /** How many points were pending when this one was chosen, and which (by arrival order) it was. */
  readonly of: number;
  readonly index: number;
}

export type DriveOutcome<T> =
  | { readonly kind: 'settled'; readonly value: T; readonly steps: number }
  | { readonly kind: 'threw'; readonly error: unknown; readonly steps: number }
  | { readonly kind: 'deadlock'; readonly steps: number }
  | { readonly kind: 'step-limit'; readonly steps: number; readonly pending: readonly PointSite[] };

/**
 * Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte: "A Randomized
 * Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010), as data: every actor gets an
 * initial priority, d − 1 change points lower the priority of whoever runs at that step, and each step
 * runs the highest-priority actor. Here an actor is `actorOf(site)` (a worker, a process's registry and
 * builder tasks, a replica's input/mint), numbered in the order it first reaches a point.
 * - actor i's initial priority is d + `priorities[i]` (0 past the list), d = `changes.length + 1`;
 * - at step `changes[j]` the actor chosen to run then drops to priority j + 1 (below every initial one);
 * - ties (equal priorities) go to the oldest pending point, so shrinking priorities and change points
 *   towards 0 and [] moves the run towards FIFO, as shrinking `choices` does.
 */
export interface Pct {
  readonly priorities: readonly number[];
  readonly changes: readonly number[];
}

export interface ChoiceSchedulerOptions {
  readonly starved?: (site: PointSite) => boolean;
  readonly maxSteps?: number;
  /** Pick by PCT priorities instead of by `choices`. */
  readonly pct?: Pct;
  /** Abort these replicas (through the run's control) when the run reaches these steps. */
  readonly aborts?: readonly { readonly step: number; readonly replica: number }[];
}

export class ChoiceScheduler implements Scheduler {
  private readonly pending: Pending[] = [];
  private seq = 0;
  private step = 0;
  readonly log: ResumeRecord[] = [];
  /** PCT: actor → its number (first-come) and its current priority. */
  private readonly actors = new Map<number, { readonly index: number; priority: number }>();
  private control: RunControl | undefined;
  /** Aborts the scheduler performed (the run's control accepted them). */
  readonly aborted: { readonly step: number; readonly replica: number }[] = [];

  constructor(
    private readonly choices: readonly number[],
    private readonly options: ChoiceSchedulerOptions = {},
  ) {}

  #actor(site: PointSite): { readonly index: number; priority: number } {
    const key = actorKey(site);
    let a = this.actors.get(key);
    if (a === undefined) {
      const pct = this.options.pct as Pct;
      const index = this.actors.size;
      a = { index, priority: pct.changes.length + 1 + (pct.priorities[index] ?? 0) };
      this.actors.set(key, a);
    }
    return a;
  }

  /** Index into `candidates` of the point to resume now. */
  #pick(candidates: readonly Pending[]): number {
    const pct = this.options.pct;
    if (pct === undefined) return (this.choices[this.step] ?? 0) % candidates.length;
    let best = 0;
    let bestPriority = -Infinity;
    candidates.forEach((c, i) => {
      const p = this.#actor(c.site).priority;
      if (p > bestPriority) {
        best = i;
        bestPriority = p;
      }
    });
    const change = pct.changes.indexOf(this.step);
    if (change >= 0) this.#actor((candidates[best] as Pending).site).priority = change + 1;
    return best;
  }

  /** Points of aborted incarnations are dropped, never resumed (impl/seams.ts). */
  readonly honorsOwners = true;

  point(site: PointSite): Promise<void> {
    return new Promise<void>((resume) => {
      this.pending.push({ seq: this.seq++, site, resume });
    });
  }

  attach(control: RunControl): void {
    this.control = control;
  }

  /** The steps taken so far (a fault plan's clock). */
  get steps(): number {
    return this.step;
  }

  /**
   * Aborts due at this step. The aborted incarnation's points (their owner is dead) are dropped after;
   * the supervisor's own tasks for that replica (a restart, a cleanup) pass points under the same
   * replica and go on.
   */
  #abortDue(): boolean {
    let any = false;
    for (const a of this.options.aborts ?? []) {
      if (a.step !== this.step || this.control?.abort(a.replica, `teardown at step ${a.step} (schedule)`) !== true) continue;
      this.aborted.push(a);
      any = true;
    }
    return any;
  }

  /** Runs `run` to completion under this scheduler's choices. Never hangs: a run with no pending point
   * and no result is reported as a deadlock, and a run past `maxSteps` as a step limit. */
  async drive<T>(run: Promise<T>): Promise<DriveOutcome<T>> {
    let result: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    run.then(
      (value) => (result = { ok: true, value }),
      (error: unknown) => (result = { ok: false, error }),
    );
    // No event-loop turn first: the run's start is microtasks like every step (the loop's first drain
    // sees them through), and a turn can cost milliseconds on a loaded machine; with nothing pending
    // and no result, the loop still confirms with a full turn.
    for (;;) {
      await drain();
      if (result === undefined && this.pending.length === 0) await settle();
      if (result !== undefined) {
        return result.ok
          ? { kind: 'settled', value: result.value, steps: this.step }
          : { kind: 'threw', error: result.error, steps: this.step };
      }
      // SUBTLE: an abort spawns the supervisor's restart, whose first point registers only once its
      // microtasks ran: let them run before judging what is pending (else: a false deadlock).
      if (this.options.aborts !== undefined && this.#abortDue()) continue;
      // Points of aborted incarnations (by the schedule, or by a permanent storage failure) never resume.
      for (let i = this.pending.length - 1; i >= 0; i--) if (this.pending[i]?.site.owner?.alive === false) this.pending.splice(i, 1);
      if (this.pending.length === 0) return { kind: 'deadlock', steps: this.step };
      if (this.step >= (this.options.maxSteps ?? 100_000)) {
        return { kind: 'step-limit', steps: this.step, pending: this.pending.map((p) => p.site) };
      }
      const starved = this.options.starved;
      const eligible = starved === undefined ? this.pending : this.pending.filter((p) => !starved(p.site));
      const candidates = eligible.length > 0 ? eligible : this.pending;
      const index = this.#pick(candidates);
      const chosen = candidates[index];
      // `index` is always within bounds: candidates is non-empty here.
      if (chosen === undefined) throw new Error('unreachable: no pending point at a valid index');
      this.log.push({ step: this.step, site: chosen.site, of: candidates.length, index });
      this.pending.splice(this.pending.indexOf(chosen), 1);
      this.step += 1;
      chosen.resume();
    }
  }
}

/**
 * Lets every microtask chain started by the last resume run until it blocks or reaches a point.
 * SUBTLE: a `process.nextTick` queued while microtasks run fires only once the microtask queue is empty
 * (Node drains it completely before it looks at the tick queue again), so this is quiescence without an
 * event-loop turn — about a fifth of a run's time with `setImmediate`. It relies on the code under test
 * waiting on nothing but promises (no timers, no I/O), which impl/ guarantees for in-memory runs;
 * `settle` (a full turn) is still used to confirm a deadlock (nothing pending, no result).
 */
function drain(): Promise<void> {
  return new Promise(onNextTick);
}

const onNextTick = (resolve: () => void): void => process.nextTick(resolve);

/** One event-loop turn: also lets work scheduled outside microtasks run (the first step, a deadlock check). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The actor of a point as a number, one to one with `actorOf`'s name (PCT looks one up per pending
 * point per step: building the name each time was ~1.5% of a run). */
function actorKey(site: PointSite): number {
  // Exact below 2^53: replicas < 2^19, workers and processes < 2^33.
  const base = site.replica * 2 ** 34;
  if (site.worker !== undefined) return base + 2 ** 33 + site.worker;
  if (site.process !== undefined) return base + 1 + site.process;
  return base;
}

/** `r0 w3 p0` style actor name for a point. */
export function actorOf(site: PointSite): string {
  const parts = [`r${site.replica}`];
  if (site.worker !== undefined) parts.push(`w${site.worker}`);
  else if (site.process !== undefined) parts.push(`p${site.process}`);
  return parts.join(' ');
}

/** The scheduler log, one line per resumed point; choices that were not the oldest are marked. */
export function formatLog(log: readonly ResumeRecord[]): string {
  return log
    .map((r) => {
      const pick = r.index === 0 ? '' : `  <- picked #${r.index} of ${r.of}`;
      const bytes = r.site.bytes === undefined ? '' : ` ${r.site.bytes}B`;
      return `${String(r.step).padStart(4)}  ${actorOf(r.site).padEnd(8)} ${r.site.label}${bytes}${pick}`;
    })
    .join('\n');
}
