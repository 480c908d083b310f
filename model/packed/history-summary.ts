/**
 * The fault history in the form the properties read (the packed search's canonical form of it).
 *
 * An aborted incarnation's builder instances stay in the history (`faults.retiredBuilders`) so that the
 * view keeps showing them, and the abandon and leak counters grow with every abort. No event reads the
 * instances or the abandoned counts, events only move the leak units along (restart, cleanup), and the
 * properties read only this of them:
 * - of the retired instances: whether one was received more than once (at-most-one-receiver), whether
 *   one was closed for nobody (no-batch-to-nobody, no-leaked-parts), whether one was a second instance
 *   with data (sometimes-several-batches-for-one-id), how many batches they wrote (`batches.written`,
 *   no-leaked-parts, which compares it with `appended + deleted + abandoned` only), and — for
 *   barrier-one-shared-batch-per-group — the updates of the instances that vouch for a shared batch of
 *   their own incarnation's appends (an aborted incarnation appends no more: its appends are all in the
 *   history when its builders retire);
 * - of the counters: `finishes.begun − abandoned` (barrier-every-finish-returns compares it with
 *   `ended`), `batches.written − abandoned` (no-leaked-parts), and the leak units only as zero or not
 *   (leaks-collected reads `leakedAfterCleanup === 0`, and whether a cleanup collected any).
 *
 * `summarizeHistory` keeps exactly that: the retired instances that vouch for a batch (projected onto
 * what the property matches), one entry standing for the flags (its batch id is -1, so it vouches for
 * nothing; its updates are every desired update, a set every symmetry maps onto itself), the batches
 * the others wrote and the abandoned counts folded into `ownBatches` and `finishesBegun`, and the leak
 * units saturated at 1. What events read of the fault history (aborts, indeterminate commits, cleanups
 * owed, the final cleanup, referenced deletes, whether a replica leaked) is kept, and every change an
 * event makes to the rest commutes with the summary (additions, resets to 0, appended instances), so a
 * state and its summary have the same futures up to the summary and the same verdicts
 * (history-summary.deep.test.ts: on every prefix of random fault-world walks, and on views changed where
 * the summary says nothing matters, a retired instance's handle count throwing when read).
 *
 * The flags' entry takes the first retired instance's replica and incarnation and every desired update,
 * so renaming workers, update ids or replicas maps it to the renamed state's; the instances kept for
 * barrier-one-shared-batch-per-group are sorted by content, which a renaming may reorder (a state
 * the symmetry renamed is summarized again when its fault history next changes: equal, not canonical).
 */
import type { UpdateId } from '../../vocab/index.ts';
import { ascending, type AppendView, type BuilderView } from '../../spec/view.ts';
import type { ModelConfig } from '../config.ts';
import type { FaultHistory, History } from '../state.ts';
import type { Codec } from './layout.ts';

/** The batch id of the entry standing for the retired instances' flags: no description has it. */
export const FLAGS_ID = -1;

