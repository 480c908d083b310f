import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, unzigzag, utf8Length, varintSize, zigzag } from '../bytes.ts';
import { isSbkitError } from '../errors.ts';
import { decodePart, encodePart, partHeaderSize } from '../part-codec.ts';
import { decodeDiff, encodeDiff } from '../persist/state-diff.ts';
import { encodedUpdateSize, partitionWorker, payloadBytes, type Update } from '../update.ts';

const updateArb = fc.record({
  id: fc.nat(),
  key: fc.string({ unit: 'grapheme', maxLength: 20 }),
  value: fc.uint8Array({ maxLength: 300 }),
  time: fc.nat({ max: 1_000_000 }),
  diff: fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
});

describe('bytes', () => {
  it('varints round-trip across the safe-integer range and varintSize is exact', () => {
    fc.assert(
      fc.property(fc.array(fc.maxSafeNat()), (ns) => {
        const w = new ByteWriter(1);
        for (const n of ns) w.varint(n);
        const bytes = w.finish();
        expect(bytes.length).toBe(ns.reduce((s, n) => s + varintSize(n), 0));
        const r = new ByteReader(bytes, 'test');
        for (const n of ns) expect(r.varint()).toBe(n);
        expect(r.done).toBe(true);
      }),
    );
  });

  it('the initial capacity is a hint: any value (negative, fractional, zero, huge) gives the same bytes', () => {
    type Op = { kind: 'u8' | 'varint'; n: number } | { kind: 'bytes'; b: Uint8Array } | { kind: 'string'; s: string };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('u8' as const), n: fc.nat({ max: 255 }) }),
      fc.record({ kind: fc.constant('varint' as const), n: fc.nat() }),
      fc.record({ kind: fc.constant('bytes' as const), b: fc.uint8Array({ maxLength: 300 }) }),
      fc.record({ kind: fc.constant('string' as const), s: fc.string({ maxLength: 40 }) }),
    );
    const write = (capacity: number | undefined, ops: readonly Op[]): Uint8Array => {
      const w = capacity === undefined ? new ByteWriter() : new ByteWriter(capacity);
      for (const op of ops) {
        if (op.kind === 'bytes') w.bytes(op.b);
        else if (op.kind === 'string') w.string(op.s);
        else w[op.kind](op.n);
      }
      return w.finish();
    };
    const capacityArb = fc.oneof(fc.integer({ min: -1_000, max: 5_000 }), fc.double({ min: -100, max: 100, noNaN: true }), fc.constantFrom(0, -0, 1e6));
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), capacityArb, (ops, capacity) => {
        expect(write(capacity, ops)).toEqual(write(undefined, ops));
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it('zigzag maps small magnitudes to small numbers and round-trips', () => {
    expect([0, -1, 1, -2, 2].map(zigzag)).toEqual([0, 1, 2, 3, 4]);
    fc.assert(fc.property(fc.integer({ min: -(2 ** 51), max: 2 ** 51 }), (n) => unzigzag(zigzag(n)) === n));
  });

  it('utf8Length agrees with TextEncoder, including lone surrogates', () => {
    const enc = new TextEncoder();
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => utf8Length(s) === enc.encode(s).length));
    expect(utf8Length('\ud800x')).toBe(enc.encode('\ud800x').length);
    expect(utf8Length('\ud800')).toBe(3);
  });

  it('strings and byte strings round-trip; malformed input is corrupt-data', () => {
    const w = new ByteWriter().string('héllo ✓').string('ascii').bytes(new Uint8Array([1, 2, 3]));
    const r = new ByteReader(w.finish(), 'test');
    expect(r.string()).toBe('héllo ✓');
    expect(r.string()).toBe('ascii');
    expect([...r.bytes()]).toEqual([1, 2, 3]);
    const corrupt = (bytes: number[], read: (r: ByteReader) => unknown): void => {
      expect(() => read(new ByteReader(new Uint8Array(bytes), 'x'))).toThrow(expect.objectContaining({ code: 'corrupt-data' }));
    };
    corrupt([], (r) => r.u8());
    corrupt([5, 1], (r) => r.bytes());
    corrupt([5, 1], (r) => r.string());
    corrupt([2, 0xc3, 0x28], (r) => r.string()); // invalid UTF-8
    corrupt(Array(9).fill(0xff), (r) => r.varint());
    corrupt([1, 2], (r) => {
      r.u8();
      r.expectEnd();
    });
    expect(() => new ByteWriter().varint(-1)).toThrow(expect.objectContaining({ code: 'corrupt-data' }));
  });
});

