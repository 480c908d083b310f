/**
 * A registry entry: the builder state shared by every handle of one shared id (and overlap group).
 *
 * Reference counting maps onto Materialize's Rust as follows: the registry's map holds a
 * `Weak<BuilderState>` (no count); each handle holds an `Arc` (refs += 1 at open); `finish()` drops
 * it, and `Arc::try_unwrap`/`into_inner` succeeding is "this was the last reference" (refs hit 0).
 * `Weak::strong_count() > 0` is `live`. We count explicitly rather than lean on GC (WeakRef and
 * FinalizationRegistry are non-deterministic), which also lets the kit observe a drop without finish.
 *
 * Invariants:
 * - refs = open handles (best-effort: until finish-begin; barrier: until finish-end), plus a sweep's
 *   temporary hold under the sweep-upgrade-race bug;
 * - live ⇔ refs > 0; a dead entry is replaced by the next open, never revived (except under the
 *   late-handle-joins-finished-builder bug);
 * - `barrier` is present iff the entry was opened with `participants`.
 */
import type { BarrierState } from './barrier-state.ts';
import type { SharedBatchId } from './batch-id.ts';
import type { BuilderInstance } from './builder-instance.ts';
import type { BatchRange } from './context.ts';

export class BuilderEntry {
  refs = 0;
  #nextHandleId = 0;

  constructor(
    readonly id: SharedBatchId,
    /** The description it was created with (Materialize's `BatchDesc {shard_id, lower, upper}`). */
    readonly shard: string,
    readonly range: BatchRange,
    readonly participants: number | undefined,
    readonly instance: BuilderInstance,
    readonly barrier: BarrierState | undefined,
    /** The MV sink that created it (context.ts RegistrySink): its builder writes that sink's shard. */
    readonly sink = 0,
  ) {}

  get live(): boolean {
    return this.refs > 0;
  }

  nextHandleId(): number {
    return this.#nextHandleId++;
  }
}
