/**
 * `sbkit compare --faults [RATE]`: the fault world under compare's seeded virtual time.
 *
 * The same rates per fault site as `sbkit check --faults` (conformance/faults.ts), drawn from the seed:
 * a storage call fails transiently with probability RATE, ends indeterminate with RATE/4 (writes only:
 * half applied, half not), fails permanently with RATE/20 (the replica goes down and restarts). In
 * addition each replica crashes in each batch interval with probability RATE/10, at a uniform moment of
 * that interval (virtual time): at the default 0.1, about one crash per replica per 100 intervals. Every
 * variant of one comparison meets the same crash times; storage faults follow the order of calls.
 */
import type { StorageFault, StorageOp } from '../vocab/index.ts';
import type { FaultPlan } from '../impl/seams.ts';
import { STREAM, streamFor, unitAt } from './prng.ts';

const WRITES: ReadonlySet<StorageOp> = new Set<StorageOp>(['consensus.cas', 'blob.set', 'blob.delete']);

export interface SeededFaults {
  readonly plan: FaultPlan & { readonly injected: number };
  /** Replicas crashed at these virtual times, ascending. */
  readonly aborts: readonly { readonly at: number; readonly replica: number }[];
}

export function seededFaults(seed: number, rate: number, shape: { readonly replicas: number; readonly intervals: number; readonly intervalMs: number }): SeededFaults {
  const rng = streamFor(seed, STREAM.faults);
  const plan = {
    injected: 0,
    decide(op: StorageOp): StorageFault | 'ok' {
      const u = rng.next();
      let outcome: StorageFault | 'ok' = 'ok';
      if (u < rate) outcome = 'transient';
      else if (u < rate * 1.05) outcome = 'permanent';
      else if (WRITES.has(op) && u < rate * 1.175) outcome = 'indeterminate-applied';
      else if (WRITES.has(op) && u < rate * 1.3) outcome = 'indeterminate-lost';
      if (outcome !== 'ok') plan.injected += 1;
      return outcome;
    },
  };
  const aborts: { at: number; replica: number }[] = [];
  for (let interval = 0; interval < shape.intervals; interval++) {
    for (let replica = 0; replica < shape.replicas; replica++) {
      if (unitAt(seed, STREAM.aborts, replica, interval, 0) >= rate / 10) continue;
      aborts.push({ at: (interval + unitAt(seed, STREAM.aborts, replica, interval, 1)) * shape.intervalMs, replica });
    }
  }
  aborts.sort((a, b) => a.at - b.at);
  return { plan, aborts };
}
