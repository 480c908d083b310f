import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashValue, Interner, sameValue } from './layout.ts';

/** Plain JSON-like data as components hold it (records, arrays, numbers, strings, booleans, null). */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -5, max: 5 }),
    fc.constantFrom(0.5, -0, 1e12, 2 ** 40 + 1),
    fc.string({ maxLength: 3 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'value', 'context'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** The same value rebuilt with every object's keys in reverse order and an `undefined` field added. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = { zz: undefined };
  for (const k of Object.keys(v).reverse()) out[k] = reordered((v as Record<string, unknown>)[k]);
  return out;
}

describe('Interner keys (model/packed/layout.ts)', () => {
  it('equal values (sameValue) hash equal, whatever their key order and undefined fields', () => {
    fc.assert(
      fc.property(json, (v) => {
        const w = reordered(v);
        expect(sameValue(v, w)).toBe(true);
        expect(hashValue(w)).toBe(hashValue(v));
      }),
    );
  });

  it('interns equal values to one id and different values to different ids', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 12 }), (values) => {
        const table = new Interner();
        const ids = values.map((v) => table.intern(v));
        values.forEach((v, i) => {
          expect(table.intern(reordered(v))).toBe(ids[i]);
          values.forEach((u, j) => expect(ids[i] === ids[j]).toBe(sameValue(v, u)));
        });
      }),
    );
  });

  it('tells apart values JSON text would tell apart in the usual shapes', () => {
    const distinct = [null, 0, 1, -1, '0', '', false, true, [], {}, [0], [[]], { a: 0 }, { b: 0 }, { a: [0, 1] }, { a: [1, 0] }, [1, 0], [0, 1]];
    const hashes = new Set(distinct.map(hashValue));
    expect(hashes.size).toBe(distinct.length);
  });

  it('orders ids by content, the same in two interners that saw the values in different orders (what every thread of --jobs relies on)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(json, { maxLength: 12, comparator: sameValue }), (values) => {
        const a = new Interner();
        const b = new Interner();
        const ia = values.map((v) => a.intern(v));
        const ib = [...values].reverse().map((v) => b.intern(v)).reverse();
        const byA = values.map((_, i) => i).sort((x, y) => a.compare(ia[x] as number, ia[y] as number));
        const byB = values.map((_, i) => i).sort((x, y) => b.compare(ib[x] as number, ib[y] as number));
        expect(byB).toEqual(byA);
        for (const id of ia) expect(a.compare(id, id)).toBe(0);
      }),
    );
    const counters = new Interner(true);
    expect([counters.compare(3, 9) < 0, counters.compare(9, 3) > 0, counters.compare(4, 4)]).toEqual([true, true, 0]);
  });

  it('refuses a counter that is not a non-negative int32', () => {
    const counters = new Interner(true);
    expect(counters.intern(7)).toBe(7);
    expect(() => counters.intern(-1)).toThrow(/non-negative int32, got -1/);
  });
});
