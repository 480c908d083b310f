/**
 * Seeded randomness for explore/: the generators of random/prng.ts, and one stream per consumer of
 * randomness (`streamFor`, `STREAM`) so that adding a consumer does not shift the others.
 */
import { hashInts, mulberry32, type Rng } from '../random/prng.ts';

export { hashInts, mulberry32, unitAt, type Rng } from '../random/prng.ts';

/** An independent stream derived from a seed and a purpose tag (so streams never share draws). */
export function streamFor(seed: number, tag: number): Rng {
  return mulberry32(hashInts(seed, tag));
}

/** Stream tags: one per consumer of randomness, so adding a consumer does not shift the others. */
export const STREAM = {
  workload: 1,
  jitter: 2,
  readiness: 3,
  straggler: 4,
  faults: 5,
  aborts: 6,
  crashKills: 7,
} as const;
