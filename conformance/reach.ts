/**
 * The interesting orders a random schedule must actually reach, or passing says little. Each is
 * recognised on the implementation's trace, counted over a check, and asserted by the suite:
 * - `late-handle`: a handle opens a new builder for an id whose earlier builder already had its last
 *   finish (best-effort's overlap groups; the order the late-handle bug needs);
 * - `finishes-racing`: a second finish of the same builder begins before the first one returned;
 * - `sweep-races-finish`: the registry sweep runs while a handle of that process is between open and
 *   the end of its finish (the order the review bug needs);
 * - `replica-overtakes`: another replica appends between a replica's mint and its own append, so the
 *   latter meets an upper mismatch;
 * - `reopen-after-sweep`: a late worker stages and opens an id whose dead entry a sweep of its process
 *   had removed (a new instance of an id the registry no longer holds);
 * - `sweep-races-reopen`: a sweep removes an id's dead entry while a worker of that process has staged the
 *   id for sharing and not opened it yet, and that worker then opens it (its builder() call races the
 *   sweep: it may wait for the sweeper's lock).
 *
 * And the persist limits at their exact boundaries, and the protocol's rarer paths (`limitsReached`):
 * - `inline-single−1` / `=` / `+1`: a part whose payload is one below, exactly at, one above
 *   inline_writes_single_max_bytes (inline, hollow, hollow);
 * - `blob-target=`: a part cut exactly at blob_target_size (a small target: the default is never reached);
 * - `inline-total−1` / `=` / `+1`: an append that brought the shard's inline bytes to one below the
 *   limit (accepted), and backpressure with state + append exactly at, and one above, the limit;
 * - `threshold=`: a worker whose staged bytes equal the sharing threshold (it must not share);
 * - `backpressure-2-replicas`: inline backpressure in a run of two replicas (the refusal and the retry
 *   are two steps; another replica may append in between);
 * - `bump`: the shard was behind a sink's lower (as-of ahead of it) and the append bumped it;
 * - `barrier-flag-flip`: one replica minted descriptions with the barrier flag on and off;
 *   `flag-flip-in-flight`: a worker staged to share a description whose flag differs from the flag at
 *   the replica's desired frontier then (the flag flipped while the description was in flight: its
 *   workers must act on the minted flag);
 * - `empty-finish`: a worker with no data opened a handle and finished it empty (no-data policy
 *   `finish`, route `empty`); `empty-finish-receives`: such a finish returned the shared batch (it held
 *   the last reference, or was the barrier's deliverer) and the worker handed it. Neither exists in `off`;
 * - `supersede`: a replica minted while its live description was not appended yet (another replica moved
 *   the shard past its lower: the mint followed the persist frontier); `skip-on-supersede`: a worker
 *   that had not staged a description when a newer one came skipped it (`superseded`);
 *   `supersede-skip-reported`: under the barrier it reported that as a skip (barrier only);
 *   `stale-deleted`: the append worker deleted batches handed for a superseded description;
 *   `mismatch-deleted`: an append refused on an upper mismatch (another replica appended first) deleted
 *   the batches it carried;
 * - `ids-across-times`: a worker staged updates of several intervals whose ids are out of time order
 *   (workload `idOrder: 'reversed'`), so the staged order (by id) is not the time order: the sort by id
 *   was needed. Stryker found the gap: with ids always ascending in time, dropping the sort changed nothing.
 * - a barrier with a deadline (vocab/PROTOCOL.md "Barrier with a deadline"): `timeout-fired` (its timer
 *   fired while it waited), `late-worker-after-timeout` (a worker opened after it completed at its
 *   deadline: a best-effort handle, `participants` null, on a description minted with the barrier),
 *   `skip-after-timeout` (a worker reported a skip after that: it changes nothing), and
 *   `timeout-after-complete` (a timer fired after its barrier completed: no event shows it — counted
 *   from the scheduler log, in multi-sink.ts `reachOf`);
 * - `cas-race-lost`: a compare-and-append whose compare-and-set lost its race (another writer committed
 *   between the read it was built from and its send) and re-evaluated on fresh state. Recognised from
 *   the run's metrics (no trace event shows it), in multi-sink.ts `reachOf`. Stryker found the gap: while
 *   read and send were one step, a consensus whose compare-and-set always succeeded passed the check.
 */
