/**
 * Persist's merge tree (Materialize `src/persist-client/src/internal/merge.rs`): what bounds the runs of a
 * batch built with `max_runs` (vocab PersistConfig.maxRuns). Elements are pushed in order; a level that
 * would exceed `maxLen` elements is merged into one element of the next level, so at most `maxLen`
 * elements come out of `finish`, in push order (only adjacent elements are merged).
 *
 * Invariants (as merge.rs states them; its test, ported in impl/test/materialize-tests.test.ts, checks
 * them on the levels after every push):
 * - push order is preserved, by pushes and by merges;
 * - every level but the deepest holds fewer than `maxLen` elements, the deepest at most `maxLen`;
 * - `finish` returns at most `maxLen` elements.
 */
export class MergeTree<T> {
  /** levels[0] is the shallowest (newest) level; the last one the deepest (oldest). */
  protected readonly levels: T[][] = [[]];

  constructor(
    /** At least 2, an integer: the only caller, persist/runs.ts, passes a `max_runs` limit, which
     * `maxRunsLimit` maps to `None` below 2 from a config persist/config.ts validated. */
    readonly maxLen: number,
    private readonly merge: (items: T[]) => T,
  ) {}

  push(item: T): void {
    // The deepest level may hold exactly maxLen elements (no merge needed when exactly that many are
    // pushed); before it takes another, it is merged into a new, deeper level.
    const deepest = this.levels[this.levels.length - 1] as T[];
    if (deepest.length === this.maxLen) {
      this.levels[this.levels.length - 1] = [];
      this.levels.push([this.merge(deepest)]);
    }
    let carry = item;
    const maxLevel = this.levels.length - 1;
    for (let depth = 0; depth <= maxLevel; depth++) {
      const level = this.levels[depth] as T[];
      level.push(carry);
      if (level.length < this.maxLen || depth === maxLevel) return;
      this.levels[depth] = [];
      carry = this.merge(level);
    }
  }

  /** The contents flattened into at most `maxLen` elements, in push order. */
  finish(): T[] {
    let shallower = this.levels[0] as T[];
    for (let depth = 1; depth < this.levels.length; depth++) {
      const deeper = [...(this.levels[depth] as T[])];
      if (shallower.length + deeper.length <= this.maxLen) deeper.push(...shallower);
      else deeper.push(this.merge(shallower));
      shallower = deeper;
    }
    return shallower;
  }
}
