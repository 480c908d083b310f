/**
 * A run's setup, written once: from a drawn workload, the implementation's run configuration (recording
 * its trace) and the model's configuration that judges it. The harness, the cost check and the
 * configuration streams all start from here.
 */
import type { BugName, TraceEvent } from '../vocab/index.ts';
import { offMeta } from '../vocab/variants/off.ts';
import type { FaultPlan, Scheduler } from '../impl/seams.ts';
import { MemBlob } from '../impl/persist/blob.ts';
import { MemConsensus } from '../impl/persist/consensus.ts';
import type { RunConfig } from '../impl/run-config.ts';
import { encodedUpdateSize, partitionWorker, type Update } from '../impl/update.ts';
import type { ModelConfig } from '../model/config.ts';
import { nonDefaults } from './run-defaults.ts';
import { knobAt, materialize, materializeSinks, persistOf, persistOverrides, sinksOf, type Workload } from './workload.ts';

/** The fault world's bounds for replaying a trace: as many of each as the trace has. */
const REPLAY_FAULTS = { aborts: Number.POSITIVE_INFINITY, indeterminate: Number.POSITIVE_INFINITY, cleanup: true } as const;

/** The model's configuration for a workload: the same updates, shape, tunables and knobs. */
export function modelConfigOf(w: Workload, updates: readonly Update[] = materialize(w), faults = false): ModelConfig {
  const workers = w.processes * w.workersPerProcess;
  return {
    ...(faults ? { faults: REPLAY_FAULTS } : {}),
    // The async sink (v1) never shares: to the model it is the variant off.
    variant: w.sink === 'v1' ? offMeta.name : w.variant,
    ...(w.sink === 'v1' || w.variantOptions === undefined ? {} : { variantOptions: w.variantOptions }),
    replicas: w.replicas,
    processes: w.processes,
    workersPerProcess: w.workersPerProcess,
    intervals: w.intervals,
    asOf: w.asOf,
    updates: updates.map((u) => ({ id: u.id, time: u.time, worker: partitionWorker(u.key, workers), size: encodedUpdateSize(u) })),
    persist: persistOf(w),
    maxBytesChoices: [...new Set(w.knob)],
    // The model computes what every mint reads and how every push is chunked, from the workload.
    knobs: { maxBytesByLower: w.knob, barrierByDesired: w.barrierFlags },
    pushChunkUpdates: w.pushChunkUpdates,
    noData: w.noData,
  };
}

/** The implementation's run configuration for `workload`, recording its trace. */
export function runConfigOf(
  workload: Workload,
  scheduler: Scheduler,
  bug?: BugName,
  faults?: FaultPlan,
): { config: RunConfig; trace: TraceEvent[]; updates: readonly Update[]; updatesBySink: readonly (readonly Update[])[] } {
  const updates = materialize(workload);
  const updatesBySink = sinksOf(workload) === 1 ? [updates] : materializeSinks(workload, updates);
  const trace: TraceEvent[] = [];
  const config: RunConfig = {
    variant: workload.variant,
    ...(workload.variantOptions === undefined ? {} : { variantOptions: workload.variantOptions }),
    replicas: workload.replicas,
    processes: workload.processes,
    workersPerProcess: workload.workersPerProcess,
    intervals: workload.intervals,
    updates,
    maxBytes: ({ lower }) => knobAt(workload, lower),
    // (the fields and tunables that differ from the defaults the model states: the rest are the
    // implementation's own, judged against the model's: run-defaults.ts)
    ...nonDefaults(workload),
    persist: persistOverrides(workload),
    bugs: bug === undefined ? [] : [bug],
    scheduler,
    observer: { event: (e) => trace.push(e) },
    ...(faults === undefined ? {} : { faults }),
    // Stores of our own, so that the metrics can be held against what reached them (metrics-check.ts).
    blob: new MemBlob(),
    consensus: new MemConsensus(),
    ...(updatesBySink.length === 1 ? {} : { sinks: updatesBySink.length, sinkUpdates: updatesBySink.slice(1) }),
  };
  return { config, trace, updates, updatesBySink };
}

/** The model's configuration of every sink of a run (index = sink), from its updates by sink: computed
 * once per run, for the replay and for the cost prediction alike. */
export function modelConfigsOf(w: Workload, updatesBySink: readonly (readonly Update[])[], faults: boolean): ModelConfig[] {
  return updatesBySink.map((own) => modelConfigOf(w, own, faults));
}
