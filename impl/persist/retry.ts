/**
 * retryExternal: persist's `retry_external` — a storage call that failed transiently is retried until
 * it succeeds, each retry after a backoff. Here the backoff is a scheduling point (`retry.<op>`), never
 * a timer: a scheduler decides how long it lasts (virtual time) and what runs meanwhile.
 *
 * - `storage-transient`: retried;
 * - `storage-indeterminate`: retried when the call is idempotent (reads, deletes, PUTs of a key only
 *   this writer writes); a compare-and-set is not retried here — its caller resolves it by reading
 *   state back (shard-writer.ts);
 * - `storage-permanent` and every other error: propagate (the replica goes down).
 * Every storage failure seen is reported as a `fault` trace event (which fault, from the injected cause
 * when a fault plan made it) and counted, survived or not.
 */
import type { StorageFault, StorageOp } from '../../vocab/index.ts';
import { isStorageFailure, type SbkitError, type StorageFailureCode } from '../errors.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Trace } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Scheduler } from '../seams.ts';
import { injectedFault } from './faulty.ts';

export interface RetryContext {
  readonly scheduler: Scheduler;
  readonly where: Where;
  readonly trace: Trace;
  readonly metrics: MetricsRecorder;
  /** A supervisor step's calls (restart, retirement, cleanup): their faults say so (`by`), since such a
   * step starts over after a permanent failure where an incarnation's task takes the replica down. */
  readonly by?: 'supervisor';
}

const PLAIN: Readonly<Record<StorageFailureCode, StorageFault>> = {
  'storage-transient': 'transient',
  'storage-indeterminate': 'indeterminate',
  'storage-permanent': 'permanent',
};

/** Reports a storage failure the caller saw: a `fault` event and the metrics. Returns its fault. */
export function reportFault(ctx: RetryContext, op: StorageOp, e: SbkitError & { readonly code: StorageFailureCode }): StorageFault {
  const fault = injectedFault(e)?.fault ?? PLAIN[e.code];
  const c = ctx.metrics.c;
  if (e.code === 'storage-transient') c.faultsTransient += 1;
  else if (e.code === 'storage-indeterminate') c.faultsIndeterminate += 1;
  else c.faultsPermanent += 1;
  ctx.trace.emit(ctx.by === undefined ? { kind: 'fault', replica: ctx.where.replica, op, fault } : { kind: 'fault', replica: ctx.where.replica, op, fault, by: ctx.by });
  return fault;
}

export async function retryExternal<T>(ctx: RetryContext, op: StorageOp, call: () => Promise<T>, opts: { readonly idempotent: boolean } = { idempotent: true }): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (!isStorageFailure(e)) throw e;
      reportFault(ctx, op, e);
      const retryable = e.code === 'storage-transient' || (e.code === 'storage-indeterminate' && opts.idempotent);
      if (!retryable) throw e;
      ctx.metrics.c.retries += 1;
      await pointAt(ctx.scheduler, `retry.${op}`, ctx.where);
    }
  }
}
