/**
 * The Consensus contract (persist/consensus.ts) as one suite, run against every implementation
 * (test-only). `open` gives a store whose keys no other test uses; `close` releases it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSbkitError } from '../errors.ts';
import type { Consensus, ConsensusStats, SeqNo, VersionedData } from '../persist/consensus.ts';

export interface ContractStore {
  readonly consensus: Consensus & { readonly stats: ConsensusStats };
  close(): Promise<void>;
}

const v = (seqNo: SeqNo, ...bytes: number[]): VersionedData => ({ seqNo, data: new Uint8Array(bytes) });
const seqNos = (vs: readonly VersionedData[]): SeqNo[] => vs.map((x) => x.seqNo);

export function consensusContract(name: string, open: () => Promise<ContractStore>, options: { skip?: string } = {}): void {
  describe.skipIf(options.skip !== undefined)(`Consensus contract: ${name}`, () => {
    let store: ContractStore;
    let c: Consensus & { readonly stats: ConsensusStats };
    let n = 0;
    /** A key of this test alone (the store may be shared by the suite). */
    const key = (what: string): string => `${what}-${(n += 1)}`;
    beforeAll(async () => {
      store = await open();
      c = store.consensus;
    });
    afterAll(async () => store?.close());

    it('a fresh key has no head and scans to nothing', async () => {
      const k = key('fresh');
      expect(await c.head(k)).toBeUndefined();
      expect(await c.scan(k, 0)).toEqual([]);
    });

    it('the first version needs expected = null and seqNo 0; a second claim of 0 loses, naming the head', async () => {
      const k = key('first');
      expect(await c.compareAndSet(k, null, v(0, 7))).toEqual({ ok: true });
      expect(await c.compareAndSet(k, null, v(0, 8))).toEqual({ ok: false, head: 0 });
      expect(await c.head(k)).toEqual(v(0, 7));
    });

    it('compare-and-set succeeds iff the head is the expected seqNo; a lost race is a result with the head', async () => {
      const k = key('chain');
      await c.compareAndSet(k, null, v(0, 0));
      expect(await c.compareAndSet(k, 0, v(1, 1))).toEqual({ ok: true });
      expect(await c.compareAndSet(k, 0, v(1, 9))).toEqual({ ok: false, head: 1 }); // stale
      expect(await c.compareAndSet(k, 4, v(5, 9))).toEqual({ ok: false, head: 1 }); // ahead of the head
      expect(await c.compareAndSet(k, 1, v(2, 2))).toEqual({ ok: true });
      expect(seqNos(await c.scan(k, 0))).toEqual([0, 1, 2]);
      expect(await c.head(k)).toEqual(v(2, 2));
    });

    it('expecting a seqNo on a key with no version loses, reporting no head', async () => {
      const k = key('phantom');
      expect(await c.compareAndSet(k, 3, v(4))).toEqual({ ok: false, head: null });
      expect(await c.head(k)).toBeUndefined();
    });

    it('a new seqNo other than expected + 1 is a consensus-invariant error and changes nothing', async () => {
      const k = key('invariant');
      const broken = (e: unknown) => isSbkitError(e, 'consensus-invariant');
      await expect(c.compareAndSet(k, null, v(1))).rejects.toSatisfy(broken);
      await c.compareAndSet(k, null, v(0));
      await expect(c.compareAndSet(k, 0, v(2))).rejects.toSatisfy(broken);
      await expect(c.compareAndSet(k, 0, v(0))).rejects.toSatisfy(broken);
      expect(seqNos(await c.scan(k, 0))).toEqual([0]);
    });

    it('scan(from) returns the versions with seqNo ≥ from, ascending; beyond the head nothing', async () => {
      const k = key('scan');
      for (let s = 0; s < 30; s++) expect(await c.compareAndSet(k, s === 0 ? null : s - 1, v(s, s))).toEqual({ ok: true });
      expect(seqNos(await c.scan(k, 0))).toEqual([...Array(30).keys()]);
      expect(await c.scan(k, 27)).toEqual([v(27, 27), v(28, 28), v(29, 29)]);
      expect(await c.scan(k, 30)).toEqual([]);
      expect(await c.scan(k, 1000)).toEqual([]);
    });

    it('keys are independent, prefixes and odd characters included', async () => {
      const base = key('indep');
      const keys = [base, `${base}/writers`, `${base}2`, `${base}/ü'";-- 🙂`, `${base}%_`];
      for (const [i, k] of keys.entries()) expect(await c.compareAndSet(k, null, v(0, i))).toEqual({ ok: true });
      expect(await c.compareAndSet(keys[1] ?? '', 0, v(1, 42))).toEqual({ ok: true });
      for (const [i, k] of keys.entries()) expect(await c.scan(k, 0)).toEqual(i === 1 ? [v(0, 1), v(1, 42)] : [v(0, i)]);
    });

    it('bytes round-trip exactly: empty, every byte value, 1 MiB, and a view into a larger buffer', async () => {
      const k = key('bytes');
      const every = new Uint8Array(256).map((_, i) => i);
      const big = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
      const backing = new Uint8Array([0xaa, 1, 2, 3, 0xbb]);
      const view = backing.subarray(1, 4);
      const datas = [new Uint8Array(0), every, big, view];
      for (const [s, data] of datas.entries()) {
        expect(await c.compareAndSet(k, s === 0 ? null : s - 1, { seqNo: s, data })).toEqual({ ok: true });
      }
      const back = await c.scan(k, 0);
      expect(back.map((x) => [...x.data])).toEqual(datas.map((d) => [...d]));
    });

    it('stored bytes are a copy: changing the caller\'s array, before or after reading, changes nothing', async () => {
      const k = key('copy');
      const data = new Uint8Array([1, 2, 3]);
      await c.compareAndSet(k, null, { seqNo: 0, data });
      data[0] = 99;
      const first = await c.head(k);
      expect([...(first?.data ?? [])]).toEqual([1, 2, 3]);
      if (first !== undefined) first.data[1] = 99;
      expect([...((await c.head(k))?.data ?? [])]).toEqual([1, 2, 3]);
    });

    it('concurrent compare-and-sets on one seqNo: exactly one wins, the losers see its head', async () => {
      const k = key('race');
      await c.compareAndSet(k, null, v(0));
      const results = await Promise.all([1, 2, 3, 4, 5].map((b) => c.compareAndSet(k, 0, v(1, b))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual(Array(4).fill({ ok: false, head: 1 }));
      const winner = results.findIndex((r) => r.ok) + 1;
      expect(await c.head(k)).toEqual(v(1, winner));
    });

    it('counts compare-and-sets, lost ones and bytes written', async () => {
      const k = key('stats');
      const before = { ...c.stats };
      await c.compareAndSet(k, null, v(0, 1, 2));
      await c.compareAndSet(k, null, v(0, 3));
      expect(c.stats.cas - before.cas).toBe(2);
      expect(c.stats.casFailures - before.casFailures).toBe(1);
      expect(c.stats.bytesWritten - before.bytesWritten).toBe(2);
    });
  });
}
