/**
 * The tasks of one run. `spawn` starts a task; `whenAllDone` resolves once every task (including ones
 * spawned later by running tasks) has ended, and rejects with the first failure.
 *
 * SUBTLE: a failed run may leave tasks blocked forever on peers that died; they are garbage, not
 * awaited. Tests that need to know which tasks never ended read `running`.
 */
export type Spawn = (name: string, task: () => Promise<void>) => void;

export class TaskGroup {
  #active = 0;
  #failure: { readonly error: unknown } | undefined;
  readonly #running = new Map<number, string>();
  #nextId = 0;
  #waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  readonly spawn: Spawn = (name, task) => {
    const id = this.#nextId++;
    this.#active += 1;
    this.#running.set(id, name);
    // Start on a fresh microtask so a spawner never runs its child's first step re-entrantly.
    Promise.resolve()
      .then(task)
      .then(
        () => this.#end(id),
        (error: unknown) => {
          this.#failure ??= { error };
          this.#end(id);
          this.#settle();
        },
      );
  };

  /** Names of tasks that have not ended, in spawn order. */
  get running(): readonly string[] {
    return [...this.#running.values()];
  }

  whenAllDone(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#settle();
    });
  }

  #end(id: number): void {
    this.#running.delete(id);
    this.#active -= 1;
    this.#settle();
  }

  #settle(): void {
    if (this.#failure === undefined && this.#active > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      if (this.#failure !== undefined) w.reject(this.#failure.error);
      else w.resolve();
    }
  }
}
