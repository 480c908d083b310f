/** A batch: append (through a shard writer), delete, flush, a failed delete, misuse while deleting. */
import { BugSwitches } from '../../impl/bugs.ts';
import { SbkitError } from '../../impl/errors.ts';
import { BatchBuilder } from '../../impl/persist/batch-builder.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import { MemConsensus } from '../../impl/persist/consensus.ts';
import { ShardWriter } from '../../impl/persist/shard-writer.ts';
import { type Expect, OK, refused, Judge } from './judge.ts';
import { update } from './draw.ts';
import { programScheduler } from './scheduler.ts';
import { writerOf, WHERE } from './writer.ts';

/** Blob storage whose next delete can be made to fail, permanently, once. */
class ArmedBlob extends MemBlob {
  armed = false;
  override async delete(key: string): Promise<boolean> {
    if (this.armed) {
      this.armed = false;
      throw new SbkitError('storage-permanent', `injected: delete ${key} failed`);
    }
    return super.delete(key);
  }
}

export async function batch(j: Judge): Promise<void> {
  const d = j.draw;
  const store = new ArmedBlob();
  const writer = writerOf({ blobTargetSize: 1 + d.int(60), inlineSingleMaxBytes: d.int(3) === 0 ? 0 : d.int(60), inlineTotalMaxBytes: 1 << 20 }, store);
  const upper = 1 + d.int(3);
  const bb = new BatchBuilder(writer, 0, upper, WHERE);
  const n = 1 + d.int(5);
  await bb.add(Array.from({ length: n }, () => update(d.int(upper), 1 + d.int(40))));
  const b = await j.call('finish()', OK, () => bb.finish());
  if (b === undefined) return;
  const consensus = new MemConsensus();
  const shard = new ShardWriter({ shardId: 's0', consensus, blob: writer.blob, scheduler: programScheduler, metrics: writer.metrics, config: writer.config, where: WHERE, trace: writer.trace, bugs: new BugSwitches([]) });
  let status: 'owned' | 'consumed' | 'deleted' = 'owned';
  let hollow = b.parts.filter((p) => p.kind === 'hollow').length;
  const partCount = b.parts.length;
  const name = `batch [0, ${upper})`;
  const gone = (action: string): Expect => refused('batch-consumed', `cannot ${action} ${name}: it was ${status}`);
  const cas = (): number => writer.metrics.c.consensusCommands;

  const steps = 3 + d.int(6);
  for (let s = 0; s < steps; s++) {
    const op = d.int(8);
    if (op === 0) {
      const before = cas();
      const expect = status === 'owned' ? OK : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
      const r = await j.call(`compareAndAppend([b], 0, ${upper})`, expect, () => shard.compareAndAppend([b], 0, upper));
      if (expect.ok) {
        j.same('compareAndAppend', 'ok', r?.kind);
        status = 'consumed';
      } else j.same('consensus commands after a refused append', before, cas());
    } else if (op === 1) {
      const expect = status === 'owned' ? OK : gone('delete');
      const got = await j.call('delete()', expect, () => b.delete());
      if (expect.ok) {
        j.same('blobs deleted', hollow, got);
        status = 'deleted';
      }
    } else if (op === 2) {
      const expect = status === 'owned' ? OK : gone('flush');
      const got = await j.call('flushInlineToBlob()', expect, () => b.flushInlineToBlob());
      if (expect.ok) {
        j.same('parts flushed', partCount - hollow, got);
        hollow = partCount;
      }
    } else if (op === 3) {
      // A delete under way (its first blob delete pending): nothing may take or delete the batch.
      if (status !== 'owned' || hollow === 0) continue;
      const pending = b.delete();
      j.same('appendable while deleting', false, b.appendable);
      const m = d.int(4);
      if (m === 0) await j.call('delete() while deleting', refused('batch-consumed', `cannot delete ${name}: it is being deleted`), () => b.delete());
      if (m === 1) await j.call('flushInlineToBlob() while deleting', refused('batch-consumed', `cannot flush ${name}: it is being deleted`), () => b.flushInlineToBlob());
      if (m === 2) await j.call(`compareAndAppend([b], 0, ${upper}) while deleting`, refused('batch-consumed', `cannot append ${name}: it was being deleted`), () => shard.compareAndAppend([b], 0, upper));
      if (m === 3) await j.call('markConsumed() while deleting', refused('batch-consumed', `cannot append ${name}: it is being deleted`), () => b.markConsumed());
      const got = await j.call('the delete returns', OK, () => pending);
      j.same('blobs deleted', hollow, got);
      status = 'deleted';
    } else if (op === 4) {
      // A delete whose first blob delete fails for good: the batch stays owned and appendable.
      if (status !== 'owned' || hollow === 0) continue;
      store.armed = true;
      await j.call('delete() failing', refused('storage-permanent', 'injected'), () => b.delete({ retries: false }));
      j.same('appendable after a failed delete', true, b.appendable);
    } else if (op === 5) {
      const bad = d.int(6);
      const before = cas();
      if (bad === 3) await j.call(`compareAndAppend([b], -1, ${upper})`, refused('invalid-append', 'expectedUpper', '-1'), () => shard.compareAndAppend([b], -1, upper));
      if (bad === 4) await j.call(`compareAndAppend([b], 0, ${upper + 0.5})`, refused('invalid-append', 'newUpper', `${upper + 0.5}`), () => shard.compareAndAppend([b], 0, upper + 0.5));
      if (bad === 5 && upper > 1) {
        // (the lower apart from the upper: a check of one bound only lets the other through)
        const expect = status === 'owned' ? refused('invalid-append', `${name} cannot be appended over [1, ${upper})`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
        await j.call(`compareAndAppend([b], 1, ${upper})`, expect, () => shard.compareAndAppend([b], 1, upper));
      }
      if (bad === 0) await j.call(`compareAndAppend([b], ${upper}, ${upper})`, refused('invalid-append', `newUpper ${upper} must be greater than expectedUpper ${upper}`), () => shard.compareAndAppend([b], upper, upper));
      // (the batches are checked in order: the first b's status before the second is seen)
      const twice = status === 'owned' ? refused('invalid-append', `${name} passed twice`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
      if (bad === 1) await j.call(`compareAndAppend([b, b], 0, ${upper})`, twice, () => shard.compareAndAppend([b, b], 0, upper));
      if (bad === 2) {
        const expect = status === 'owned' ? refused('invalid-append', `${name} cannot be appended over [0, ${upper + 1})`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
        await j.call(`compareAndAppend([b], 0, ${upper + 1})`, expect, () => shard.compareAndAppend([b], 0, upper + 1));
      }
      j.same('consensus commands after a refused append', before, cas());
    } else {
      j.same('appendable', status === 'owned', b.appendable);
    }
    j.same('status', status, b.status);
  }
  // What the stores hold: a consumed batch's hollow parts stay (the shard owns them); a deleted one's are gone.
  j.same('blobs left', status === 'deleted' ? 0 : hollow, (await store.list()).length);
  j.same('shard upper', status === 'consumed' ? upper : 0, (await shard.fetchState()).upper);
}
