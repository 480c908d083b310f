/** The stores' contracts: a PUT never overwrites; a compare-and-set must name the next sequence number. */
import { MemBlob } from '../../impl/persist/blob.ts';
import { MemConsensus } from '../../impl/persist/consensus.ts';
import { OK, refused, Judge } from './judge.ts';
import { writerOf, WHERE } from './writer.ts';

export async function stores(j: Judge): Promise<void> {
  const d = j.draw;
  const store = new MemBlob();
  const a = writerOf({}, store, 'w');
  const b = writerOf({}, store, 'w');
  const key = a.blob.newPartKey();
  const mine = new Uint8Array([1, 2, 3, d.int(200)]);
  await j.call(`set(${key})`, OK, () => a.blob.set(key, mine, WHERE));
  const same = d.int(2) === 0;
  const theirs = same ? mine.slice() : new Uint8Array([9, d.int(200)]);
  await j.call(`set(${key}) by a second client of writer "w" with ${same ? 'the same' : 'other'} bytes`, same ? OK : refused('blob-key-exists', JSON.stringify(key), 'already exists', '"w"'), () => b.blob.set(key, theirs, WHERE));
  j.same('the stored part', [...mine], [...((await store.get(key)) ?? [])]);
  j.same('PUTs counted by the second client', same ? 1 : 0, b.metrics.c.blobPuts);

  const consensus = new MemConsensus();
  const head = d.int(3);
  for (let s = 0; s < head; s++) await j.call(`compareAndSet(k, ${s === 0 ? 'null' : s - 1}, seqNo ${s})`, OK, () => consensus.compareAndSet('k', s === 0 ? null : s - 1, { seqNo: s, data: new Uint8Array([s]) }));
  const expected = head === 0 ? null : head - 1;
  const want = head;
  const wrong = want + 1 + d.int(3);
  await j.call(`compareAndSet(k, ${String(expected)}, seqNo ${wrong})`, refused('consensus-invariant', `new seqNo must be ${want} after ${String(expected)}, got ${wrong}`), () => consensus.compareAndSet('k', expected, { seqNo: wrong, data: new Uint8Array([7]) }));
  j.same('head after a refused compare-and-set', head === 0 ? null : head - 1, (await consensus.head('k'))?.seqNo ?? null);

  // The stores count every call they answer (what tests and tools read of them): reads too.
  const blobStats = { ...store.stats };
  const consensusStats = { ...consensus.stats };
  for (let n = 1 + d.int(6); n > 0; n--) {
    const op = d.int(4);
    if (op === 0) {
      await j.call(`get(${key})`, OK, () => store.get(key));
      blobStats.gets += 1;
    } else if (op === 1) {
      await j.call('list()', OK, () => store.list());
      blobStats.lists += 1;
    } else if (op === 2) {
      await j.call('scan(k, 0)', OK, () => consensus.scan('k', 0));
      consensusStats.scans += 1;
    } else {
      await j.call('head(k)', OK, () => consensus.head('k'));
      consensusStats.heads += 1;
    }
  }
  j.same('blob store stats', blobStats, store.stats);
  j.same('consensus store stats', consensusStats, consensus.stats);
}
