/**
 * What one run reached, as a set of feature names: the coverage the steered strategy (steer.ts) steers
 * by, in the spirit of a coverage-guided fuzzer's edge map.
 * - `reach:<name>`: the orders, limits and paths of reach.ts and multi-sink.ts (`reachOf`);
 * - `saw:<name>`: the `sometimes` properties the run witnessed;
 * - `ev:<kind>/<detail>`: an event kind with the predicted outcome that tells its transitions apart (a
 *   stage's route, an open that created a builder, a last finish, a finish that received the batch, an
 *   append refused, a delete's reason, a fault's call and kind, …);
 * - `tr:<before>><event>`: that event after the previous event of the same actor (a worker, or a
 *   replica's own operators): which state of the actor's protocol the event fired in, read off the trace
 *   (the transitions of the model's machines, without replaying the run on them a second time);
 * - `n:<kind>:<bucket>`: how often a kind occurred, in buckets 1, 2, 3, 4–7, 8+ (a fuzzer's hit counts:
 *   a second supersede, a third restart);
 * - `pair:<a>+<b>`: two reach features in one run (rare combinations: a flag flip while a description is
 *   superseded, a bump in a run with a racing finish).
 */
import type { TraceEvent } from '../vocab/index.ts';
import type { RunReport } from './harness.ts';
import { reachOf } from './multi-sink.ts';
import type { Schedule } from './schedule.ts';
import { DEFAULT_BLOB_TARGET, DEFAULT_INLINE_TOTAL, INLINE_SINGLE_MAX, THRESHOLD, type Workload } from './workload.ts';

export function featuresOf(report: RunReport): Set<string> {
  const out = new Set<string>();
  const reach = [...reachOf(report)].sort();
  for (const r of reach) out.add(`reach:${r}`);
  for (let i = 0; i < reach.length; i++) for (let j = i + 1; j < reach.length; j++) out.add(`pair:${reach[i]}+${reach[j]}`);
  for (const w of report.witnessed) out.add(`saw:${w}`);
  const last = new Map<string, string>();
  const counts = new Map<string, number>();
  for (const e of report.trace) {
    const ev = eventFeature(e);
    out.add(`ev:${ev}`);
    const actor = actorOf(e);
    out.add(`tr:${last.get(actor) ?? 'start'}>${ev}`);
    last.set(actor, ev);
    counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  }
  for (const [kind, n] of counts) out.add(`n:${kind}:${bucket(n)}`);
  return out;
}

function bucket(n: number): string {
  return n <= 3 ? String(n) : n <= 7 ? '4-7' : '8+';
}

/** A worker's events by (sink, replica, worker); a replica's own (mint, append, faults) by (sink, replica). */
function actorOf(e: TraceEvent): string {
  const sink = e.sink ?? 0;
  return 'worker' in e && typeof e.worker === 'number' ? `${sink}/${e.replica}/w${e.worker}` : `${sink}/${e.replica}`;
}

/** The kind and the outcome that tells the transitions of one kind apart. */
function eventFeature(e: TraceEvent): string {
  switch (e.kind) {
    case 'stage':
      return `stage/${e.route}`;
    case 'open':
      return `open/${e.created ? 'new' : 'join'}${e.participants === null ? '' : '/participants'}`;
    case 'finish-begin':
      return `finish-begin/${e.last ? 'last' : 'not-last'}`;
    case 'finish-end':
      return `finish-end/${e.received === null ? 'nothing' : 'received'}`;
    case 'skip':
      return `skip/${e.early ? 'early' : 'late'}`;
    case 'timeout':
      return `timeout/${e.completes ? 'completes' : 'waits'}`;
    case 'mint':
      return `mint/flag-${e.desc.barrier ? 'on' : 'off'}${e.desc.maxBytes === 0 ? '/unshared' : ''}`;
    case 'hand':
      return `hand/${e.batches.length}`;
    case 'append':
      return `append/${e.result.ok ? 'ok' : 'refused'}`;
    case 'delete':
      return `delete/${e.reason}/${e.batches > 0 ? 'some' : 'none'}`;
    case 'sweep':
      return `sweep/${e.removed.length > 0 ? 'removed' : 'none'}`;
    case 'sweep-release':
    case 'drop':
      return `${e.kind}/${e.closed ? 'closed' : 'open'}`;
    case 'fault':
      return `fault/${e.op}/${e.fault}${e.by === undefined ? '' : '/supervisor'}`;
    case 'cleanup':
      return `cleanup/${e.deleted > 0 ? 'some' : 'none'}`;
    default:
      return e.kind;
  }
}

/**
 * What a drawn run asks for, before it runs: its shape, regimes, load classes, tunables at their edges,
 * the kind of orders and the faults. The steered strategy prefers, among a few fresh draws, the one whose
 * features and pairs of features (pairwise coverage of the configuration space) the runs so far had least.
 */
export function configFeaturesOf(workload: Workload, schedule: Schedule): string[] {
  const w = workload;
  const out = [
    `replicas ${w.replicas}`,
    `processes ${w.processes}`,
    `workers ${Math.min(w.workersPerProcess, 4)}`,
    `intervals ${Math.min(w.intervals, 4)}`,
    `pacing ${w.pacing}`,
    `no-data ${w.noData}`,
    `sink ${w.sink}`,
    `sinks ${1 + (w.sinkLoads?.length ?? 0)}`,
    schedule.pct === undefined ? 'choices' : `pct ${schedule.pct.changes.length + 1}`,
    `starved ${schedule.starve.length}`,
  ];
  if (w.asOf > 0) out.push('as-of ahead');
  if (w.idOrder === 'reversed') out.push('ids reversed');
  if (w.maxRuns !== undefined && w.maxRuns > 1) out.push('max runs');
  if (w.inlineSingleMaxBytes !== INLINE_SINGLE_MAX) out.push('inline single edge');
  if (w.inlineTotalMaxBytes !== DEFAULT_INLINE_TOTAL) out.push('inline total set');
  if (w.blobTargetSize !== DEFAULT_BLOB_TARGET) out.push('blob target set');
  if (w.pushChunkUpdates === 1) out.push('push chunks');
  const flags = new Set(w.barrierFlags.slice(0, w.intervals));
  out.push(flags.size === 2 ? 'flag flips' : `flag ${w.barrierFlags[0] === true ? 'on' : 'off'}`);
  for (const k of new Set(w.knob)) out.push(`knob ${k === THRESHOLD ? 'threshold' : k === 0 ? '0' : 'above'}`);
  for (const l of new Set(w.loads.flat())) out.push(`load ${l}`);
  for (const [k, x] of Object.entries(w.variantOptions ?? {})) out.push(`${k} ${x === 0 ? '0' : x === Number.POSITIVE_INFINITY ? 'inf' : 'default'}`);
  const f = schedule.faults;
  if (f !== undefined) {
    if (f.aborts.length > 0) out.push('aborts');
    if ((f.cas ?? []).length > 0) out.push('cas faults');
    if ((f.deletes ?? []).length > 0) out.push('delete faults');
    if (f.storage.some((c) => c !== 0)) out.push('storage faults');
  }
  return out;
}
