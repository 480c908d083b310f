/**
 * A linearization of a trace recorded under real concurrency: the trace put in the shard's order.
 *
 * The implementation emits each event right after its state change, in the same synchronous step
 * (impl/CONTEXT.md); for in-process state that makes the trace a linearization. An append's state
 * change, though, happens in a database: the trace holds its *response*, which can arrive after
 * another replica's response to a later commit. A refused append then reports the upper it read
 * (true when it read it) after an ok append that already moved the shard past it — the trace is in
 * response order, not in the shard's order, and a model replay of it diverges
 * ("append.result.current expected 2, got 1"). Traces joined from several processes (the crash test)
 * have no common order at all but their timestamps.
 *
 * Replicas interact only through the shard, so a valid order is any merge of the per-replica
 * sequences (each kept in its own order) in which every event that touches the shard fits it:
 * - *movers* take the shard from L to U: an ok append with lower L, and an `indeterminate-applied`
 *   compare-and-set of a replica's append (the shard took its description [L, U) at that step; the
 *   append event that follows, if the replica lives to learn it, changes nothing more);
 * - *readers* saw the shard at C: a refused append reporting current C, and a `restart` at lower C
 *   (the new incarnation read the shard's upper);
 * - every other event never touches the shard.
 * This merges greedily — always the earliest event of the trace that may go next: a reader only when
 * the shard is at its C, a mover only when the shard is at its L and no other replica's next shard
 * event is a reader at the current upper (which must come first) — and finds such an order whenever
 * one exists (readers never move the upper, movers form one chain). None exists if, e.g., two ok
 * appends share a lower, or a refusal reports an upper the shard never had: then it says where it got
 * stuck.
 *
 * What this does not check: real-time order across replicas (a replica's append that *began* after
 * another's *ended* could still be ordered before it). Each replica's own order is kept exactly.
 */
import type { Description, TraceEvent } from '../vocab/index.ts';

export type Linearization =
  | { readonly ok: true; readonly trace: readonly TraceEvent[]; /** Events placed before one that preceded them in the trace. */ readonly moved: number }
  | { readonly ok: false; readonly why: string };

/** How an event touches the shard. */
type Touch = { readonly kind: 'none' } | { readonly kind: 'reads'; readonly at: number } | { readonly kind: 'moves'; readonly from: number; readonly to: number };

const NONE: Touch = { kind: 'none' };

interface Entry {
  readonly at: number;
  readonly e: TraceEvent;
  readonly touch: Touch;
}

/**
 * What each event of one replica's sequence does to the shard. SUBTLE: only a compare-and-set fault of
 * the append — the replica is up and its live description has no append yet — can have committed it;
 * the writer registry's compare-and-sets (a claim while the replica is down, a retirement after its
 * last append) fail as `consensus.cas` too and touch no shard state.
 */
function classify(events: readonly { at: number; e: TraceEvent }[]): Entry[] {
  let up = true;
  let live: Description | null = null;
  let committed: number | null = null;
  return events.map(({ at, e }): Entry => {
    let touch: Touch = NONE;
    switch (e.kind) {
      case 'mint':
        // A mint while a description is live supersedes it: it read the shard's upper, its new lower.
        if (live !== null) touch = { kind: 'reads', at: e.desc.lower };
        live = e.desc;
        break;
      case 'append':
        if (!e.result.ok) touch = { kind: 'reads', at: e.result.current };
        else if (committed !== e.lower) touch = { kind: 'moves', from: e.lower, to: e.upper };
        committed = null;
        live = null;
        break;
      case 'fault':
        if (e.op === 'consensus.cas' && e.fault === 'indeterminate-applied' && up && live !== null && committed === null) {
          touch = { kind: 'moves', from: live.lower, to: live.upper };
          committed = live.lower;
        }
        break;
      case 'abort':
        up = false;
        live = null;
        committed = null;
        break;
      case 'restart':
        up = true;
        touch = { kind: 'reads', at: e.lower };
        break;
      default:
        break;
    }
    return { at, e, touch };
  });
}

export function linearizeByShard(trace: readonly TraceEvent[], startUpper = 0): Linearization {
  const byReplica = new Map<number, { at: number; e: TraceEvent }[]>();
  for (const [at, e] of trace.entries()) {
    const q = byReplica.get(e.replica) ?? [];
    q.push({ at, e });
    byReplica.set(e.replica, q);
  }
  const queues = new Map([...byReplica].map(([r, q]) => [r, classify(q)]));
  const heads = new Map<number, number>([...queues.keys()].map((r) => [r, 0]));
  /** The next event at or after the head of replica r that touches the shard. */
  const nextTouch = (r: number): Touch => {
    const q = queues.get(r) ?? [];
    for (let i = heads.get(r) ?? 0; i < q.length; i++) {
      const t = q[i]?.touch;
      if (t !== undefined && t.kind !== 'none') return t;
    }
    return NONE;
  };

  let upper = startUpper;
  let maxAt = -1;
  let moved = 0;
  const out: TraceEvent[] = [];
  while (out.length < trace.length) {
    let best: { r: number; entry: Entry } | undefined;
    for (const [r, q] of queues) {
      const head = q[heads.get(r) ?? 0];
      if (head === undefined || (best !== undefined && head.at > best.entry.at)) continue;
      const t = head.touch;
      const enabled =
        t.kind === 'none'
          ? true
          : t.kind === 'reads'
            ? t.at === upper
            : t.from === upper && ![...queues.keys()].some((o) => {
                if (o === r) return false;
                const next = nextTouch(o);
                return next.kind === 'reads' && next.at === upper;
              });
      if (enabled) best = { r, entry: head };
    }
    if (best === undefined) {
      const waiting = [...queues]
        .map(([r, q]) => q[heads.get(r) ?? 0])
        .filter((h) => h !== undefined)
        .map((h) => `#${h.at} ${JSON.stringify(h.e)}`);
      return { ok: false, why: `no order fits the shard at upper ${upper}; waiting: ${waiting.join('; ')}` };
    }
    heads.set(best.r, (heads.get(best.r) ?? 0) + 1);
    if (best.entry.at < maxAt) moved += 1;
    maxAt = Math.max(maxAt, best.entry.at);
    if (best.entry.touch.kind === 'moves') upper = best.entry.touch.to;
    out.push(best.entry.e);
  }
  return { ok: true, trace: out, moved };
}
