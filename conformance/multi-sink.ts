/**
 * Judging a run of several MV sinks (Workload.sinkLoads; vocab/PROTOCOL.md "Several MV sinks"), keeping
 * the model modular: the trace is split by sink, and each sink's events are judged as a one-sink run —
 * properties on its view, the audit of its shard, refinement on its own model instance (with
 * `sharedRegistry`, so another sink's sweep is an environment step there) — and the process-level
 * registry checker (registry-check.ts) checks on the whole trace what no one sink's model can: what
 * started each sweep and that it covered every sink.
 *
 * Splitting: an event goes to the sink it names (`sink`, absent = 0) with that field dropped; a sweep of
 * a registry serving several sinks goes to each of them, with what it removed of that sink's entries —
 * naming its worker only in the sweeper's own sink (an environment step in the others); a hold or release
 * of another sink's entry (`entrySink`) goes to that sink as an environment step.
 */
import type { TraceEvent } from '../vocab/index.ts';
import type { RunResult } from '../impl/run.ts';
import type { Update } from '../impl/update.ts';
import type { ModelConfig } from '../model/config.ts';
import type { DriveOutcome } from './choice-scheduler.ts';
import type { Failure, RunReport } from './harness.ts';
import { limitsReached, ordersReached } from './reach.ts';
import { checkRegistry, type RegistryVerdict } from './registry-check.ts';
import { materialize, materializeSinks, sinksOf, type Workload } from './workload.ts';

/** One sink's part of a run's trace: its events as a one-sink run would emit them, and where each
 * came from in the whole trace. */
export interface SinkTrace {
  readonly events: TraceEvent[];
  readonly at: number[];
}

export function splitBySink(trace: readonly TraceEvent[], sinks: number): SinkTrace[] {
  // The judge splits a run's trace, then its reach counters split the same trace again: the last split
  // is kept for that one reuse (its parts are read, never changed; dropped then, so that no run's trace
  // outlives its run here).
  const last = lastSplit;
  lastSplit = undefined;
  if (last !== undefined && last.trace === trace && last.length === trace.length && last.sinks === sinks) return last.parts;
  const parts = split(trace, sinks);
  lastSplit = { trace, length: trace.length, sinks, parts };
  return parts;
}

let lastSplit: { readonly trace: readonly TraceEvent[]; readonly length: number; readonly sinks: number; readonly parts: SinkTrace[] } | undefined;

function split(trace: readonly TraceEvent[], sinks: number): SinkTrace[] {
  const out: SinkTrace[] = Array.from({ length: sinks }, () => ({ events: [], at: [] }));
  const put = (s: number, e: TraceEvent, at: number): void => {
    const part = out[s];
    if (part === undefined) throw new RangeError(`trace event #${at} names sink ${s}; the run has ${sinks}`);
    part.events.push(e);
    part.at.push(at);
  };
  for (let at = 0; at < trace.length; at++) {
    const e = trace[at] as TraceEvent;
    const sweeper = e.sink ?? 0;
    if (e.kind === 'sweep' && e.sinks !== undefined) {
      // The sweeper's sink sees its worker's sweep; every other sink an environment step (no worker).
      for (const { sink, removed } of e.sinks) {
        put(sink, { kind: 'sweep', replica: e.replica, process: e.process, ...(sink === sweeper && e.worker !== undefined ? { worker: e.worker } : {}), removed }, at);
      }
      continue;
    }
    if ((e.kind === 'sweep-hold' || e.kind === 'sweep-release') && e.entrySink !== undefined) {
      // A visit of another sink's entry: that sink's environment step.
      const { sink: _sweeperSink, entrySink, worker: _worker, ...rest } = e;
      put(entrySink, rest as TraceEvent, at);
      continue;
    }
    if (e.sink === undefined) {
      put(0, e, at);
      continue;
    }
    const { sink, ...rest } = e;
    put(sink, rest as TraceEvent, at);
  }
  return out;
}

/** Sink `s`'s view of a run's outcome: its shard's audit, upper and leaks in place of sink 0's. */
export function sinkOutcome(outcome: DriveOutcome<RunResult>, s: number): DriveOutcome<RunResult> {
  if (outcome.kind !== 'settled' || s === 0) return outcome;
  const mine = outcome.value.bySink[s];
  if (mine === undefined) return outcome;
  return { ...outcome, value: { ...outcome.value, audit: mine.audit, upper: mine.upper, leaks: mine.leaks } };
}

type Judged = Pick<RunReport, 'workload' | 'trace' | 'outcome' | 'failures' | 'witnessed'>;

/**
 * The replicas whose process went down without sink `sink`: an abort is the replica's, and it names each
 * hosted sink that had not sealed (the supervisor emits those `abort` events one after another); a sink
 * left out was sealed, and its incarnation's tasks stopped with the process all the same. Such a sink
 * emits nothing more of that replica — its remaining `frontier` events are inputs its dead process never
 * delivers (vocab/PROTOCOL.md "Several MV sinks", Faults).
 */
export function downWithoutSink(trace: readonly TraceEvent[], sink: number): Set<number> {
  return downWithoutEachSink(trace, sink + 1)[sink] as Set<number>;
}

