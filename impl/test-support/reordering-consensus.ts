/**
 * A Consensus whose answers come back in a seeded order (test-only): each call goes to the inner store
 * at once, in call order — which is the store's own order — but its answer waits in a pool from which
 * one, chosen by the seed, is released per event-loop turn (setImmediate). That is a network which
 * reorders responses across connections, deterministically: the same seed, the same order.
 */
import type { CasResult, Consensus, VersionedData } from '../persist/consensus.ts';
import { mulberry32 } from '../../random/prng.ts';

export function reorderingConsensus(inner: Consensus, seed: number): Consensus {
  const next = mulberry32(seed).next;
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
