/** A program's random choices (a seeded xorshift32 stream) and the updates it pushes. */
import type { Update } from '../../impl/update.ts';
import { xorshift32 } from '../../random/prng.ts';

/** Small seeded source (xorshift32) of the program's choices. */
export class Draw {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = xorshift32(seed >>> 0 || 0x9e3779b9);
  }
  int(n: number): number {
    return this.#next() % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
}

let nextUpdateId = 1;
/** Update ids from 1 again (every program starts there: a replay prints the same program). */
export function restartUpdateIds(): void {
  nextUpdateId = 1;
}
/** An update at `time` (ids unique within a program; sizes vary so parts cut in different places). */
export function update(time: number, size: number): Update {
  const id = nextUpdateId++;
  return { id, key: `m${id}`, value: new Uint8Array(size), time, diff: 1 };
}

export const sortedIds = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);
export const show = (us: readonly Update[]): string => `[${us.map((u) => `${u.id}@${u.time}`).join(' ')}]`;

/** Updates for a push: inside the range, or with one at a boundary just outside it. */
export function chunk(d: Draw, lower: number, upper: number, outside: boolean): { updates: Update[]; bad?: Update } {
  const n = 1 + d.int(3);
  const updates = Array.from({ length: n }, () => update(lower + d.int(upper - lower), 1 + d.int(40)));
  if (!outside) return { updates };
  const bad = update(lower > 0 && d.int(2) === 0 ? lower - 1 : upper, 1 + d.int(40));
  updates.splice(d.int(n + 1), 0, bad);
  return { updates, bad };
}
