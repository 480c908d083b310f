/**
 * Fault plans for impl tests: a fixed list of outcomes (the n-th storage call gets the n-th), or a
 * seeded random one. Conformance has its own, shrinkable plan (conformance/faults.ts).
 */
import type { StorageFault, StorageOp } from '../../vocab/index.ts';
import type { FaultPlan } from '../seams.ts';
import { mulberry32 } from '../../random/prng.ts';

/** Outcomes by call order; `ok` after the list. Records every decision. */
export class ListPlan implements FaultPlan {
  #next = 0;
  readonly calls: { op: StorageOp; key: string; outcome: StorageFault | 'ok' }[] = [];
  constructor(private readonly outcomes: readonly (StorageFault | 'ok')[]) {}
  decide(op: StorageOp, key: string): StorageFault | 'ok' {
    const outcome = this.outcomes[this.#next++] ?? 'ok';
    this.calls.push({ op, key, outcome });
    return outcome;
  }
}

/** Only calls matching `op` (and `key`, when given) draw from the list; all others are ok. */
export function onlyFor(op: StorageOp, outcomes: readonly (StorageFault | 'ok')[], key?: string): FaultPlan & { calls: ListPlan['calls'] } {
  const list = new ListPlan(outcomes);
  return {
    calls: list.calls,
    decide: (o, k) => (o === op && (key === undefined || k === key) ? list.decide(o, k) : 'ok'),
  };
}

/** Each call fails with probability `rate` (a random kind; indeterminate only for writes), from a seed. */
export function randomPlan(seed: number, rate: number): FaultPlan & { injected: number } {
  const next = mulberry32(seed).next;
  const plan = {
    injected: 0,
    decide(op: StorageOp): StorageFault | 'ok' {
      if (next() >= rate) return 'ok';
      plan.injected += 1;
      const writes = op === 'consensus.cas' || op === 'blob.set' || op === 'blob.delete';
      const r = next();
      if (writes && r < 0.25) return 'indeterminate-applied';
      if (writes && r < 0.5) return 'indeterminate-lost';
      return 'transient';
    },
  };
  return plan;
}
