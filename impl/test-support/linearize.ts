/**
 * A linearization of a trace recorded under real concurrency (test-only).
 *
 * The implementation emits each event right after its state change, in the same synchronous step
 * (impl/CONTEXT.md); for in-process state that makes the trace a linearization. An append's state
 * change, though, happens in a database: the trace holds its *response*, which can arrive after
 * another replica's response to a later commit. A refused append then reports the upper it read
 * (true when it read it) after an ok append that already moved the shard past it — the trace is in
 * response order, not in the shard's order, and a model replay of it diverges
 * ("append.result.current expected 2, got 1").
 *
 * Replicas interact only through the shard, so a valid order is any merge of the per-replica
 * sequences (each kept in its own order) in which every append fits the shard: an ok append with
 * lower L when the shard is at L (then at its upper), a refused one reporting current C when the
 * shard is at C. This merges greedily — always the earliest event of the trace that may go next; an
 * ok append waits while another replica's next append is a refusal at the current upper — which
 * finds such an order whenever one exists (refusals never move the upper, other events never touch
 * the shard). None exists if, e.g., two ok appends share a lower, or a refusal reports an upper the
 * shard never had: then it says where it got stuck.
 *
 * What this does not check: real-time order across replicas (a replica's append that *began* after
 * another's *ended* could still be ordered before it). Each replica's own order is kept exactly.
 */
import type { TraceEvent } from '../../vocab/index.ts';

export type Linearization =
  | { readonly ok: true; readonly trace: readonly TraceEvent[]; /** Events placed before one that preceded them in the trace. */ readonly moved: number }
  | { readonly ok: false; readonly why: string };

type Append = Extract<TraceEvent, { kind: 'append' }>;
const isAppend = (e: TraceEvent): e is Append => e.kind === 'append';

export function linearizeByShard(trace: readonly TraceEvent[], startUpper = 0): Linearization {
  const queues = new Map<number, { at: number; e: TraceEvent }[]>();
  for (const [at, e] of trace.entries()) {
    const q = queues.get(e.replica) ?? [];
    q.push({ at, e });
    queues.set(e.replica, q);
  }
  const heads = new Map<number, number>([...queues.keys()].map((r) => [r, 0]));
  const nextAppend = (r: number): Append | undefined => {
    const q = queues.get(r) ?? [];
    for (let i = heads.get(r) ?? 0; i < q.length; i++) {
      const e = q[i]?.e;
      if (e !== undefined && isAppend(e)) return e;
    }
    return undefined;
  };

  let upper = startUpper;
  let maxAt = -1;
  let moved = 0;
  const out: TraceEvent[] = [];
  while (out.length < trace.length) {
    let best: { r: number; at: number; e: TraceEvent } | undefined;
    for (const [r, q] of queues) {
      const head = q[heads.get(r) ?? 0];
      if (head === undefined || (best !== undefined && head.at > best.at)) continue;
      const e = head.e;
      const enabled = !isAppend(e)
        ? true
        : !e.result.ok
          ? e.result.current === upper
          : e.lower === upper && ![...queues.keys()].some((o) => {
              const a = o === r ? undefined : nextAppend(o);
              return a !== undefined && !a.result.ok && a.result.current === upper;
            });
      if (enabled) best = { r, ...head };
    }
    if (best === undefined) {
      const waiting = [...queues]
        .map(([r, q]) => q[heads.get(r) ?? 0])
        .filter((h) => h !== undefined)
        .map((h) => `#${h.at} ${JSON.stringify(h.e)}`);
      return { ok: false, why: `no order fits the shard at upper ${upper}; waiting: ${waiting.join('; ')}` };
    }
    heads.set(best.r, (heads.get(best.r) ?? 0) + 1);
    if (best.at < maxAt) moved += 1;
    maxAt = Math.max(maxAt, best.at);
    if (isAppend(best.e) && best.e.result.ok) upper = best.e.upper;
    out.push(best.e);
  }
  return { ok: true, trace: out, moved };
}
