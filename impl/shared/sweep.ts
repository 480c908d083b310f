/**
 * The registry sweep (vocab/PROTOCOL.md "Sweep"; Materialize `SharedBatches::builder`): inside a
 * builder() call, under the registry's lock, before the id is looked up, once the map has grown past
 * twice its length after the last sweep: `map.retain(live)`, then `retained = map.len()`.
 *
 * Clean (#37591's fix): liveness is `strong_count() > 0`, read without taking a reference: the sweep is
 * one step of the caller's.
 *
 * Bug `sweep-upgrade-race` (the first version): liveness is `weak.upgrade()`, a temporary strong
 * reference. The retain visits live entries in map order (by id), taking and dropping a reference to
 * each; finishes never take the registry's lock, so another worker's finish() (of any sink of the
 * process) can run while one is held: `Arc::into_inner` sees two references, the finisher is not last,
 * and the release then drops the last reference — the batch goes to nobody. Each visit is a hold, a
 * scheduling point, a release.
 *
 * The sweep is the caller's: its events carry the caller's worker and go to its sink's trace (a hold or
 * release of another sink's entry names that sink, `entrySink`); with several sinks the sweep event lists
 * what it removed per sink (`sinks`).
 */
import type { SweptSink } from '../../vocab/index.ts';
import type { Trace } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import { compareIds, keyOf } from './batch-id.ts';
import type { RegistrySink, SharedBatchesContext } from './context.ts';
import type { BuilderEntry } from './entry.ts';

export interface SweepHost {
  readonly ctx: SharedBatchesContext;
  /** Keyed by batch id (batch-id.ts keyOf). */
  readonly entries: Map<string, BuilderEntry>;
  /** The trace of a sink the registry serves. */
  traceOf(sink: RegistrySink): Trace;
  /** Records `retained` = entries left. */
  sweepDone(): void;
}

/** Sweeps under the lock `worker` holds, for its builder() call on behalf of `sink`. */
export async function sweepUnderLock(host: SweepHost, worker: number, sink: RegistrySink): Promise<void> {
  const { ctx, entries } = host;
  const trace = host.traceOf(sink);
  const by = { replica: ctx.replica, process: ctx.process, worker };

  if (ctx.bugs.has('sweep-upgrade-race')) {
    const where: Where = by;
    let visited: BuilderEntry | undefined;
    for (;;) {
      const next = nextLiveAfter(entries, visited);
      if (next === undefined) break;
      visited = next;
      next.refs += 1; // BUG: weak.upgrade() to test liveness
      trace.emit({ kind: 'sweep-hold', ...by, sharedId: next.id.seq, ...entrySinkOf(next, sink) });
      await pointAt(ctx.scheduler, 'sweep.release', where);
      next.refs -= 1;
      const closed = next.refs === 0;
      trace.emit({ kind: 'sweep-release', ...by, sharedId: next.id.seq, closed, ...entrySinkOf(next, sink) });
      if (closed) next.instance.orphan();
      await pointAt(ctx.scheduler, 'sweep', where);
    }
  }

  const dead = [...entries.values()].filter((e) => !e.live).sort((a, b) => compareIds(a.id, b.id));
  for (const e of dead) entries.delete(keyOf(e.id));
  host.sweepDone();
  const removed = dead.map((e) => e.id.seq);
  if (ctx.sinks === undefined) trace.emit({ kind: 'sweep', ...by, removed });
  else {
    const sinks: SweptSink[] = ctx.sinks.map((s) => ({ sink: s, removed: dead.flatMap((e) => (e.sink === s ? [e.id.seq] : [])) }));
    trace.emit({ kind: 'sweep', ...by, removed: sinks.flatMap((s) => s.removed), sinks });
  }
}

/** `{ entrySink }` for an entry of another sink than the sweeper's. gallery-only: the race's events. */
const entrySinkOf = (e: BuilderEntry, sweeper: RegistrySink): { entrySink?: number } => (e.sink === sweeper.sink ? {} : { entrySink: e.sink });

/** The live entry that sorts next after `after` (the first one when undefined): the race visits
 * entries in map order, reading the map at each visit. gallery-only. */
function nextLiveAfter(entries: Map<string, BuilderEntry>, after: BuilderEntry | undefined): BuilderEntry | undefined {
  let best: BuilderEntry | undefined;
  for (const e of entries.values()) {
    if (!e.live || (after !== undefined && compareIds(e.id, after.id) <= 0)) continue;
    if (best === undefined || compareIds(e.id, best.id) < 0) best = e;
  }
  return best;
}
