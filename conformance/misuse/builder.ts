/** A batch builder: add, finish, add after finish, finish twice, updates outside its range. */
import { MetricsRecorder } from '../../impl/metrics.ts';
import type { Batch } from '../../impl/persist/batch.ts';
import { BatchBuilder } from '../../impl/persist/batch-builder.ts';
import { BuilderInstance } from '../../impl/shared/builder-instance.ts';
import { OK, refused, Judge } from './judge.ts';
import { sortedIds, show, chunk } from './draw.ts';
import { writerOf, WHERE } from './writer.ts';

export async function builder(j: Judge): Promise<void> {
  const d = j.draw;
  const writer = writerOf({ blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) });
  const lower = d.int(3);
  const upper = lower + 1 + d.int(3);
  const b = new BatchBuilder(writer, lower, upper, WHERE);
  const accepted: number[] = [];
  let finished = false;
  let batch: Batch | undefined;
  const steps = 3 + d.int(6);
  for (let s = 0; s < steps; s++) {
    const op = d.int(5);
    if (op <= 2) {
      const { updates, bad: out } = chunk(d, lower, upper, op === 2);
      const expect = finished ? refused('push-after-finish', 'add() on a batch builder after finish()') : out !== undefined ? refused('update-outside-description', `update ${out.id} has time ${out.time}`, `[${lower}, ${upper})`) : OK;
      await j.call(`add(${show(updates)})`, expect, () => b.add(updates));
      if (expect.ok) accepted.push(...updates.map((u) => u.id));
    } else {
      const expect = finished ? refused('finish-twice', 'already finished') : OK;
      const got = await j.call('finish()', expect, () => b.finish());
      if (!finished) batch = got;
      finished = true;
    }
  }
  if (!finished) batch = await j.call('finish()', OK, () => b.finish());
  if (batch === undefined) return;
  // Everything accepted, in the order it was added, and nothing refused.
  j.same('the batch', accepted, batch.updateIds);
  j.same('updates in its parts', accepted.length, batch.parts.reduce((n, p) => n + p.updates, 0));
  j.same('updatesWritten', accepted.length, writer.metrics.c.updatesWritten);

  await instanceContract(j, batch);
}

/**
 * A builder instance's contract (builder-instance.ts), on one made directly: the channel closes at the
 * first `claim()` or `orphan()`, both idempotent, and the batch goes to at most one claimant — the first
 * call decides. A claim first receives the batch, and every later claim receives null, an orphan after
 * it changes nothing; an orphan first leaves every claim null, and the batch it built counts as orphaned.
 * In the sink each instance meets one of them once (the last reference's finish or drop), so only a
 * planted bug reached a second call before this program.
 */
async function instanceContract(j: Judge, batch: Batch): Promise<void> {
  const d = j.draw;
  const metrics = new MetricsRecorder();
  const instance = new BuilderInstance(1 + d.int(3), metrics);
  j.program.push('new BuilderInstance()');
  const calls = Array.from({ length: 1 + d.int(3) }, () => (d.int(2) === 0 ? 'claim' : 'orphan'));
  const claims: { readonly first: boolean; readonly got: Promise<Batch | null> }[] = [];
  for (const [i, call] of calls.entries()) {
    if (call === 'claim') {
      // The claim's promise settles only when the task settles (below): held, not awaited here.
      const got = await j.call('claim()', OK, () => ({ pending: instance.claim() }));
      if (got === undefined) return;
      claims.push({ first: i === 0, got: got.pending });
    } else {
      await j.call('orphan()', OK, () => instance.orphan());
    }
    j.same('channel closed', true, instance.channel.closed);
  }
  const built = d.int(3) === 0 ? null : batch;
  j.program.push(`settle(${built === null ? 'no batch' : 'the batch'})`);
  instance.settle(built);
  for (const [k, c] of claims.entries()) {
    const got = await c.got;
    j.same(`claim ${k + 1}${c.first ? ' (the first call)' : ''} receives`, c.first && built !== null ? sortedIds(built.updateIds) : null, got === null ? null : sortedIds(got.updateIds));
  }
  j.same('batchesOrphaned', calls[0] === 'orphan' && built !== null ? 1 : 0, metrics.c.batchesOrphaned);
}
