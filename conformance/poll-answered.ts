/**
 * A poll's read is acted on (vocab/PROTOCOL.md **poll**): the poll is one step of the model — the mint's
 * read of the shard and the supersede it decides — and the impl keeps it one (the live description's
 * append waits for the read, `ReplicaState.polling`; the mint polls only while its window is open, asked
 * again after its point). So when the shard's upper lay strictly inside the polled description's window
 * (its lower < upper < the desired frontier) at the poll, and nothing moved the shard before the
 * replica's next step for that description, the read found it there and the mint superseded the
 * description. A description appended instead was polled for a read whose answer went unused: a read the
 * protocol did not need, and a supersede it skipped.
 *
 * Judged from the trace alone, on runs without faults: in the fault world a compare-and-set whose answer
 * was lost has applied before its event is emitted (the retry's refresh tells), so the trace's upper may
 * lag what a read sees.
 */
import type { TraceEvent } from '../vocab/index.ts';

interface Polled {
  readonly sharedId: number;
  readonly lower: number;
  readonly desired: number;
  /** The shard's upper at the poll, as the trace shows it. */
  readonly upper: number;
  /** Some writer moved the shard after the poll: its read may have seen either upper. */
  moved: boolean;
}

/** Why each unanswered poll of a run without faults is one (empty when every poll was acted on). */
export function unansweredPolls(trace: readonly TraceEvent[]): string[] {
  const upper = new Map<number, number>();
  const desired = new Map<string, number>();
  const live = new Map<string, { readonly sharedId: number; readonly lower: number }>();
  const polled = new Map<string, Polled>();
  const wrong: string[] = [];
  const moved = (sink: number, to: number): void => {
    upper.set(sink, to);
    for (const [k, p] of polled) if (k.startsWith(`${sink}/`)) p.moved = true;
  };
  for (const e of trace) {
    const sink = e.sink ?? 0;
    if (!('replica' in e)) continue;
    const key = `${sink}/${e.replica}`;
    switch (e.kind) {
      case 'frontier':
        desired.set(key, e.upper);
        break;
      case 'mint':
        live.set(key, { sharedId: e.desc.sharedId, lower: e.desc.lower });
        polled.delete(key);
        break;
      case 'poll': {
        const d = live.get(key);
        if (d !== undefined && d.sharedId === e.sharedId) polled.set(key, { sharedId: d.sharedId, lower: d.lower, desired: desired.get(key) ?? 0, upper: upper.get(sink) ?? 0, moved: false });
        break;
      }
      case 'append': {
        const p = polled.get(key);
        if (p !== undefined && p.lower === e.lower) {
          polled.delete(key);
          if (!p.moved && p.lower < p.upper && p.upper < p.desired) {
            wrong.push(
              `replica ${e.replica}${sink === 0 ? '' : ` (sink ${sink})`} polled the shard for description ${p.sharedId} [${p.lower}, ${p.desired}) while the shard's upper was ${p.upper}, and nothing moved it; it then appended the description instead of superseding it: the read's answer went unused`,
            );
          }
        }
        if (e.result.ok) moved(sink, e.upper);
        break;
      }
      case 'bump':
        moved(sink, e.to);
        break;
      case 'abort':
      case 'restart':
        polled.delete(key);
        break;
      default:
        break;
    }
  }
  return wrong;
}
