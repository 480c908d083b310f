/**
 * A bounded multi-producer single-consumer channel (tokio `mpsc::channel(capacity)`), without its own
 * awaits: callers pass a scheduling point around every wait, so a scheduler sees each step.
 *
 * Invariants:
 * - at most `capacity` items are queued; `trySend` never blocks and reports `full` instead;
 * - after `close()` no item is accepted (`trySend` → `closed`), but queued items are still received,
 *   in order, before `tryRecv` reports `closed` (like Rust's `Receiver::recv` draining after close).
 */
export type SendOutcome = 'sent' | 'full' | 'closed';
export type RecvOutcome<T> =
  | { readonly kind: 'item'; readonly item: T }
  | { readonly kind: 'empty' }
  | { readonly kind: 'closed' };

export class BoundedChannel<T> {
  readonly #queue: T[] = [];
  #closed = false;
  #readers: Array<() => void> = [];
  #writers: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  get closed(): boolean {
    return this.#closed;
  }

  get length(): number {
    return this.#queue.length;
  }

  trySend(item: T): SendOutcome {
    if (this.#closed) return 'closed';
    if (this.#queue.length >= this.capacity) return 'full';
    this.#queue.push(item);
    this.#wake('readers');
    return 'sent';
  }

  tryRecv(): RecvOutcome<T> {
    if (this.#queue.length > 0) {
      const item = this.#queue.shift() as T;
      this.#wake('writers');
      return { kind: 'item', item };
    }
    return this.#closed ? { kind: 'closed' } : { kind: 'empty' };
  }

  /** Resolves once an item may be receivable (an item arrived or the channel closed). */
  readable(): Promise<void> {
    if (this.#queue.length > 0 || this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => this.#readers.push(resolve));
  }

  /** Resolves once a send may succeed (space freed or the channel closed). */
  writable(): Promise<void> {
    if (this.#queue.length < this.capacity || this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => this.#writers.push(resolve));
  }

  /** Idempotent: closing a closed channel changes nothing. */
  close(): void {
    this.#closed = true;
    this.#wake('readers');
    this.#wake('writers');
  }

  #wake(which: 'readers' | 'writers'): void {
    const list = which === 'readers' ? this.#readers : this.#writers;
    if (list.length === 0) return;
    if (which === 'readers') this.#readers = [];
    else this.#writers = [];
    for (const wake of list) wake();
  }
}
