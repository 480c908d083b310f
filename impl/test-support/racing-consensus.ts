/**
 * A Consensus that lets a rival commit once, between a writer's head read and its first
 * compare-and-set: the race a CaS must lose (test-only).
 */
import type { Consensus } from '../persist/consensus.ts';

export function racingConsensus(inner: Consensus, rivalCommits: () => Promise<unknown>): Consensus {
  let interfere = true;
  return {
    head: (k) => inner.head(k),
    scan: (k, f) => inner.scan(k, f),
    compareAndSet: async (k, expected, next) => {
      if (interfere) {
        interfere = false;
        await rivalCommits();
      }
      return inner.compareAndSet(k, expected, next);
    },
  };
}
