/**
 * The registry sweep: a bounded background task that removes dead entries (PROTOCOL.md "Sweep").
 *
 * Clean (the fix in #37591): liveness is `strong_count() > 0`, read without taking a reference, so the
 * sweep is one atomic step after its scheduling point.
 *
 * Bug `sweep-upgrade-race`: liveness is tested with `weak.upgrade()`, a temporary strong reference.
 * The sweep visits live entries in ascending id order (the next live id above the last visited, read
 * at each visit), holding each across a scheduling point. A finish() that runs meanwhile sees two
 * references and is not last; the release then drops the last reference and the batch goes to nobody.
 */
import type { SharedId } from '../../vocab/index.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { SharedBatchesContext } from './context.ts';
import type { BuilderEntry } from './entry.ts';

export interface SweepHost {
  readonly ctx: SharedBatchesContext;
  readonly entries: Map<SharedId, BuilderEntry>;
  /** Records `retained` = entries left, and clears the pending flag. */
  sweepDone(): void;
}

export async function sweepDeadEntries(host: SweepHost): Promise<void> {
  const { ctx, entries } = host;
  const where: Where = { replica: ctx.replica, process: ctx.process };
  const base = { replica: ctx.replica, process: ctx.process };
  await pointAt(ctx.scheduler, 'sweep', where);

  if (ctx.bugs.has('sweep-upgrade-race')) {
    let visited = -1;
    for (;;) {
      const next = nextLiveAbove(entries, visited);
      if (next === undefined) break;
      visited = next.id;
      next.refs += 1; // BUG: weak.upgrade() to test liveness
      ctx.trace.emit({ kind: 'sweep-hold', ...base, sharedId: next.id });
      await pointAt(ctx.scheduler, 'sweep.release', where);
      next.refs -= 1;
      const closed = next.refs === 0;
      ctx.trace.emit({ kind: 'sweep-release', ...base, sharedId: next.id, closed });
      if (closed) next.instance.orphan();
      await pointAt(ctx.scheduler, 'sweep', where);
    }
  }

  const removed: SharedId[] = [];
  for (const e of entries.values()) if (!e.live) removed.push(e.id);
  removed.sort((a, b) => a - b);
  for (const id of removed) entries.delete(id);
  host.sweepDone();
  ctx.trace.emit({ kind: 'sweep', ...base, removed });
}

function nextLiveAbove(entries: Map<SharedId, BuilderEntry>, above: number): BuilderEntry | undefined {
  let best: BuilderEntry | undefined;
  for (const e of entries.values()) {
    if (e.live && e.id > above && (best === undefined || e.id < best.id)) best = e;
  }
  return best;
}
