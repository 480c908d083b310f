/**
 * An unbounded queue between tasks (timely's broadcast and exchange edges: descriptions from mint to
 * the workers, hands from the workers to the append worker). Sending never waits.
 */
import { Notify } from './notify.ts';

export class Mailbox<T> {
  readonly #items: T[] = [];
  readonly #changed = new Notify();
  #closed = false;

  send(item: T): void {
    this.#items.push(item);
    this.#changed.notifyWaiters();
  }

  close(): void {
    this.#closed = true;
    this.#changed.notifyWaiters();
  }

  get closed(): boolean {
    return this.#closed;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The next item, or undefined once the mailbox is closed and empty. A plain wait: callers pass a
   * scheduling point afterwards. */
  async recv(): Promise<T | undefined> {
    while (this.#items.length === 0 && !this.#closed) await this.#changed.register();
    return this.#items.shift();
  }

  /** Resolves when the next item arrives or the mailbox closes. */
  changed(): Promise<void> {
    return this.#changed.register();
  }

  /** Removes and returns every queued item matching `pred`, in order. */
  takeWhere(pred: (item: T) => boolean): T[] {
    const taken: T[] = [];
    for (let i = 0; i < this.#items.length; ) {
      const item = this.#items[i] as T;
      if (pred(item)) {
        taken.push(item);
        this.#items.splice(i, 1);
      } else i += 1;
    }
    return taken;
  }
}