/** downWithoutSink for every sink of `sinks`, in one pass over the trace. */
function downWithoutEachSink(trace: readonly TraceEvent[], sinks: number): Set<number>[] {
  const down = Array.from({ length: sinks }, () => new Set<number>());
  for (let i = 0; i < trace.length; ) {
    const e = trace[i] as TraceEvent;
    if (e.kind !== 'abort') {
      i++;
      continue;
    }
    // The abort events the supervisor emitted together for this replica: the sinks they name.
    const named = new Set<number>();
    for (; i < trace.length; i++) {
      const g = trace[i] as TraceEvent;
      if (g.kind !== 'abort' || g.replica !== e.replica) break;
      named.add(g.sink ?? 0);
    }
    down.forEach((d, s) => {
      if (!named.has(s)) d.add(e.replica);
    });
  }
  return down;
}

/**
 * Judges a run of several sinks: `judgeOne(sink, events, outcome, downWithout)` is the harness's one-sink
 * judge (`downWithout`: downWithoutSink); its failures name their sink (sink s > 0's liveness and crash
 * failures are sink 0's too, so they are reported once) and point into the whole trace.
 */
export function judgeSinks(
  w: Workload,
  trace: readonly TraceEvent[],
  outcome: DriveOutcome<RunResult>,
  judgeOne: (sink: number, events: readonly TraceEvent[], outcome: DriveOutcome<RunResult>, downWithout: ReadonlySet<number>) => Judged,
): Judged & { readonly registry: RegistryVerdict } {
  const sinks = sinksOf(w);
  const parts = splitBySink(trace, sinks);
  const failures: Failure[] = [];
  const witnessed = new Set<string>();
  const down = downWithoutEachSink(trace, sinks);
  for (const [s, part] of parts.entries()) {
    const judged = judgeOne(s, part.events, sinkOutcome(outcome, s), down[s] ?? new Set());
    for (const f of judged.failures) {
      if (s > 0 && (f.kind === 'liveness' || f.kind === 'impl-error')) continue;
      // Event numbers in the whole trace, as the report prints it.
      const why = f.why.replace(/\bevent #(\d+)/g, (_, i: string) => `event #${part.at[Number(i)] ?? trace.length}`);
      failures.push({ ...f, why: `sink ${s}: ${why}`, ...(f.at === undefined ? {} : { at: part.at[f.at] ?? trace.length }) });
    }
    for (const name of judged.witnessed) witnessed.add(name);
  }
  const registry = checkRegistry(trace, { replicas: w.replicas, processes: w.processes, sinks }, { settled: outcome.kind === 'settled' });
  if (!registry.ok) failures.push({ kind: 'refinement', check: 'registry-as-predicted', at: registry.at, why: `event #${registry.at}: ${registry.why}` });
  return { workload: w, trace, outcome: outcome.kind, failures, witnessed: [...witnessed], registry };
}

/** Reach counters of several sinks sharing registries (counted by `sbkit check`, asserted by tests):
 * - `two-sinks`: the run had more than one sink;
 * - `cross-sink-removed`: a sweep one sink's builder() call ran removed another sink's entry;
 * - `cross-sink-sweep`: a sweep one sink's builder() call ran held another sink's entry while
 *   that sink's last finish began, so its release dropped the last reference (the review's race across
 *   sinks, sweep-upgrade-race only: the batch goes to nobody). */
export const SINK_REACH = ['two-sinks', 'cross-sink-removed', 'cross-sink-sweep'] as const;

type Reachable = Pick<RunReport, 'trace' | 'workload'> & { readonly registry?: RegistryVerdict; readonly casRacesLost?: number; readonly timersIdle?: number };

/** Every order, limit and sink counter a run reached (several sinks: over each sink's own trace). Once
 * per report: `sbkit check` tallies a run's counters and the steering reads them as features (steer-features.ts). */
export function reachOf(report: Reachable): ReadonlySet<string> {
  let reached = reachedBy.get(report);
  if (reached === undefined) reachedBy.set(report, (reached = countReached(report)));
  return reached;
}

const reachedBy = new WeakMap<Reachable, ReadonlySet<string>>();

function countReached(report: Reachable): Set<string> {
  const sinks = sinksOf(report.workload);
  const reached = new Set<string>();
  if ((report.casRacesLost ?? 0) > 0) reached.add('cas-race-lost');
  if ((report.timersIdle ?? 0) > 0) reached.add('timeout-after-complete');
  const parts = sinks === 1 ? [{ events: report.trace }] : splitBySink(report.trace, sinks);
  for (const part of parts) {
    for (const o of ordersReached(part.events)) reached.add(o);
    for (const l of limitsReached(part.events, report.workload)) reached.add(l);
  }
  if (sinks > 1) {
    reached.add('two-sinks');
    for (const sw of report.registry?.sweeps ?? []) {
      if (sw.removedFrom.some((s) => s !== sw.startedBy)) reached.add('cross-sink-removed');
      if (sw.orphanedOf.some((s) => s !== sw.startedBy)) reached.add('cross-sink-sweep');
    }
  }
  return reached;
}

/** What to replay on the model for a run: its trace on the workload's config (one sink), or each sink's
 * events on its own config with `sharedRegistry` (several); `configOf` is the harness's modelConfigOf. */
export function modelReplays(
  w: Workload,
  trace: readonly TraceEvent[],
  configOf: (w: Workload, updates: readonly Update[]) => ModelConfig,
): { readonly cfg: ModelConfig; readonly events: readonly TraceEvent[] }[] {
  const sinks = sinksOf(w);
  if (sinks === 1) return [{ cfg: configOf(w, materialize(w)), events: trace }];
  const updates = materializeSinks(w);
  return splitBySink(trace, sinks).map((part, s) => ({ cfg: { ...configOf(w, updates[s] ?? []), sharedRegistry: true }, events: part.events }));
}
