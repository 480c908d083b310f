/**
 * Blob and consensus that fail as a fault plan decides (Materialize persist's UnreliableBlob /
 * UnreliableConsensus in its Maelstrom tests; FoundationDB's BUGGIFY): every call asks the plan first.
 *
 * What each decided outcome does (the error codes are impl/errors.ts's storage-* codes):
 * - `transient`: throw `storage-transient`; the call did not happen;
 * - `indeterminate-applied`: perform the call, then throw `storage-indeterminate` (the answer is lost);
 * - `indeterminate-lost` / `indeterminate`: throw `storage-indeterminate` without performing the call;
 * - `permanent`: throw `storage-permanent`; the call did not happen.
 * Reads (`get`, `list`, `head`, `scan`) have no effect to apply, so their indeterminate outcomes behave
 * as lost ones. Every injected error carries `{ injected: { op, fault } }` as its `cause`, so that the
 * layer that survives it can report which fault it was (the trace's `fault` event, conformance only:
 * nothing decides by it).
 *
 * Invariants: a call the plan lets through (`ok`) is exactly the inner store's call; `stats` counts
 * every injected fault by operation and outcome.
 */
import type { StorageFault, StorageOp } from '../../vocab/index.ts';
import { SbkitError, type StorageFailureCode } from '../errors.ts';
import type { FaultPlan } from '../seams.ts';
import type { Blob } from './blob.ts';
import type { CasResult, Consensus, SeqNo, VersionedData } from './consensus.ts';

export interface InjectedFault {
  readonly op: StorageOp;
  readonly fault: StorageFault;
}

/** Injected faults by `op/fault`, e.g. `consensus.cas/indeterminate-applied`. */
export type FaultStats = Record<string, number>;

/** The injected fault behind `e`, if a fault plan caused it. */
export function injectedFault(e: unknown): InjectedFault | undefined {
  if (!(e instanceof SbkitError)) return undefined;
  const cause = e.cause as { readonly injected?: InjectedFault } | undefined;
  return cause?.injected;
}

const CODE: Readonly<Record<StorageFault, StorageFailureCode>> = {
  transient: 'storage-transient',
  'indeterminate-applied': 'storage-indeterminate',
  'indeterminate-lost': 'storage-indeterminate',
  indeterminate: 'storage-indeterminate',
  permanent: 'storage-permanent',
};

function failure(op: StorageOp, key: string, fault: StorageFault): SbkitError {
  // No stack trace: an injected failure's stack only ever points here (its message names the call and
  // the fault), and capturing one was about a seventh of a fault-world run.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new SbkitError(CODE[fault], `injected fault: ${op} ${JSON.stringify(key)} failed (${fault})`, {
      cause: { injected: { op, fault } },
    });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Runs `call` as the plan decides for (op, key). `effect`: whether the call changes the store; `applied`:
 * whether a call that ran changed it (a compare-and-set that lost its race did not).
 *
 * SUBTLE: `indeterminate-applied` makes the call and loses its answer. The label is what the model is
 * told happened, so it must be true: a compare-and-set that reached the store and lost its race changed
 * nothing, and is reported `indeterminate-lost`. (While the read and the compare-and-set were one step,
 * no race could be lost and the label never lied; with the send a step of its own, it did.)
 */
async function decided<T>(
  plan: FaultPlan,
  stats: FaultStats,
  op: StorageOp,
  key: string,
  effect: boolean,
  call: () => Promise<T>,
  applied: (result: T) => boolean = () => true,
): Promise<T> {
  let outcome = plan.decide(op, key);
  if (outcome === 'ok') return call();
  if (outcome === 'indeterminate-applied' && effect && !applied(await call())) outcome = 'indeterminate-lost';
  stats[`${op}/${outcome}`] = (stats[`${op}/${outcome}`] ?? 0) + 1;
  throw failure(op, key, outcome);
}

export class FaultyBlob implements Blob {
  constructor(
    private readonly inner: Blob,
    private readonly plan: FaultPlan,
    readonly stats: FaultStats = {},
  ) {}

  get(key: string): Promise<Uint8Array | undefined> {
    return decided(this.plan, this.stats, 'blob.get', key, false, () => this.inner.get(key));
  }

  set(key: string, value: Uint8Array): Promise<void> {
    return decided(this.plan, this.stats, 'blob.set', key, true, () => this.inner.set(key, value));
  }

  setIfAbsent(key: string, value: Uint8Array): Promise<boolean> {
    // (a key already there is left as it was: that call changed nothing, like a lost compare-and-set)
    return decided(this.plan, this.stats, 'blob.set', key, true, () => this.inner.setIfAbsent(key, value), (wrote) => wrote);
  }

  delete(key: string): Promise<boolean> {
    return decided(this.plan, this.stats, 'blob.delete', key, true, () => this.inner.delete(key));
  }

  list(): Promise<string[]> {
    return decided(this.plan, this.stats, 'blob.list', '', false, () => this.inner.list());
  }
}

export class FaultyConsensus implements Consensus {
  constructor(
    private readonly inner: Consensus,
    private readonly plan: FaultPlan,
    readonly stats: FaultStats = {},
  ) {}

  head(key: string): Promise<VersionedData | undefined> {
    return decided(this.plan, this.stats, 'consensus.head', key, false, () => this.inner.head(key));
  }

  compareAndSet(key: string, expected: SeqNo | null, next: VersionedData): Promise<CasResult> {
    return decided(this.plan, this.stats, 'consensus.cas', key, true, () => this.inner.compareAndSet(key, expected, next), (r) => r.ok);
  }

  scan(key: string, from: SeqNo): Promise<VersionedData[]> {
    return decided(this.plan, this.stats, 'consensus.scan', key, false, () => this.inner.scan(key, from));
  }
}

/** A plan that lets every call through until `arm()`: startup decides no interleaving and passes no
 * scheduling point, so no fault can be retried there; runSink arms the plan once its tasks start. */
export class ArmedPlan implements FaultPlan {
  #armed = false;
  constructor(private readonly inner: FaultPlan) {}

  arm(): void {
    this.#armed = true;
  }

  decide(op: StorageOp, key: string): StorageFault | 'ok' {
    return this.#armed ? this.inner.decide(op, key) : 'ok';
  }
}
