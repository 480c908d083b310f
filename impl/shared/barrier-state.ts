/**
 * The barrier of one shared id (#37617): every participant reports exactly once, by finish() or by
 * noteSkip(); the last finisher is the deliverer.
 *
 * Invariants:
 * - `pending` = participants − arrivals (early skips included); `finalized` ⇔ pending reached 0;
 * - `deliverer` is the handle id of the latest finisher (skips never deliver);
 * - an arrival after finalization, or with pending ≤ 0, is an over-report: a typed error, never a
 *   hang and never a silent extra count.
 */
import type { SharedId } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import { SbkitError } from '../errors.ts';
import { Notify } from '../runtime/notify.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';

export class BarrierState {
  #pending: number;
  #deliverer: number | null = null;
  #finalized = false;
  readonly #notify = new Notify();

  constructor(
    /** How messages name the batch. */
    readonly id: SharedId | string,
    readonly participants: number,
    pending: number,
  ) {
    this.#pending = pending;
  }

  get deliverer(): number | null {
    return this.#deliverer;
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
    if (finisher !== null) this.#deliverer = finisher;
    if (this.#pending > 0) return false;
    this.#finalized = true;
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
