/** A promise with its settle functions, for results handed from one task to another. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  #resolve!: (value: T) => void;
  #reject!: (reason: unknown) => void;
  #settled = false;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // SUBTLE: a rejection nobody awaits (e.g. the batch of an orphaned builder) must not crash the
    // process as an unhandled rejection; the failure is still reported through the task group.
    this.promise.catch(() => undefined);
  }

  get settled(): boolean {
    return this.#settled;
  }

  resolve(value: T): void {
    this.#settled = true;
    this.#resolve(value);
  }

  reject(reason: unknown): void {
    this.#settled = true;
    this.#reject(reason);
  }
}