import type { TraceEvent, Variant } from '../vocab/index.ts';
import { barrierHasDeadline, sharesAtAll } from '../impl/variants/index.ts';
import type { Workload } from './workload.ts';
import { DEFAULT_BLOB_TARGET, barrierAt, materializeSinks } from './workload.ts';

export const ORDERS = ['late-handle', 'finishes-racing', 'sweep-races-finish', 'replica-overtakes', 'reopen-after-sweep', 'sweep-races-reopen'] as const;
export type Order = (typeof ORDERS)[number];

export const LIMITS = [
  'inline-single−1',
  'inline-single=',
  'inline-single+1',
  'blob-target=',
  'inline-total−1',
  'inline-total=',
  'inline-total+1',
  'threshold=',
  'backpressure-2-replicas',
  'bump',
  'barrier-flag-flip',
  'flag-flip-in-flight',
  'empty-finish',
  'empty-finish-receives',
  'supersede',
  'skip-on-supersede',
  'supersede-skip-reported',
  'stale-deleted',
  'mismatch-deleted',
  'ids-across-times',
  'cas-race-lost',
  'timeout-fired',
  'timeout-after-complete',
  'late-worker-after-timeout',
  'skip-after-timeout',
] as const;

/** The paths only a barrier with a deadline takes. */
export const DEADLINE_PATHS: readonly Limit[] = ['timeout-fired', 'timeout-after-complete', 'late-worker-after-timeout', 'skip-after-timeout'];

/** Counted, steered towards (steer.ts), and not required: too rare for a default budget of every strategy. */
export const UNREQUIRED: readonly Limit[] = ['flag-flip-in-flight'];
export type Limit = (typeof LIMITS)[number];

