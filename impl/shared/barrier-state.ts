/**
 * The barrier of one shared id (#37617): every participant reports exactly once, by finish() or by
 * noteSkip(); the last finisher is the deliverer. With a deadline (vocab/PROTOCOL.md "Barrier with a
 * deadline") it may complete earlier: its first report arms a timer (`Deadline.arm`, barrier-timer.ts);
 * once the timer fired (`expire`) it completes as soon as every handle that joined has begun its finish.
 *
 * Invariants:
 * - `pending` = participants − arrivals (early skips included); `finalized` ⇔ pending reached 0, or the
 *   deadline passed with no joined handle unfinished (`late`: completed at its deadline);
 * - `unfinished` = handles that joined (`join`) and have not arrived by finish;
 * - `deliverer` is the handle id of the latest finisher (skips never deliver);
 * - the timer is armed at most once, at the first report (also one made before the state existed:
 *   `pending < participants` at construction), and only with a deadline;
 * - an arrival after finalization, or with pending ≤ 0, is an over-report: a typed error, never a
 *   hang and never a silent extra count.
 */
import type { SharedId } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import { SbkitError } from '../errors.ts';
import { Notify } from '../runtime/notify.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';

/** A barrier's deadline: how long it waits after its first report, and what arms its timer. */
export interface Deadline {
  readonly ms: number;
  /** Starts the timer (called once, at the barrier's first report). */
  arm(): void;
}

/** What a timer's firing did: completed the barrier, expired it (a joined handle still pushes), or
 * nothing (the barrier had completed). */
export type Expiry = 'completed' | 'expired' | 'idle';

export class BarrierState {
  #pending: number;
  #deliverer: number | null = null;
  #finalized = false;
  #unfinished = 0;
  #expired = false;
  #late = false;
  #armed = false;
  readonly #notify = new Notify();

  constructor(
    /** How messages name the batch. */
    readonly id: SharedId | string,
    readonly participants: number,
    pending: number,
    readonly deadline?: Deadline,
  ) {
    this.#pending = pending;
    // Skips recorded before the state existed reported already: the timer starts with the state.
    if (pending < participants) this.#arm();
  }

  get deliverer(): number | null {
    return this.#deliverer;
  }

  get finalized(): boolean {
    return this.#finalized;
  }

  /** Completed at its deadline: later opens are best-effort, later skips change nothing. */
  get late(): boolean {
    return this.#late;
  }

  /** A handle joined (it will arrive by finish; with a deadline the completion waits for it). */
  join(): void {
    this.#unfinished += 1;
  }

  /** One arrival: a finish by handle `finisher`, or a skip (null). Returns whether it finalized. */
  arrive(finisher: number | null): boolean {
    if (this.#finalized || this.#pending <= 0) {
      throw new SbkitError(
        'barrier-over-report',
        `barrier of shared batch ${this.id}: a ${finisher === null ? 'skip' : 'finish'} arrived after all ${this.participants} participants reported`,
      );
    }
    this.#pending -= 1;
    if (finisher !== null) {
      this.#deliverer = finisher;
      this.#unfinished -= 1;
    }
    this.#arm();
    if (this.#pending === 0) return this.#finalize(false);
    // The deadline passed while this handle pushed: it was the last the barrier waited for.
    if (this.#expired && this.#unfinished === 0) return this.#finalize(true);
    return false;
  }

  /** The timer fired: the barrier completes now if no joined handle is still pushing, else once the last
   * of them begins its finish. A timer of a completed barrier does nothing. */
  expire(bugs: BugSwitches): Expiry {
    if (this.#finalized) return 'idle';
    this.#expired = true;
    // BUG (timer-seals-pushing-handle): completes with joined handles still pushing.
    if (this.#unfinished > 0 && !bugs.has('timer-seals-pushing-handle')) return 'expired';
    this.#finalize(true);
    return 'completed';
  }

  #arm(): void {
    if (this.#armed || this.deadline === undefined) return;
    this.#armed = true;
    this.deadline.arm();
  }

  #finalize(late: boolean): true {
    this.#finalized = true;
    this.#late = late;
    this.#notify.notifyWaiters();
    return true;
  }

  /** Resolves once finalized. A plain wait; the caller passes a scheduling point afterwards. */
  async waitFinalized(scheduler: Scheduler, where: Where, bugs: BugSwitches): Promise<void> {
    if (bugs.has('barrier-lost-wakeup')) {
      // BUG (barrier-lost-wakeup): check, yield, and only then register. A finalization during the
      // yield notifies nobody, and notify_waiters stores no permit: this waiter sleeps forever.
      if (this.#finalized) return;
      await pointAt(scheduler, 'barrier.register', where);
      await this.#notify.register();
      return;
    }
    // SUBTLE: register for the notification BEFORE re-checking `finalized` (tokio's `Notified` is
    // enabled first). Checked the other way round, a finalization between check and registration
    // would be a lost wake-up. (In one JS step the two are atomic anyway; the order documents intent
    // and survives a future await slipping in between.)
    for (;;) {
      const notified = this.#notify.register();
      if (this.#finalized) return;
      await notified;
    }
  }
}
