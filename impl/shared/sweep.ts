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
 *
 * Several MV sinks (PROTOCOL.md "Several MV sinks"): the registry is process-global, so one sweep visits
 * and removes the entries of every sink it serves, in ascending (sink, id) order; hold and release name
 * the entry's sink, and the sweep event lists what it removed per sink (`sinks`).
 */
import type { SharedId, SweptSink } from '../../vocab/index.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { SharedBatchesContext } from './context.ts';
import type { BuilderEntry } from './entry.ts';

export interface SweepHost {
  readonly ctx: SharedBatchesContext;
  /** Keyed by (sink, id), ascending in that order (shared-batches.ts). */
  readonly entries: Map<number, BuilderEntry>;
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
      visited = order(next);
      next.refs += 1; // BUG: weak.upgrade() to test liveness
      ctx.trace.emit({ kind: 'sweep-hold', ...base, ...sinkOf(next), sharedId: next.id });
      await pointAt(ctx.scheduler, 'sweep.release', where);
      next.refs -= 1;
      const closed = next.refs === 0;
      ctx.trace.emit({ kind: 'sweep-release', ...base, ...sinkOf(next), sharedId: next.id, closed });
      if (closed) next.instance.orphan();
      await pointAt(ctx.scheduler, 'sweep', where);
    }
  }

  const dead: [number, BuilderEntry][] = [];
  for (const [key, e] of entries) if (!e.live) dead.push([key, e]);
  dead.sort(([, a], [, b]) => order(a) - order(b));
  for (const [key] of dead) entries.delete(key);
  host.sweepDone();
  const removed = dead.map(([, e]) => e.id);
  if (ctx.sinks === undefined) ctx.trace.emit({ kind: 'sweep', ...base, removed });
  else {
    const sinks: SweptSink[] = ctx.sinks.map((sink) => ({ sink, removed: dead.flatMap(([, e]) => (e.sink === sink ? [e.id] : [])) }));
    ctx.trace.emit({ kind: 'sweep', ...base, removed: sinks.flatMap((s) => s.removed), sinks });
  }
}

/** Where an entry sorts: by sink, then id. */
const order = (e: BuilderEntry): number => e.sink * 2 ** 32 + e.id;

/** `{ sink }` for an entry of sink s > 0 (sink 0's events carry none). gallery-only: the race's events. */
const sinkOf = (e: BuilderEntry): { sink?: number } => (e.sink === 0 ? {} : { sink: e.sink });
/** The live entry that sorts next after `above`: the race visits entries in order. gallery-only. */
function nextLiveAbove(entries: Map<number, BuilderEntry>, above: number): BuilderEntry | undefined {
  let best: BuilderEntry | undefined;
  for (const e of entries.values()) {
    if (e.live && order(e) > above && (best === undefined || order(e) < order(best))) best = e;
  }
  return best;
}