/** Which persist limits a run hit exactly (or at ±1), and which rare paths it took. */
export function limitsReached(trace: readonly TraceEvent[], w: Workload): Set<Limit> {
  const reached = new Set<Limit>();
  const single = w.inlineSingleMaxBytes;
  const total = w.inlineTotalMaxBytes;
  const part = (bytes: number): void => {
    if (bytes === single - 1) reached.add('inline-single−1');
    else if (bytes === single) reached.add('inline-single=');
    else if (bytes === single + 1) reached.add('inline-single+1');
    if (bytes === w.blobTargetSize && w.blobTargetSize !== DEFAULT_BLOB_TARGET) reached.add('blob-target=');
  };
  /** Per replica: the inline payload bytes of what its workers handed for the live description. */
  const handedInline = new Map<number, number>();
  const flags = new Map<number, Set<boolean>>();
  const knob = new Map<number, number>(); // replica → the live description's knob
  const empty = new Set<string>(); // replica/worker of workers whose live description routed empty
  const live = new Map<number, number>(); // replica → its live description's shared id, until appended
  const skipping = new Set<string>(); // replica/worker/id of workers that skip a superseded description
  let inlineState = 0;
  let timeOf: Map<number, number> | undefined; // update id → its time (only for ids out of time order)
  const barrierDesc = new Set<string>(); // replica/id of descriptions minted with the barrier
  const reports = new Map<string, number>(); // replica/process/id → its barrier's reports (finishes and skips)
  const late = new Set<string>(); // replica/process/id of barriers that completed at their deadline
  const entry = (e: { replica: number; process: number; sharedId: number }): string => `${e.replica}/${e.process}/${e.sharedId}`;
  const desired = new Map<number, number>(); // replica → its desired frontier
  const minted = new Map<string, boolean>(); // replica/id → the flag minted on the description
  for (const e of trace) {
    switch (e.kind) {
      case 'frontier':
        desired.set(e.replica, e.upper);
        break;
      case 'mint': {
        minted.set(`${e.replica}/${e.desc.sharedId}`, e.desc.barrier);
        if (live.has(e.replica)) reached.add('supersede');
        if (e.desc.barrier) barrierDesc.add(`${e.replica}/${e.desc.sharedId}`);
        live.set(e.replica, e.desc.sharedId);
        handedInline.set(e.replica, 0);
        knob.set(e.replica, e.desc.maxBytes);
        const seen = flags.get(e.replica) ?? new Set<boolean>();
        seen.add(e.desc.barrier);
        flags.set(e.replica, seen);
        if (seen.size === 2 && e.desc.maxBytes > 0) reached.add('barrier-flag-flip');
        break;
      }
      case 'stage':
        if (e.route !== 'none' && e.bytes === knob.get(e.replica)) reached.add('threshold=');
        if ((e.route === 'shared' || e.route === 'empty') && minted.get(`${e.replica}/${e.sharedId}`) !== barrierAt(w, desired.get(e.replica) ?? 0)) reached.add('flag-flip-in-flight');
        if (w.idOrder === 'reversed' && e.updates.length > 1) {
          timeOf ??= new Map(materializeSinks(w).flatMap((us) => us.map((u) => [u.id, u.time] as const)));
          const times = e.updates.map((id) => timeOf?.get(id) ?? 0);
          if (times.some((t, i) => i > 0 && t < (times[i - 1] as number))) reached.add('ids-across-times');
        }
        if (e.route === 'empty') {
          reached.add('empty-finish');
          empty.add(`${e.replica}/${e.worker}`);
        } else empty.delete(`${e.replica}/${e.worker}`);
        break;
      case 'own-batch':
        e.batch.partBytes.forEach(part);
        break;
      case 'timeout':
        reached.add('timeout-fired');
        if (e.completes) late.add(entry(e));
        break;
      case 'open':
        if (e.participants === null && barrierDesc.has(`${e.replica}/${e.sharedId}`)) reached.add('late-worker-after-timeout');
        break;
      case 'finish-begin': {
        const k = entry(e);
        const n = (reports.get(k) ?? 0) + 1;
        reports.set(k, n);
        // the last report of a barrier that did not hear from every participant: completed at its deadline
        if (e.last && barrierDesc.has(`${e.replica}/${e.sharedId}`) && !late.has(k) && n < w.workersPerProcess) late.add(k);
        break;
      }
      case 'finish-end':
        e.received?.partBytes.forEach(part);
        if (e.received !== null && empty.has(`${e.replica}/${e.worker}`)) reached.add('empty-finish-receives');
        break;
      case 'superseded':
        reached.add('skip-on-supersede');
        skipping.add(`${e.replica}/${e.worker}/${e.sharedId}`);
        break;
      case 'skip':
        if (skipping.has(`${e.replica}/${e.worker}/${e.sharedId}`)) reached.add('supersede-skip-reported');
        if (late.has(entry(e))) reached.add('skip-after-timeout');
        else reports.set(entry(e), (reports.get(entry(e)) ?? 0) + 1);
        break;
      case 'delete':
        if (e.reason === 'stale' && e.batches > 0) reached.add('stale-deleted');
        if (e.reason === 'mismatch' && e.batches > 0) reached.add('mismatch-deleted');
        break;
      case 'abort':
        live.delete(e.replica);
        // a new incarnation mints from 0 again: its ids are new entries
        for (const m of [barrierDesc, late]) for (const k of [...m]) if (k.startsWith(`${e.replica}/`)) m.delete(k);
        for (const k of [...reports.keys()]) if (k.startsWith(`${e.replica}/`)) reports.delete(k);
        break;
      case 'hand': {
        if (e.sharedId !== live.get(e.replica)) break; // a superseded description's: deleted, never appended
        let inline = 0;
        for (const b of e.batches) for (const bytes of b.partBytes) if (bytes < single) inline += bytes;
        handedInline.set(e.replica, (handedInline.get(e.replica) ?? 0) + inline);
        break;
      }
      case 'backpressure': {
        const sum = e.inlineBytes + e.adding;
        if (sum === total) reached.add('inline-total=');
        else if (sum === total + 1) reached.add('inline-total+1');
        if (w.replicas > 1) reached.add('backpressure-2-replicas');
        handedInline.set(e.replica, 0); // flushed: the append adds no inline bytes
        break;
      }
      case 'append':
        live.delete(e.replica);
        if (e.result.ok && e.parts.inline > 0) {
          inlineState += handedInline.get(e.replica) ?? 0;
          if (inlineState === total - 1) reached.add('inline-total−1');
        }
        break;
      case 'bump':
        reached.add('bump');
        break;
      default:
        break;
    }
  }
  return reached;
}
export function ordersReached(trace: readonly TraceEvent[]): Set<Order> {
  const reached = new Set<Order>();
  const delivered = new Set<string>(); // builders (replica/process/id) whose last finish began
  const finishing = new Map<string, number>(); // builder → finishes begun and not returned
  const active = new Map<string, number>(); // replica/process → handles between open and finish-end
  const swept = new Set<string>(); // builders (replica/process/id) a sweep removed
  const staging = new Set<string>(); // replica/process/id/worker: staged to share, not opened yet
  const racing = new Set<string>(); // those of them a sweep removed the id under
  for (const e of trace) {
    switch (e.kind) {
      case 'stage':
        if (e.route === 'shared' || e.route === 'empty') staging.add(`${e.replica}/${e.process}/${e.sharedId}/${e.worker}`);
        break;
      case 'open': {
        const b = `${e.replica}/${e.process}/${e.sharedId}`;
        if (e.created && delivered.has(b)) reached.add('late-handle');
        if (e.created && racing.has(`${b}/${e.worker}`)) reached.add('sweep-races-reopen');
        else if (e.created && swept.has(b)) reached.add('reopen-after-sweep');
        staging.delete(`${b}/${e.worker}`);
        racing.delete(`${b}/${e.worker}`);
        bump(active, `${e.replica}/${e.process}`, 1);
        break;
      }
      case 'finish-begin': {
        const b = `${e.replica}/${e.process}/${e.sharedId}`;
        if ((finishing.get(b) ?? 0) > 0) reached.add('finishes-racing');
        bump(finishing, b, 1);
        if (e.last) delivered.add(b);
        break;
      }
      case 'finish-end':
        bump(finishing, `${e.replica}/${e.process}/${e.sharedId}`, -1);
        bump(active, `${e.replica}/${e.process}`, -1);
        break;
      case 'sweep':
        for (const id of e.removed) {
          const b = `${e.replica}/${e.process}/${id}`;
          swept.add(b);
          for (const s of staging) if (s.startsWith(`${b}/`)) racing.add(s);
        }
        if ((active.get(`${e.replica}/${e.process}`) ?? 0) > 0) reached.add('sweep-races-finish');
        break;
      case 'sweep-hold':
        if ((active.get(`${e.replica}/${e.process}`) ?? 0) > 0) reached.add('sweep-races-finish');
        break;
      case 'append':
        // Its description was minted when the shard's upper was its lower: a mismatch means another
        // replica appended in between.
        if (!e.result.ok) reached.add('replica-overtakes');
        break;
      case 'abort':
        // A restart starts with fresh registries.
        for (const set of [swept, staging, racing]) for (const k of [...set]) if (k.startsWith(`${e.replica}/`)) set.delete(k);
        break;
      default:
        break;
    }
  }
  return reached;
}

