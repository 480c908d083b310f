/**
 * tokio's `Notify::notify_waiters` semantics: wakes the tasks registered *now*; stores no permit.
 * A task that registers after a notification sleeps until the next one — which is exactly why the
 * barrier registers before it re-checks (see shared/barrier-state.ts and the barrier-lost-wakeup bug).
 *
 * Also used as a condition variable: check the condition and register in the same synchronous step,
 * then await; a notifier changes state first and notifies after.
 */
export class Notify {
  #waiters: Array<() => void> = [];

  /** Registers for the next notifyWaiters(); the returned promise resolves then. */
  register(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Wakes every registered waiter; later registrations wait for the next call. */
  notifyWaiters(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  get waiting(): number {
    return this.#waiters.length;
  }
}
