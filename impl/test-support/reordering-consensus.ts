/**
 * A Consensus whose answers come back in a seeded order (test-only): each call goes to the inner store
 * at once, in call order — which is the store's own order — but its answer waits in a pool from which
 * one, chosen by the seed, is released per event-loop turn (setImmediate). That is a network which
 * reorders responses across connections, deterministically: the same seed, the same order.
 */
import type { CasResult, Consensus, VersionedData } from '../persist/consensus.ts';

export function reorderingConsensus(inner: Consensus, seed: number): Consensus {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const held: (() => void)[] = [];
  let pumping = false;
  const pump = (): void => {
    if (pumping) return;
    pumping = true;
    setImmediate(function turn() {
      const i = Math.floor(next() * held.length);
      held.splice(i, 1)[0]?.();
      if (held.length > 0) setImmediate(turn);
      else pumping = false;
    });
  };
  const delayed = <T>(answer: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      answer.then(
        (v) => {
          held.push(() => resolve(v));
          pump();
        },
        (e: unknown) => {
          held.push(() => reject(e));
          pump();
        },
      );
    });
  return {
    head: (k): Promise<VersionedData | undefined> => delayed(inner.head(k)),
    scan: (k, f): Promise<VersionedData[]> => delayed(inner.scan(k, f)),
    compareAndSet: (k, e, n): Promise<CasResult> => delayed(inner.compareAndSet(k, e, n)),
  };
}