describe('updates and parts', () => {
  it('a part is its header plus Σ encodedUpdateSize, and decodes to the same (key, value, time, diff)', () => {
    fc.assert(
      fc.property(fc.array(updateArb, { maxLength: 30 }), (us: Update[]) => {
        const payload = payloadBytes(us);
        const bytes = encodePart(us, payload);
        expect(bytes.length).toBe(partHeaderSize(us.length) + us.reduce((s, u) => s + encodedUpdateSize(u), 0));
        expect(decodePart(bytes)).toEqual(us.map(({ key, value, time, diff }) => ({ key, value, time, diff })));
      }),
    );
  });

  it('rejects corrupt parts', () => {
    const good = encodePart([{ id: 0, key: 'a', value: new Uint8Array(1), time: 0, diff: 1 }], 5);
    expect(() => decodePart(new Uint8Array([0, 0, 1, 0]))).toThrow(/bad magic/);
    expect(() => decodePart(new Uint8Array([0x53, 0x42, 9, 0]))).toThrow(/unknown version 9/);
    expect(() => decodePart(good.slice(0, -1))).toThrow(expect.objectContaining({ code: 'corrupt-data' }));
  });

  it('partitionWorker is deterministic, in range, spreads keys, and rejects < 1 worker', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i++) {
      const w = partitionWorker(`key-${i}`, 8);
      expect(w).toBe(partitionWorker(`key-${i}`, 8));
      counts[w] = (counts[w] ?? 0) + 1;
    }
    for (const c of counts) expect(c).toBeGreaterThan(800);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => partitionWorker('k', bad)).toThrow(expect.objectContaining({ code: 'invalid-workers' }));
    }
  });
});

describe('state diffs', () => {
  it('round-trip with hollow, inline and no batch', () => {
    const withBatch = {
      seqNo: 3,
      upper: 9,
      since: 0,
      batch: {
        lower: 4,
        upper: 9,
        parts: [
          { kind: 'hollow', key: 'r0/part-1', encodedBytes: 5000, payloadBytes: 4990, updates: 50 },
          { kind: 'inline', data: new Uint8Array([1, 2, 3]), payloadBytes: 2, updates: 1 },
        ],
      },
      writer: 'w12-r3',
      token: 300,
    } as const;
    expect(decodeDiff(encodeDiff(withBatch))).toEqual(withBatch);
    const empty = { seqNo: 0, upper: 1, since: 0, batch: null, writer: 'w1-r0', token: 7 };
    expect(decodeDiff(encodeDiff(empty))).toEqual(empty);
  });

  it('rejects corrupt diffs', () => {
    const bad = (bytes: number[]): void => {
      expect(() => decodeDiff(new Uint8Array(bytes))).toThrow(expect.objectContaining({ code: 'corrupt-data' }));
    };
    bad([3, 0, 0, 0, 0, 0, 0]); // version
    bad([2, 0, 1, 0, 0, 0, 7]); // batch flag (writer "", token 0)
    bad([2, 0, 1, 0, 0, 0, 1, 0, 1, 1, 9, 0, 0]); // part kind
    bad([2, 0, 1, 0, 0, 0, 0, 0]); // trailing
    expect(isSbkitError(new Error('x'))).toBe(false);
  });
});