function bump(m: Map<string, number>, k: string, by: number): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

/**
 * The orders and paths a check of a default-size budget (DEFAULT_RUNS per variant) must take, or it
 * fails as vacuous: an implementation that never takes one of them still refines the model (the model
 * allows a supersede, a bump, a late handle; it never requires one), so only their absence shows that
 * the implementation lost the path. Stryker found this: seven mutants of impl/sink/mint.ts that make
 * the mint never supersede passed every check.
 *
 * Chosen from measurement (500 runs per variant, seeds 1–6, plain and with faults): each path here was
 * reached at least 6 times per seed and about 12 times or more on average, so a clean implementation
 * misses one with probability about e^-12 per path (Poisson). The rarest combinations are drawn on
 * purpose (rare.ts: `supersede-skip-reported`, `reopen-after-sweep`), so that they are too.
 */
export function requiredReach(variant: Variant): readonly string[] {
  // Where nothing is shared (impl/variants/): no flag to flip, no empty finish, no barrier skip.
  const sharing = sharesAtAll(variant);
  const rare: readonly Limit[] = sharing ? [] : ['barrier-flag-flip', 'empty-finish', 'empty-finish-receives', 'supersede-skip-reported'];
  // A barrier's deadline's paths, where the variant's barrier has one (with its default options).
  const deadline = barrierHasDeadline(variant) ? [] : DEADLINE_PATHS;
  const limits = LIMITS.filter((l) => !rare.includes(l) && !deadline.includes(l) && !UNREQUIRED.includes(l));
  // multi-sink.ts SINK_REACH: two sinks in a quarter of the runs; a sweep one sink's builder() call ran
  // removing another sink's entry, wherever both sinks have entries.
  if (!sharing) return ['replica-overtakes', ...limits, 'two-sinks'];
  return [...ORDERS, ...limits, 'two-sinks', 'cross-sink-removed'];
}
