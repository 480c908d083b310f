/**
 * The visited set of the packed search: every distinct state once, numbered in insertion (BFS) order.
 *
 * Two-level tree compression: the slot vector is cut into chunks of `CHUNK` slots, each chunk interned
 * in one shared chunk table, and a state is the tuple of its chunk ids, interned in the root table
 * (whose dense ids are the state numbers). Neighbouring states share most chunks, so a state costs about
 * its root tuple (4 bytes per chunk) plus its index entry, its parent and its edge.
 */
import { PagedInts, TupleSet } from './tuple-set.ts';

export const CHUNK = 4;

export class StateStore {
  readonly chunks: number;
  private readonly chunkTable = new TupleSet(CHUNK, 10);
  private readonly root: TupleSet;
  private readonly rootBuf: Int32Array;
  private readonly chunkBuf = new Int32Array(CHUNK);
  /** Per state: the state it was first reached from (-1 for the initial state). */
  readonly parents = new PagedInts();
  /** Per state: the edge that reached it (the search's own encoding: event id, symmetry id). */
  readonly edges = new PagedInts();

  constructor(readonly slots: number) {
    this.chunks = Math.ceil(slots / CHUNK);
    this.root = new TupleSet(this.chunks, 10);
    this.rootBuf = new Int32Array(this.chunks);
    this.base = new Int32Array(slots);
    this.baseRoot = new Int32Array(this.chunks);
  }

  get size(): number {
    return this.root.size;
  }

  /** The vector and chunk ids of the last `read`: successors re-intern only the chunks that differ. */
  private readonly base: Int32Array;
  private readonly baseRoot: Int32Array;
  private hasBase = false;

  private encode(vec: Int32Array): void {
    const slots = this.slots;
    for (let c = 0; c < this.chunks; c++) {
      const at = c * CHUNK;
      if (this.hasBase) {
        let same = true;
        for (let i = 0; i < CHUNK && at + i < slots; i++) {
          if (vec[at + i] !== this.base[at + i]) {
            same = false;
            break;
          }
        }
        if (same) {
          this.rootBuf[c] = this.baseRoot[c] as number;
          continue;
        }
      }
      for (let i = 0; i < CHUNK; i++) this.chunkBuf[i] = at + i < slots ? (vec[at + i] as number) : 0;
      const id = this.chunkTable.add(this.chunkBuf);
      this.rootBuf[c] = id < 0 ? -id - 1 : id;
    }
  }

  /** The state's number if it is stored, else -1 (adds its chunks either way). */
  find(vec: Int32Array): number {
    this.encode(vec);
    return this.root.find(this.rootBuf);
  }

  /** Adds the state; returns its number when it was stored already, or `-(n + 1)` for a new one. */
  add(vec: Int32Array, parent: number, edge: number): number {
    this.encode(vec);
    const r = this.root.add(this.rootBuf);
    if (r < 0) {
      this.parents.push(parent);
      this.edges.push(edge);
    }
    return r;
  }

  /** Reads state `n` into `out`; later `add`s compare against it to skip unchanged chunks. */
  read(n: number, out: Int32Array): void {
    this.root.read(n, this.baseRoot);
    for (let c = 0; c < this.chunks; c++) {
      this.chunkTable.read(this.baseRoot[c] as number, this.chunkBuf);
      const at = c * CHUNK;
      for (let i = 0; i < CHUNK && at + i < this.slots; i++) out[at + i] = this.chunkBuf[i] as number;
    }
    this.base.set(out);
    this.hasBase = true;
  }

  /** Bytes of every typed array: root tuples and index, chunk table, parents and edges. */
  bytes(): number {
    return this.root.bytes() + this.chunkTable.bytes() + this.parents.bytes() + this.edges.bytes();
  }
}
