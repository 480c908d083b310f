/** Trace events as readable lines (never raw JSON), for every output that prints a trace. */
import type { BatchSummary, PartsSummary, TraceEvent } from '../vocab/index.ts';

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
const parts = (p: PartsSummary): string => `${p.hollow} hollow + ${p.inline} inline`;
const ids = (xs: readonly number[]): string => `[${xs.join(', ')}]`;
const batch = (b: BatchSummary): string => `${ids(b.updates)} (${parts(b.parts)})`;
/** Who runs a sweep: the worker whose builder() call it is (another sink's: its process). */
const sweepBy = (e: { readonly process: number; readonly worker?: number }): string => (e.worker === undefined ? `p${e.process}` : `w${e.worker}`);

/** A storage key as the rest of the output spells it: no JSON quotes (`"w1-r1/part-2"` → `w1-r1/part-2`). */
const unquoted = (s: string): string => s.replace(/\\?"([^"\s]+)\\?"/g, '$1');

/**
 * A protocol event as one readable line: who (`r0`, then `s1` for MV sink 1 of several, then the worker
 * or the process), what, and the predicted outcome after `→`. The one printer of trace events: `sbkit
 * check`'s counterexamples, the model check's traces, the sequence diagrams' notes.
 */
export function formatEvent(e: TraceEvent): string {
  const r = `r${e.replica}${(e.sink ?? 0) > 0 ? ` s${e.sink}` : ''}`;
  switch (e.kind) {
    case 'frontier':
      return `${r} frontier: desired upper ${e.upper}`;
    case 'mint':
      return `${r} mint id=${e.desc.sharedId} [${e.desc.lower}, ${e.desc.upper}) append-worker=w${e.desc.appendWorker} knob=${e.desc.maxBytes} B${e.desc.barrier ? ' barrier' : ''}`;
    case 'poll':
      return `${r} poll: reads the shard's upper (id=${e.sharedId} may still be superseded)`;
    case 'stage':
      return `${r} w${e.worker} stage id=${e.sharedId} updates=${ids(e.updates)} (${e.bytes} B) → ${e.route}`;
    case 'open':
      return `${r} w${e.worker} open id=${e.sharedId}${e.participants === null ? '' : ` participants=${e.participants}`} → ${e.created ? 'new builder' : 'joins the live builder'}`;
    case 'push':
      return `${r} w${e.worker} push id=${e.sharedId} updates=${ids(e.updates)}`;
    case 'finish-begin':
      return `${r} w${e.worker} finish-begin id=${e.sharedId} → last=${e.last}`;
    case 'finish-end':
      return `${r} w${e.worker} finish-end id=${e.sharedId} → ${e.received === null ? 'no batch' : `receives ${batch(e.received)}`}`;
    case 'skip':
      return `${r} w${e.worker} skip id=${e.sharedId}${e.early ? ' → early' : ''}`;
    case 'timeout':
      return `${r} p${e.process} barrier timeout id=${e.sharedId} → ${e.completes ? 'completes with what it has' : 'completes when the last joined handle finishes'}`;
    case 'superseded':
      return `${r} w${e.worker} superseded id=${e.sharedId} (a newer description came first: not written)`;
    case 'own-batch':
      return `${r} w${e.worker} own-batch id=${e.sharedId} → ${batch(e.batch)}`;
    case 'hand':
      return `${r} w${e.worker} hand id=${e.sharedId} → ${e.batches.length === 0 ? 'no batch' : e.batches.map(batch).join(', ')}`;
    case 'append':
      return (
        `${r} append [${e.lower}, ${e.upper}) ${plural(e.batches, 'batch', 'batches')}, ${parts(e.parts)}, updates=${ids(e.updates)} → ` +
        (e.result.ok ? 'ok' : `upper mismatch (shard at ${e.result.current})`)
      );
    case 'delete':
      return `${r} delete lower=${e.lower} → ${plural(e.batches, 'batch', 'batches')} (${e.reason})`;
    case 'backpressure':
      return `${r} inline backpressure at lower=${e.lower}: ${e.inlineBytes} + ${e.adding} B ≥ the limit → flush ${plural(e.flushed, 'inline part', 'inline parts')} to blob, retry`;
    case 'bump':
      return `${r} bump the shard [${e.from}, ${e.to}) with an empty append (the shard was behind the lower)`;
    case 'sweep':
      return `${r} ${sweepBy(e)} sweep → removed ${ids(e.removed)}`;
    case 'sweep-hold':
      return `${r} ${sweepBy(e)} sweep-hold id=${e.sharedId}`;
    case 'sweep-release':
      return `${r} ${sweepBy(e)} sweep-release id=${e.sharedId} → closed=${e.closed}`;
    case 'drop':
      return `${r} w${e.worker} drop id=${e.sharedId} → closed=${e.closed}`;
    case 'fault':
      return `${r} fault ${e.op} → ${e.fault}${e.by === undefined ? '' : ` (seen by the ${e.by})`}`;
    case 'abort':
      return `${r} abort (${unquoted(e.reason)})`;
    case 'restart':
      return `${r} restart → lower ${e.lower}`;
    case 'cleanup':
      return `${r} cleanup → deleted ${e.deleted}`;
    default:
      return `${r} ${fieldsLine(e as unknown as Record<string, unknown>)}`;
  }
}

/** A value as a reader writes it: text as is, lists in brackets, records as `k v` pairs. */
function plain(v: unknown): string {
  if (typeof v === 'string') return unquoted(v);
  if (Array.isArray(v)) return `[${v.map(plain).join(', ')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k} ${plain(x)}`).join(', ')}}`;
  return String(v);
}

/** An event of a kind this printer has no words for (one added to the vocabulary later): its kind, then its fields. */
function fieldsLine(e: Record<string, unknown>): string {
  const fields = Object.entries(e)
    .filter(([k]) => !['kind', 'replica', 'process', 'worker', 'sink'].includes(k))
    .map(([k, v]) => `${k === 'sharedId' ? 'id' : k}=${plain(v)}`);
  return [String(e['kind']), ...fields].join(' ');
}

/** Who an event names: the replica, the MV sink when there are several, the worker (or the process running a sweep). */
export function eventActor(e: TraceEvent): string {
  const r = `r${e.replica}${(e.sink ?? 0) > 0 ? ` s${e.sink}` : ''}`;
  if (e.kind === 'sweep' || e.kind === 'sweep-hold' || e.kind === 'sweep-release') return `${r} ${sweepBy(e)}`;
  return 'worker' in e ? `${r} w${e.worker}` : r;
}

/** What happened, without who: `formatEvent` after its actor. */
export function eventText(e: TraceEvent): string {
  const full = formatEvent(e);
  const who = [eventActor(e), `r${e.replica}${(e.sink ?? 0) > 0 ? ` s${e.sink}` : ''}`].find((p) => full.startsWith(`${p} `)) ?? '';
  return full.slice(who.length).trimStart();
}
