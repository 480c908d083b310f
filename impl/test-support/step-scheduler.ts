/**
 * A deterministic scheduler for tests: every point parks until the driver resumes it. The driver lets
 * the microtask queue drain (one setImmediate), then resumes ONE parked point chosen by a `Pick`, and
 * repeats. When nothing is parked and the main task has not settled, the run deadlocked: "tasks never
 * settled" (with the names of the tasks still running, when the caller can tell).
 */
import type { PointSite, RunControl, Scheduler } from '../seams.ts';
import { mulberry32 } from '../../random/prng.ts';

export interface ParkedPoint {
  readonly site: PointSite;
  /** Order of arrival. */
  readonly seq: number;
}

/** Chooses which parked point resumes next: an index into `parked` (ordered by arrival). */
export type Pick = (parked: readonly ParkedPoint[], step: number) => number;

export type Outcome<T> =
  | { readonly kind: 'settled'; readonly value: T; readonly steps: number }
  | { readonly kind: 'rejected'; readonly error: unknown; readonly steps: number }
  | { readonly kind: 'never-settled'; readonly steps: number; readonly running: readonly string[] };

interface Parked extends ParkedPoint {
  readonly resume: () => void;
}

export const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class StepScheduler implements Scheduler {
  #parked: Parked[] = [];
  #seq = 0;
  /** Resumed points, in order. */
  readonly log: PointSite[] = [];
  /** Number of points resumed so far (the current step). */
  step = 0;
  /** The run's control, once runSink attached it. */
  control: RunControl | undefined;

  attach(control: RunControl): void {
    this.control = control;
  }

  /** Points of aborted incarnations are dropped, never resumed (seams.ts). */
  readonly honorsOwners = true;

  /** Aborts `replica` now (through the run's control); its tasks stop at their next resumed point. */
  abort(replica: number, reason = 'test'): boolean {
    return this.control?.abort(replica, reason) ?? false;
  }

  point(site: PointSite): Promise<void> {
    return new Promise<void>((resume) => this.#parked.push({ site, seq: this.#seq++, resume }));
  }

  get parked(): readonly ParkedPoint[] {
    return this.#parked;
  }

  /** Resumes the parked point at `index`. */
  resume(index: number): void {
    const [p] = this.#parked.splice(index, 1);
    if (p === undefined) throw new RangeError(`no parked point at ${index}`);
    this.log.push(p.site);
    this.step += 1;
    p.resume();
  }

  /** Drives `main` to the end: settled, rejected, or never settled (deadlock). */
  async run<T>(
    main: () => Promise<T>,
    opts: { pick?: Pick; maxSteps?: number; running?: () => readonly string[]; aborts?: readonly { readonly step: number; readonly replica: number }[] } = {},
  ): Promise<Outcome<T>> {
    const pick = opts.pick ?? fifo;
    const maxSteps = opts.maxSteps ?? 1_000_000;
    let result: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    main().then(
      (value) => (result = { ok: true, value }),
      (error: unknown) => (result = { ok: false, error }),
    );
    for (;;) {
      await drain();
      if (result !== undefined && !result.ok) break;
      if (this.#parked.length === 0) break;
      if (this.step >= maxSteps) throw new Error(`step budget ${maxSteps} exhausted`);
      for (const a of opts.aborts ?? []) if (a.step === this.step) this.abort(a.replica);
      this.#parked = this.#parked.filter((p) => p.site.owner?.alive !== false);
      if (this.#parked.length === 0) continue;
      const i = pick(this.#parked, this.step);
      this.resume(i);
    }
    if (result === undefined) return { kind: 'never-settled', steps: this.step, running: opts.running?.() ?? [] };
    return result.ok
      ? { kind: 'settled', value: result.value, steps: this.step }
      : { kind: 'rejected', error: result.error, steps: this.step };
  }
}

/** Oldest parked point first. */
export const fifo: Pick = () => 0;

/** Newest parked point first. */
export const lifo: Pick = (parked) => parked.length - 1;

/** Lowest `priority(site)` first; oldest among equals. */
export function byPriority(priority: (site: PointSite) => number): Pick {
  return (parked) => {
    let best = 0;
    let bestPrio = Number.POSITIVE_INFINITY;
    parked.forEach((p, i) => {
      const prio = priority(p.site);
      if (prio < bestPrio) {
        best = i;
        bestPrio = prio;
      }
    });
    return best;
  };
}

/** Uniformly random, from a seed (mulberry32). */
export function seeded(seed: number): Pick {
  const next = mulberry32(seed).next;
  return (parked) => Math.floor(next() * parked.length);
}

/** Lets pending microtasks run, then resumes the oldest parked point with `label`; false if none. */
export async function resumeLabel(sched: StepScheduler, label: string): Promise<boolean> {
  await drain();
  const i = sched.parked.findIndex((p) => p.site.label === label);
  if (i < 0) return false;
  sched.resume(i);
  await drain();
  return true;
}
