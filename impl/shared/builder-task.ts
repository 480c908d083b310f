/**
 * The one builder task per builder instance: drains the channel into a persist BatchBuilder created
 * lazily on the first non-empty chunk, and finishes the batch when the channel closes (null if nothing
 * was pushed). Chunks are added in channel order, i.e. push order. Its runs ignore
 * persist_batch_max_runs (a hard-coded `None` in Materialize).
 */
import { BatchBuilder, type BatchWriter } from '../persist/batch-builder.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';
import type { BuilderInstance } from './builder-instance.ts';
import type { BatchRange } from './context.ts';

export async function runBuilderTask(
  instance: BuilderInstance,
  writer: BatchWriter,
  range: BatchRange,
  scheduler: Scheduler,
  where: Where,
): Promise<void> {
  let builder: BatchBuilder | undefined;
  try {
    for (;;) {
      await pointAt(scheduler, 'builder.recv', where);
      const r = instance.channel.tryRecv();
      if (r.kind === 'empty') {
        await instance.channel.readable();
        continue;
      }
      if (r.kind === 'closed') break;
      if (r.item.length === 0) continue; // empty parts are ignored
      // The shared builder's max_runs is `None` whatever persist_batch_max_runs says (#37591's
      // `client.batch_builder(…, None)`): every part is a run of its own (persist/runs.ts).
      builder ??= new BatchBuilder(writer, range.lower, range.upper, where, null);
      await builder.add(r.item);
    }
    instance.settle(builder === undefined ? null : await builder.finish());
  } catch (error) {
    instance.fail(error);
    throw error;
  }
}
