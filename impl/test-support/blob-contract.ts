/**
 * The Blob contract (persist/blob.ts) as one suite, run against every implementation (test-only).
 * `open` gives an empty store for each test.
 */
import { describe, expect, it } from 'vitest';
import type { Blob, BlobStats } from '../persist/blob.ts';

export type ContractBlob = Blob & { readonly stats: BlobStats };

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);
const arr = (b: Uint8Array | undefined): number[] | undefined => (b === undefined ? undefined : [...b]);

/** Keys as the kit mints them, plus every character class a file system or URL could mishandle. */
export const AWKWARD_KEYS = [
  'w0-r0/part-3',
  'w10-r1/part-12',
  'a',
  'A',
  '.hidden',
  '..',
  '.',
  'a/../b',
  '%41',
  '%',
  'with space',
  'tab\tnewline\n',
  'ü-🙂-漢字',
  'back\\slash',
  'x'.repeat(80),
];

export function blobContract(name: string, open: () => Promise<ContractBlob>): void {
  describe(`Blob contract: ${name}`, () => {
    it('get of a missing key is undefined; set then get returns the bytes; set overwrites', async () => {
      const b = await open();
      expect(await b.get('k')).toBeUndefined();
      await b.set('k', bytes(1, 2, 3));
      expect(arr(await b.get('k'))).toEqual([1, 2, 3]);
      await b.set('k', bytes(4));
      expect(arr(await b.get('k'))).toEqual([4]);
    });

    it('setIfAbsent stores only when absent and never overwrites', async () => {
      const b = await open();
      expect(await b.setIfAbsent('k', bytes(1))).toBe(true);
      expect(await b.setIfAbsent('k', bytes(2))).toBe(false);
      expect(arr(await b.get('k'))).toEqual([1]);
    });

    it('concurrent setIfAbsent on one key: exactly one stores', async () => {
      const b = await open();
      const won = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => b.setIfAbsent('race', bytes(i))));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(arr(await b.get('race'))).toEqual([won.indexOf(true) + 1]);
    });

    it('delete says whether the key existed and is idempotent', async () => {
      const b = await open();
      await b.set('k', bytes(1));
      expect(await b.delete('k')).toBe(true);
      expect(await b.delete('k')).toBe(false);
      expect(await b.get('k')).toBeUndefined();
      expect(await b.list()).toEqual([]);
    });

    it('awkward keys (slashes, dots, %, unicode, whitespace) round-trip and list ascending', async () => {
      const b = await open();
      for (const [i, k] of AWKWARD_KEYS.entries()) await b.set(k, bytes(i));
      expect(await b.list()).toEqual([...AWKWARD_KEYS].sort());
      for (const [i, k] of AWKWARD_KEYS.entries()) expect(arr(await b.get(k))).toEqual([i]);
    });

    it('bytes are copied in and out; empty values and views into larger buffers are exact', async () => {
      const b = await open();
      const value = bytes(1, 2, 3);
      await b.set('k', value);
      value[0] = 9;
      const got = await b.get('k');
      if (got !== undefined) got[1] = 9;
      expect(arr(await b.get('k'))).toEqual([1, 2, 3]);
      await b.set('empty', new Uint8Array(0));
      expect(arr(await b.get('empty'))).toEqual([]);
      await b.setIfAbsent('view', bytes(0xaa, 5, 6, 0xbb).subarray(1, 3));
      expect(arr(await b.get('view'))).toEqual([5, 6]);
    });

    it('counts operations and bytes (a refused setIfAbsent stores nothing)', async () => {
      const b = await open();
      await b.set('a', bytes(1, 2));
      await b.setIfAbsent('b', bytes(3));
      await b.setIfAbsent('b', bytes(4, 5, 6));
      await b.get('a');
      await b.delete('a');
      await b.list();
      expect(b.stats).toEqual({ gets: 1, sets: 2, setBytes: 3, deletes: 1, lists: 1 });
    });
  });
}
