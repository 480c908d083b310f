/**
 * Seeded randomness, the one home of the kit's generators: a 32-bit mixer for counter-based draws,
 * mulberry32 for streams, and xorshift32 where a bare integer stream is enough. Every half may import it
 * (impl/, model/, conformance/, explore/, their tests): it holds no protocol logic.
 *
 * Randomness is always injected (a generator built from a seed), never global, so one seed reproduces a
 * whole run byte for byte.
 */

/** murmur3's 32-bit finalizer: a bijection on uint32 with good avalanche. */
export function fmix32(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hashes a list of integers (a seed and the coordinates of a draw) to one uint32. */
export function hashInts(...xs: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    h = fmix32((h ^ fmix32(Math.trunc(x) >>> 0)) + 0x7f4a7c15);
    // Fold in the high bits of values above 2^32 so large seeds stay distinct.
    h = fmix32(h ^ Math.trunc(x / 0x1_0000_0000));
  }
  return h;
}

/** A uniform draw in [0, 1) that depends only on its coordinates (counter-based randomness). */
export function unitAt(...xs: readonly number[]): number {
  return hashInts(...xs) / 0x1_0000_0000;
}

/** A stream of pseudo-random numbers. */
export interface Rng {
  /** A uniform uint32. */
  nextU32(): number;
  /** A uniform float in [0, 1). */
  next(): number;
  /** A uniform integer in [0, n); n ≥ 1. */
  below(n: number): number;
}

/** mulberry32: small, fast, good enough for timing jitter and workloads (not for cryptography). */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  const nextU32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    nextU32,
    next: () => nextU32() / 0x1_0000_0000,
    below: (n) => Math.floor((nextU32() / 0x1_0000_0000) * n),
  };
}

/** xorshift32 (13, 17, 5): a stream of nonzero uint32s from a seed (0 is replaced by 1). */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}
