/**
 * Hash sets of integer tuples with dense ids: the packed search's only data structures.
 *
 * `TupleSet` (fixed width) numbers each distinct tuple 0, 1, 2 … in insertion order and stores it in
 * paged `Int32Array`s of 4,096 tuples (no big array is ever copied: memory grows a page at a time); its open-
 * addressing index holds ids only and is rebuilt from the stored tuples when it is half full.
 * `TupleMap` (variable width) maps a tuple to an int value the same way, for memo tables.
 *
 * Invariants: ids are dense and never change; a tuple is stored once; `bytes()` counts every typed array
 * the set holds (what `npm run bench` reports as bytes per stored state).
 */

const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
/** TupleSet pages hold 4,096 tuples. */
const TUPLE_PAGE_BITS = 12;
const TUPLE_PAGE = 1 << TUPLE_PAGE_BITS;

function hashInts(buf: ArrayLike<number>, off: number, len: number): number {
  let h = 0x811c9dc5 ^ len;
  for (let i = 0; i < len; i++) {
    h = Math.imul(h ^ (buf[off + i] as number), 0x01000193);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A growable array of int32 in pages of 4,096 entries (`get`/`set` by index). */
export class PagedInts {
  private readonly pages: Int32Array[] = [];
  length = 0;
  push(x: number): void {
    const page = this.length >>> PAGE_BITS;
    if (page === this.pages.length) this.pages.push(new Int32Array(PAGE));
    (this.pages[page] as Int32Array)[this.length & (PAGE - 1)] = x;
    this.length += 1;
  }
  get(i: number): number {
    return (this.pages[i >>> PAGE_BITS] as Int32Array)[i & (PAGE - 1)] as number;
  }
  set(i: number, x: number): void {
    (this.pages[i >>> PAGE_BITS] as Int32Array)[i & (PAGE - 1)] = x;
  }
  bytes(): number {
    return this.pages.length * PAGE * 4;
  }
}

/** A growable array of int32 in one buffer (doubling), for tables that grow with cache misses, not states. */
export class GrowInts {
  data = new Int32Array(1024);
  length = 0;
  push(x: number): void {
    if (this.length === this.data.length) {
      const d = new Int32Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = x;
  }
  bytes(): number {
    return this.data.length * 4;
  }
}

export class TupleSet {
  private readonly pages: Int32Array[] = [];
  private readonly perPage: number;
  private index: Int32Array;
  private mask: number;
  size = 0;

  constructor(readonly width: number, initialIndexBits = 12) {
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`TupleSet width must be a positive integer, got ${width}`);
    this.perPage = TUPLE_PAGE;
    this.index = new Int32Array(1 << initialIndexBits).fill(-1);
    this.mask = (1 << initialIndexBits) - 1;
  }

  private page(id: number): Int32Array {
    return this.pages[id >>> TUPLE_PAGE_BITS] as Int32Array;
  }

  private equalsAt(id: number, buf: ArrayLike<number>, off: number): boolean {
    const page = this.page(id);
    const base = (id & (TUPLE_PAGE - 1)) * this.width;
    for (let i = 0; i < this.width; i++) if (page[base + i] !== buf[off + i]) return false;
    return true;
  }

  /** The id of the tuple `buf[off … off+width)`, or -1 if it is not in the set. */
  find(buf: ArrayLike<number>, off = 0): number {
    let slot = hashInts(buf, off, this.width) & this.mask;
    for (;;) {
      const id = this.index[slot] as number;
      if (id < 0) return -1;
      if (this.equalsAt(id, buf, off)) return id;
      slot = (slot + 1) & this.mask;
    }
  }

  /**
   * Adds the tuple if absent. Returns its id when it was already there, or `-(id + 1)` when it was added
   * now (so `r < 0` means new, and the new id is `-r - 1`).
   */
  add(buf: ArrayLike<number>, off = 0): number {
    let slot = hashInts(buf, off, this.width) & this.mask;
    for (;;) {
      const id = this.index[slot] as number;
      if (id < 0) break;
      if (this.equalsAt(id, buf, off)) return id;
      slot = (slot + 1) & this.mask;
    }
    const id = this.size;
    const pageNo = id >>> TUPLE_PAGE_BITS;
    if (pageNo === this.pages.length) this.pages.push(new Int32Array(this.perPage * this.width));
    const page = this.pages[pageNo] as Int32Array;
    const base = (id & (TUPLE_PAGE - 1)) * this.width;
    for (let i = 0; i < this.width; i++) page[base + i] = buf[off + i] as number;
    this.index[slot] = id;
    this.size += 1;
    if (this.size * 2 > this.index.length) this.grow();
    return -(id + 1);
  }

  /** Copies tuple `id` into `out[off …]`. */
  read(id: number, out: Int32Array, off = 0): void {
    const page = this.page(id);
    const base = (id & (TUPLE_PAGE - 1)) * this.width;
    for (let i = 0; i < this.width; i++) out[off + i] = page[base + i] as number;
  }

  /** Element `i` of tuple `id`. */
  at(id: number, i: number): number {
    return this.page(id)[(id & (TUPLE_PAGE - 1)) * this.width + i] as number;
  }

  private grow(): void {
    const index = new Int32Array(this.index.length * 2).fill(-1);
    const mask = index.length - 1;
    const tmp = new Int32Array(this.width);
    for (let id = 0; id < this.size; id++) {
      this.read(id, tmp);
      let slot = hashInts(tmp, 0, this.width) & mask;
      while ((index[slot] as number) >= 0) slot = (slot + 1) & mask;
      index[slot] = id;
    }
    this.index = index;
    this.mask = mask;
  }

  /** Bytes held: stored tuples (whole pages) and the index. */
  bytes(): number {
    return this.pages.length * this.perPage * this.width * 4 + this.index.length * 4;
  }
}

/** Variable-width int tuples → int values (memo tables). */
export class TupleMap {
  private keys = new Int32Array(1 << 12);
  private used = 0;
  private starts = new Int32Array(1 << 10);
  private lengths = new Int32Array(1 << 10);
  private values = new Int32Array(1 << 10);
  private index: Int32Array;
  private mask: number;
  size = 0;

  constructor(initialIndexBits = 12) {
    this.index = new Int32Array(1 << initialIndexBits).fill(-1);
    this.mask = (1 << initialIndexBits) - 1;
  }

  private equalsAt(e: number, buf: ArrayLike<number>, len: number): boolean {
    if (this.lengths[e] !== len) return false;
    const start = this.starts[e] as number;
    for (let i = 0; i < len; i++) if (this.keys[start + i] !== buf[i]) return false;
    return true;
  }

  /** The value stored for `buf[0 … len)`, or -1. */
  get(buf: ArrayLike<number>, len: number): number {
    let slot = hashInts(buf, 0, len) & this.mask;
    for (;;) {
      const e = this.index[slot] as number;
      if (e < 0) return -1;
      if (this.equalsAt(e, buf, len)) return this.values[e] as number;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Stores `value` (≥ 0) for the key (which must be absent). */
  set(buf: ArrayLike<number>, len: number, value: number): void {
    if (this.used + len > this.keys.length) {
      const keys = new Int32Array(Math.max(this.keys.length * 2, this.used + len));
      keys.set(this.keys);
      this.keys = keys;
    }
    if (this.size === this.starts.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts);
      this.lengths = grow(this.lengths);
      this.values = grow(this.values);
    }
    const e = this.size;
    this.starts[e] = this.used;
    this.lengths[e] = len;
    this.values[e] = value;
    for (let i = 0; i < len; i++) this.keys[this.used + i] = buf[i] as number;
    this.used += len;
    let slot = hashInts(buf, 0, len) & this.mask;
    while ((this.index[slot] as number) >= 0) slot = (slot + 1) & this.mask;
    this.index[slot] = e;
    this.size += 1;
    if (this.size * 2 > this.index.length) this.grow();
  }

  private grow(): void {
    const index = new Int32Array(this.index.length * 2).fill(-1);
    const mask = index.length - 1;
    for (let e = 0; e < this.size; e++) {
      let slot = hashInts(this.keys, this.starts[e] as number, this.lengths[e] as number) & mask;
      while ((index[slot] as number) >= 0) slot = (slot + 1) & mask;
      index[slot] = e;
    }
    this.index = index;
    this.mask = mask;
  }

  bytes(): number {
    return (this.keys.length + this.starts.length * 3 + this.index.length) * 4;
  }
}
