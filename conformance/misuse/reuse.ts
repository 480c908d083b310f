/**
 * A caller that reuses its arrays: the chunk array it pushed (or added) is cleared, refilled or reordered
 * as soon as the awaited call returns — before the builder task has read it. The batch holds exactly what
 * was pushed, in push order, and so do its parts' bytes.
 */
import { decodePart } from '../../impl/part-codec.ts';
import type { Batch } from '../../impl/persist/batch.ts';
import { BatchBuilder } from '../../impl/persist/batch-builder.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import type { Scheduler } from '../../impl/seams.ts';
import { inMemoryShared } from '../../impl/shared/in-memory.ts';
import type { Update } from '../../impl/update.ts';
import { OK, Judge } from './judge.ts';
import { update, show } from './draw.ts';
import { programScheduler } from './scheduler.ts';
import { writerOf, WHERE } from './writer.ts';

export async function reuse(j: Judge): Promise<void> {
  const d = j.draw;
  // The builder task reads its channel only when the program lets it: after the caller reused its array
  // (a runtime may run the task that late; under the pass-through scheduler it would read at once).
  const held: (() => void)[] = [];
  let free = false;
  const scheduler: Scheduler = {
    point: (site) => (free || site.label !== 'builder.recv' ? programScheduler.point(site) : new Promise<void>((resolve) => held.push(resolve))),
  };
  const letRead = (): void => {
    for (const resume of held.splice(0)) resume();
  };
  const { registry: shared, tasks, blob } = inMemoryShared({ scheduler, persist: { blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) } });
  const range = { lower: 0, upper: 1 + d.int(3) };
  const id = 1 + d.int(5);
  const h = await j.call(`builder(${id})`, OK, () => shared.builder(id, range, { worker: 0 }));
  if (h === undefined) return;
  const buffer: Update[] = [];
  const pushed: Update[] = [];
  const reused = (how: number): string => {
    if (how === 0) buffer.length = 0;
    else if (how === 1) buffer.splice(0, buffer.length, ...buffer.map(() => update(range.lower, 3)));
    else buffer.reverse();
    return ['cleared', 'refilled', 'reversed'][how] as string;
  };
  for (let n = 1 + d.int(4); n > 0; n--) {
    buffer.length = 0;
    for (let k = 1 + d.int(4); k > 0; k--) buffer.push(update(range.lower + d.int(range.upper - range.lower), 1 + d.int(40)));
    pushed.push(...buffer);
    await j.call(`push(buffer ${show(buffer)})`, OK, () => h.push(buffer));
    j.program.push(`the caller's buffer ${reused(d.int(3))}`);
    letRead();
  }
  free = true;
  letRead();
  const batch = await j.call('finish()', OK, () => h.finish());
  await j.call('the builder task ends', OK, () => tasks.whenAllDone());
  if (batch === undefined || batch === null) return j.same('the received batch', 'a batch', batch);
  j.same('the batch (in push order)', pushed.map((u) => u.id), batch.updateIds);
  j.same("its parts' keys", pushed.map((u) => u.key), await keysOf(batch, blob));

  // The same caller with a batch builder of its own: the array it added is reused at once.
  const writer = writerOf({ blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) });
  const b = new BatchBuilder(writer, range.lower, range.upper, WHERE);
  const added: Update[] = [];
  for (let n = 1 + d.int(3); n > 0; n--) {
    buffer.length = 0;
    for (let k = 1 + d.int(4); k > 0; k--) buffer.push(update(range.lower + d.int(range.upper - range.lower), 1 + d.int(40)));
    added.push(...buffer);
    await j.call(`add(buffer ${show(buffer)})`, OK, () => b.add(buffer));
    j.program.push(`the caller's buffer ${reused(d.int(3))}`);
  }
  const own = await j.call('finish()', OK, () => b.finish());
  if (own === undefined) return;
  j.same('the own batch (in add order)', added.map((u) => u.id), own.updateIds);
  j.same("its parts' keys", added.map((u) => u.key), await keysOf(own, writer.store));
}

/** The keys a batch's parts hold, decoded from their bytes (a hollow part's from the blob store). */
async function keysOf(b: Batch, store: MemBlob): Promise<string[]> {
  const keys: string[] = [];
  for (const p of b.parts) {
    const bytes = p.kind === 'inline' ? p.data : await store.get(p.key);
    if (bytes !== undefined) keys.push(...decodePart(bytes).map((u) => u.key));
  }
  return keys;
}
