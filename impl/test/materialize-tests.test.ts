/**
 * Materialize's own tests of the shared-batch code, ported: each named as the real test, citing its
 * file, with the same assertions, driven in the real order. Read in MaterializeInc/materialize:
 * - `src/storage-operators/src/persist.rs` `mod tests` — `test_shared_batch` (every stored version:
 *   fbb7a57bffc53801e0bf7cb63e9c45cc081c9aa1, 0ff833a77c686f4375743a504ed548c8da8b654f, and the
 *   barrier version #37617), `test_shared_batch_barrier` and `test_shared_batch_barrier_skip` (the
 *   barrier version);
 * - `src/persist-client/src/internal/merge.rs` `mod tests` — `test_merge_tree` (the merge tree that
 *   bounds a batch's runs under `persist_batch_max_runs`; commit 077ce5cd7c775e0b447f6761416d2dd77342d6f4).
 * The Rust tests build one part holding one row (`bool_part`: `true` at time 0, diff 1) and push that
 * part from every handle; here the part is one update pushed as a chunk. `batch.shard_id()` is the
 * kit's `batch.shardId` (the builder's writer's shard), `batch.into_hollow_batch().len` its update count.
 */
import { describe, expect, it } from 'vitest';
import { MergeTree } from '../persist/merge-tree.ts';
import { sharedHarness } from '../test-support/harness.ts';
import { upd } from '../test-support/workloads.ts';

/** `SharedBatchId::new()` / `ShardId::new()` stand-ins, `lower = 0`, `upper = 1`. */
const batchId = 7;
const range = { lower: 0, upper: 1 };
/** `bool_part(&schemas)`: one row, `true` at time 0 with diff 1. */
const boolPart = () => [upd(0, 0)];

describe('persist.rs: SharedBatches', () => {
  it('test_shared_batch', async () => {
    const shared = sharedHarness();
    const first = await shared.registry.builder(batchId, range, { worker: 0 });
    const second = await shared.registry.builder(batchId, range, { worker: 1 });
    const part = boolPart();
    await first.push(part);
    await second.push(part);
    // "a handle that is not the last to finish receives no batch" (earlier: "first batch to finish should be empty")
    expect(await second.finish(), 'a handle that is not the last to finish receives no batch').toBeNull();
    const batch = await first.finish();
    expect(batch, 'first.finish().await.unwrap()').not.toBeNull();
    expect(batch?.shardId, 'batch should be for the expected shard').toBe(shared.shardId);
    expect(batch?.updates, 'batch should include updates from both pushes').toBe(2);
    await shared.tasks.whenAllDone();
  });

  it('test_shared_batch_barrier', async () => {
    // In barrier mode the batch waits for every participant, then delivers all pushes to exactly one
    // handle, regardless of finish order.
    const shared = sharedHarness();
    const barrier = 2;
    const make = (worker: number) => shared.registry.builder(batchId, range, { worker, participants: barrier });
    const first = await make(0);
    const second = await make(1);
    await first.push(boolPart());
    await second.push(boolPart());
    // Finish concurrently: the barrier must resolve without either call being awaited first.
    const [a, b] = await Promise.all([first.finish(), second.finish()]);
    expect((a !== null) !== (b !== null), 'exactly one handle should receive the batch').toBe(true);
    const batch = a ?? b;
    expect(batch?.shardId).toBe(shared.shardId);
    expect(batch?.updates, "the shared batch must contain both workers' pushes").toBe(2);
    await shared.tasks.whenAllDone();
  });

  it('test_shared_batch_barrier_skip', async () => {
    // A skip releases a participant's barrier slot, so the batch finishes without waiting for a worker
    // that will never write. Two participants: without the skip the sole writer's barrier never completes.
    const shared = sharedHarness();
    const barrier = 2;
    const writer = await shared.registry.builder(batchId, range, { worker: 0, participants: barrier });
    await writer.push(boolPart());
    // The second participant skips instead of writing.
    await shared.registry.noteSkip(batchId, 2, 1);
    const batch = await writer.finish();
    expect(batch, 'sole writer delivers the batch').not.toBeNull();
    expect(batch?.updates, "the batch contains the writer's push").toBe(1);
    await shared.tasks.whenAllDone();
  });
});

/** merge.rs's test-only views of a tree: its elements in order (`iter`), and `assert_invariants`. */
class InspectedTree<T> extends MergeTree<T> {
  /** Elements first to last (deepest level first). */
  items(): T[] {
    return [...this.levels].reverse().flat();
  }

  /** Throws when a level holds more than it may. */
  checkInvariants(): void {
    this.levels.forEach((level, depth) => {
      const deepest = depth === this.levels.length - 1;
      if (deepest ? level.length > this.maxLen : level.length >= this.maxLen) {
        throw new Error(`merge tree level ${depth} holds ${level.length} elements; max ${this.maxLen}${deepest ? '' : ' (exclusive)'}`);
      }
    });
  }
}

describe('merge.rs: MergeTree', () => {
  it('test_merge_tree', () => {
    // Exhaustively test the merge tree for small sizes.
    for (let maxLen = 2; maxLen < 8; maxLen++) {
      for (let items = 0; items < 100; items++) {
        // Merge sequences by concatenation.
        const tree = new InspectedTree<number[]>(maxLen, (vals) => vals.flat());
        for (let i = 0; i < items; i++) {
          tree.push([i]);
          expect(tree.items().flat(), 'no parts should be lost').toEqual(Array.from({ length: i + 1 }, (_, k) => k));
          tree.checkInvariants();
        }
        const parts = tree.finish();
        expect(parts.length, `no more than ${maxLen} finished parts`).toBeLessThanOrEqual(maxLen);
        expect(parts.flat(), 'no parts lost').toEqual(Array.from({ length: items }, (_, k) => k));
      }
    }
  });

  it('the invariant check throws on a level that holds too many (a tree that merged too late)', () => {
    class Overfull extends InspectedTree<number> {
      plant(levels: number[][]): this {
        this.levels.splice(0, this.levels.length, ...levels);
        return this;
      }
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(() => new Overfull(2, sum).plant([[1], [2, 2]]).checkInvariants()).not.toThrow();
    expect(() => new Overfull(2, sum).plant([[1, 1], [2]]).checkInvariants()).toThrow('merge tree level 0 holds 2 elements; max 2 (exclusive)');
    expect(() => new Overfull(2, sum).plant([[1], [2, 2, 2]]).checkInvariants()).toThrow('merge tree level 1 holds 3 elements; max 2');
  });
});
