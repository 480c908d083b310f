import type { TraceEvent } from '../../vocab/index.ts';

/** Each worker's event kinds per (replica, worker, description), e.g. `0/1/2` → `open,push,finish-begin,…`. */
export function perWorkerKinds(events: readonly TraceEvent[]): Map<string, string> {
  const seqs = new Map<string, string[]>();
  for (const e of events) {
    if (!('worker' in e) || !('sharedId' in e)) continue;
    const k = `${e.replica}/${e.worker}/${e.sharedId}`;
    seqs.set(k, [...(seqs.get(k) ?? []), e.kind]);
  }
  return new Map([...seqs].map(([k, kinds]) => [k, kinds.join(',')]));
}