const sameIds = (a: readonly UpdateId[], b: readonly UpdateId[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);

/** Whether retired instance `b` has the updates of a shared batch of an append of its own incarnation
 * and id (barrier-one-shared-batch-per-group's match). */
function vouches(b: BuilderView, appends: readonly AppendView[]): boolean {
  if (b.sharedId === FLAGS_ID || b.updates.length === 0) return false;
  const mine = ascending(b.updates);
  return appends.some(
    (a) =>
      a.replica === b.replica &&
      a.incarnation === b.incarnation &&
      a.sharedId === b.sharedId &&
      a.barrier &&
      a.maxBytes !== 0 &&
      a.batches.some((x) => x.process === b.process && x.route === 'shared' && sameIds(ascending(x.updates), mine)),
  );
}

/** The part of the history the summary reads and rewrites. */
export type SummarizedPart = Pick<History, 'appends' | 'finishesBegun' | 'ownBatches' | 'faults'>;

/** What a view counts as written for an instance (model/view.ts). */
const written = (b: BuilderView): number => b.receivers + (b.deliveredToNobody ? 1 : 0);

const saturated = (n: number): number => Math.min(n, 1);

/**
 * The history with its fault part summarized (see above). `groups`: whether
 * barrier-one-shared-batch-per-group is judged (else no retired instance is kept for its updates).
 * Idempotent; the identity on a history without retired instances, abandoned counts or leaks.
 */
export function summarizeHistory<H extends SummarizedPart>(cfg: ModelConfig, groups: boolean, h: H): H {
  const f = h.faults;
  const retired = f.retiredBuilders;
  // the instances that vouch, each once, in the order of their content (so, where the property holds,
  // a function of the appends alone)
  const kept = new Map<string, BuilderView>();
  for (const b of retired) {
    if (!groups || !vouches(b, h.appends)) continue;
    const entry: BuilderView = { replica: b.replica, incarnation: b.incarnation, process: b.process, sharedId: b.sharedId, instance: 0, handles: 0, receivers: 0, updates: ascending(b.updates), deliveredToNobody: false };
    kept.set(JSON.stringify(entry), entry);
  }
  const many = retired.some((b) => b.receivers > 1);
  const nobody = retired.some((b) => b.deliveredToNobody);
  const several = retired.some((b) => b.instance > 0 && b.updates.length > 0);
  const first = retired[0];
  const flags: BuilderView[] =
    first !== undefined && (many || nobody || several)
      ? [
          {
            replica: first.replica,
            incarnation: first.incarnation,
            process: 0,
            sharedId: FLAGS_ID,
            instance: several ? 1 : 0,
            handles: 0,
            receivers: many ? 2 : 0,
            updates: nobody || several ? ascending(cfg.updates.map((u) => u.id)) : [],
            deliveredToNobody: nobody,
          },
        ]
      : [];
  const retiredBuilders = [...flags, ...[...kept.keys()].sort().map((k) => kept.get(k) as BuilderView)];
  // the batches the dropped instances wrote, less what aborts abandoned: written − abandoned is kept
  const moved = retired.reduce((n, b) => n + written(b), 0) - retiredBuilders.reduce((n, b) => n + written(b), 0);
  const faults: FaultHistory = {
    ...f,
    retiredBuilders,
    leakingByReplica: f.leakingByReplica.map(saturated),
    leaksExpired: saturated(f.leaksExpired),
    leaksCollected: saturated(f.leaksCollected),
    finishesAbandoned: 0,
    batchesAbandoned: 0,
  };
  return {
    ...h,
    finishesBegun: h.finishesBegun - f.finishesAbandoned,
    ownBatches: h.ownBatches + moved - f.batchesAbandoned,
    faults,
  };
}

/**
 * `summarizeHistory` on packed vectors (engine.ts applies it to every state whose fault history an
 * event changed): memoized by the ids of the four components it reads.
 */
export class PackedHistorySummary {
  private readonly memo = new Map<string, readonly [number, number, number]>();

  constructor(
    private readonly cfg: ModelConfig,
    private readonly groups: boolean,
    private readonly codec: Codec,
  ) {}

  /** Rewrites `vec`'s fault history, `finishesBegun` and `ownBatches` to their summary. */
  apply(vec: Int32Array): void {
    const L = this.codec.layout;
    const key = `${vec[L.faults]},${vec[L.appends]},${vec[L.finishesBegun]},${vec[L.ownBatches]}`;
    let out = this.memo.get(key);
    if (out === undefined) {
      // (finishesBegun and ownBatches are counters: a slot holds the number itself)
      const h = summarizeHistory(this.cfg, this.groups, {
        appends: this.codec.value(L.appends, vec[L.appends] as number) as History['appends'],
        finishesBegun: vec[L.finishesBegun] as number,
        ownBatches: vec[L.ownBatches] as number,
        faults: this.codec.value(L.faults, vec[L.faults] as number) as FaultHistory,
      });
      out = [this.codec.tables.faults.intern(h.faults), h.finishesBegun, h.ownBatches];
      this.memo.set(key, out);
    }
    vec[L.faults] = out[0];
    vec[L.finishesBegun] = out[1];
    vec[L.ownBatches] = out[2];
  }

  get size(): number {
    return this.memo.size;
  }
}
