/**
 * A builder task that fails (its part's PUT fails for good): the failure reaches every waiter, later
 * pushes are refused as `builder-failed` naming it, and the last finish reports it; nothing hangs.
 */
import { SbkitError } from '../../impl/errors.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import type { SharedBatchHandle } from '../../impl/shared/handle.ts';
import { inMemoryShared } from '../../impl/shared/in-memory.ts';
import { OK, refused, Judge } from './judge.ts';
import { update, show } from './draw.ts';
import { programScheduler } from './scheduler.ts';

/** Blob storage whose every write fails permanently. */
class ReadOnlyBlob extends MemBlob {
  override async set(key: string): Promise<void> {
    throw new SbkitError('storage-permanent', `injected: the blob store refuses ${key}`);
  }
  override async setIfAbsent(key: string): Promise<boolean> {
    throw new SbkitError('storage-permanent', `injected: the blob store refuses ${key}`);
  }
}

export async function failing(j: Judge): Promise<void> {
  const d = j.draw;
  // Every part is hollow and cut at once: the first push makes the builder task write one.
  const { registry: shared, tasks } = inMemoryShared({ scheduler: programScheduler, blob: new ReadOnlyBlob(), persist: { blobTargetSize: 1, inlineSingleMaxBytes: 0 } });
  const id = 1 + d.int(5);
  const range = { lower: 0, upper: 1 + d.int(3) };
  const hs: SharedBatchHandle[] = [];
  for (let w = 0, n = 1 + d.int(3); w < n; w++) {
    const h = await j.call(`builder(${id}) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w }));
    if (h === undefined) return;
    hs.push(h);
  }
  const first = hs[d.int(hs.length)] as SharedBatchHandle;
  const u = update(d.int(range.upper), 1 + d.int(40));
  await j.call(`push(${show([u])})`, OK, () => first.push([u]));
  await j.call('the builder task writes its part, and fails', refused('storage-permanent', 'injected'), () => tasks.whenAllDone());
  const later = update(d.int(range.upper), 1 + d.int(40));
  await j.call(`push(${show([later])}) after the builder failed`, { ok: false, code: 'builder-failed', names: [`shared batch ${id}`, 'its builder task failed', 'injected'], causeNames: 'injected' }, () => (d.int(2) === 0 ? first : (hs.at(-1) as SharedBatchHandle)).push([later]));
  // Every handle still finishes; the last one, the receiver, is told why there is no batch.
  for (const [i, h] of hs.entries()) {
    const last = i === hs.length - 1;
    const got = await j.call(`finish() ${last ? '(the last)' : ''}`, last ? refused('storage-permanent', 'injected') : OK, () => h.finish());
    if (!last && got !== null && got !== undefined) j.wrong.push('a finish that was not the last received a batch');
  }
}
