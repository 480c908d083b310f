/**
 * The stores' contracts: a PUT never overwrites; a compare-and-set must name the next sequence number;
 * bytes are copied in and out, as a remote store's are (a caller that changes the bytes it stored, or
 * was given back, changes nothing stored); a listing is ascending whatever order the keys came in.
 */
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

  const copied = await copiesBytes(j, store, consensus);
  await listsAscending(j, store, [key, copied]);

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

/** A caller that writes into the bytes it stored, or was given back, changes nothing stored. */
async function copiesBytes(j: Judge, store: MemBlob, consensus: MemConsensus): Promise<string> {
  const d = j.draw;
  const key = `copy-${d.int(100)}`;
  const put = new Uint8Array([d.int(200), d.int(200), d.int(200)]);
  const want = [...put];
  await j.call(`set(${key})`, OK, () => store.set(key, put));
  put.fill(255);
  const got = await j.call(`get(${key}) after the caller overwrote the bytes it stored`, OK, () => store.get(key));
  j.same(`the bytes of ${key}`, want, [...(got ?? [])]);
  got?.fill(255);
  j.same(`the bytes of ${key} after the caller overwrote the bytes it got`, want, [...((await store.get(key)) ?? [])]);

  const data = new Uint8Array([d.int(200), d.int(200)]);
  const version = [...data];
  await j.call('compareAndSet(copy, null, seqNo 0)', OK, () => consensus.compareAndSet('copy', null, { seqNo: 0, data }));
  data.fill(255);
  const head = await j.call('head(copy) after the caller overwrote the bytes it set', OK, () => consensus.head('copy'));
  j.same('the head of copy', version, [...(head?.data ?? [])]);
  head?.data.fill(255);
  const scanned = await j.call('scan(copy, 0) after the caller overwrote the head it got', OK, () => consensus.scan('copy', 0));
  j.same('the versions of copy', [version], (scanned ?? []).map((v) => [...v.data]));
  for (const v of scanned ?? []) v.data.fill(255);
  j.same('the versions of copy after the caller overwrote those it scanned', [version], (await consensus.scan('copy', 0)).map((v) => [...v.data]));
  return key;
}

/** Keys stored in an order of the program's, never ascending: the listing is ascending all the same. */
async function listsAscending(j: Judge, store: MemBlob, stored: readonly string[]): Promise<void> {
  const d = j.draw;
  const keys = new Set<string>();
  for (let n = 2 + d.int(4); keys.size < n; ) keys.add(`w${d.int(12)}-r${d.int(3)}/part-${d.int(12)}`);
  const order = [...keys];
  if (order.every((k, i) => i === 0 || (order[i - 1] as string) < k)) order.reverse();
  for (const k of order) await j.call(`set(${k})`, OK, () => store.set(k, new Uint8Array([1])));
  j.same('list()', [...new Set([...stored, ...order])].sort(), await j.call('list()', OK, () => store.list()));
}
