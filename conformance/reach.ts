/**
 * The interesting orders a random schedule must actually reach, or passing says little. Each is
 * recognised on the implementation's trace, counted over a check, and asserted by the suite:
 * - `late-handle`: a handle opens a new builder for an id whose earlier builder already had its last
 *   finish (best-effort's overlap groups; the order the late-handle bug needs);
 * - `finishes-racing`: a second finish of the same builder begins before the first one returned;
 * - `sweep-races-finish`: the registry sweep runs while a handle of that process is between open and
 *   the end of its finish (the order the review bug needs);
 * - `replica-overtakes`: another replica appends between a replica's mint and its own append, so the
 *   latter meets an upper mismatch.
 */
import type { TraceEvent } from '../vocab/index.ts';

export const ORDERS = ['late-handle', 'finishes-racing', 'sweep-races-finish', 'replica-overtakes'] as const;
export type Order = (typeof ORDERS)[number];

export function ordersReached(trace: readonly TraceEvent[]): Set<Order> {
  const reached = new Set<Order>();
  const delivered = new Set<string>(); // builders (replica/process/id) whose last finish began
  const finishing = new Map<string, number>(); // builder → finishes begun and not returned
  const active = new Map<string, number>(); // replica/process → handles between open and finish-end
  for (const e of trace) {
    switch (e.kind) {
      case 'open': {
        const b = `${e.replica}/${e.process}/${e.sharedId}`;
        if (e.created && delivered.has(b)) reached.add('late-handle');
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
      case 'sweep-hold':
        if ((active.get(`${e.replica}/${e.process}`) ?? 0) > 0) reached.add('sweep-races-finish');
        break;
      case 'append':
        // Its description was minted when the shard's upper was its lower: a mismatch means another
        // replica appended in between.
        if (!e.result.ok) reached.add('replica-overtakes');
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
