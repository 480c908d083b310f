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
  // The names are built once and looked up after (a run has about seventy events, most of them alike,
  // and building and hashing three fresh strings per event was most of this function's cost).
  const last = new Map<number, string>();
  const counts = new Map<string, number>();
  for (const e of report.trace) {
    const ev = eventFeature(e);
    const names = namesOf(ev);
    out.add(names.ev);
    const actor = actorOf(e);
    const before = last.get(actor) ?? 'start';
    let tr = names.after.get(before);
    if (tr === undefined) names.after.set(before, (tr = `tr:${before}>${ev}`));
    out.add(tr);
    last.set(actor, ev);
    counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  }
  for (const [kind, n] of counts) out.add(`n:${kind}:${bucket(n)}`);
  return out;
}

/** An event feature's names: `ev:<feature>`, and `tr:<before>><feature>` by the actor's previous one. */
interface FeatureNames {
  readonly ev: string;
  readonly after: Map<string, string>;
}
const NAMES = new Map<string, FeatureNames>();
function namesOf(ev: string): FeatureNames {
  let n = NAMES.get(ev);
  if (n === undefined) NAMES.set(ev, (n = { ev: `ev:${ev}`, after: new Map() }));
  return n;
}

function bucket(n: number): string {
  return n <= 3 ? String(n) : n <= 7 ? '4-7' : '8+';
}

/** A worker's events by (sink, replica, worker); a replica's own (mint, append, faults) by (sink,
 * replica), as one number: worker + 1 (0 for the replica's own) in the low 16 bits. */
function actorOf(e: TraceEvent): number {
  const worker = 'worker' in e && typeof e.worker === 'number' ? e.worker + 1 : 0;
  return ((e.sink ?? 0) * 65536 + e.replica) * 65536 + worker;
}

/** `kind/<detail>` for a detail that is a word (a route, a reason), built once per word. */
const DETAILED = new Map<string, Map<string, string>>();
function detailed(kind: string, detail: string): string {
  let byDetail = DETAILED.get(kind);
  if (byDetail === undefined) DETAILED.set(kind, (byDetail = new Map()));
  let name = byDetail.get(detail);
  if (name === undefined) byDetail.set(detail, (name = `${kind}/${detail}`));
  return name;
}

/** The kind and the outcome that tells the transitions of one kind apart. */
function eventFeature(e: TraceEvent): string {
  switch (e.kind) {
    case 'stage':
      return detailed('stage', e.route);
    case 'open':
      return e.created ? (e.participants === null ? 'open/new' : 'open/new/participants') : e.participants === null ? 'open/join' : 'open/join/participants';
    case 'finish-begin':
      return e.last ? 'finish-begin/last' : 'finish-begin/not-last';
    case 'finish-end':
      return e.received === null ? 'finish-end/nothing' : 'finish-end/received';
    case 'skip':
      return e.early ? 'skip/early' : 'skip/late';
    case 'timeout':
      return e.completes ? 'timeout/completes' : 'timeout/waits';
    case 'mint':
      return e.desc.barrier ? (e.desc.maxBytes === 0 ? 'mint/flag-on/unshared' : 'mint/flag-on') : e.desc.maxBytes === 0 ? 'mint/flag-off/unshared' : 'mint/flag-off';
    case 'hand':
      return detailed('hand', String(e.batches.length));
    case 'append':
      return e.result.ok ? 'append/ok' : 'append/refused';
    case 'delete':
      return detailed('delete', e.batches > 0 ? detailed(e.reason, 'some') : detailed(e.reason, 'none'));
    case 'sweep':
      return e.removed.length > 0 ? 'sweep/removed' : 'sweep/none';
    case 'sweep-release':
    case 'drop':
      return detailed(e.kind, e.closed ? 'closed' : 'open');
    case 'fault':
      return detailed('fault', detailed(e.op, e.by === undefined ? e.fault : detailed(e.fault, 'supervisor')));
    case 'cleanup':
      return e.deleted > 0 ? 'cleanup/some' : 'cleanup/none';
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
