/**
 * A hand-written workload for a test: the loads (loads[interval][worker]) and the variant, the rest at
 * the defaults the generators draw most (one replica and process, the threshold the load classes are
 * sized against, persist's defaults, lockstep pacing, no-data skip, the sync sink). A test names what
 * it depends on as overrides, so a reader sees what matters to it.
 */
import type { Variant } from '../../vocab/index.ts';
import { DEFAULT_BLOB_TARGET, DEFAULT_INLINE_TOTAL, DEFAULT_NO_DATA, DEFAULT_SINK, INLINE_SINGLE_MAX, THRESHOLD, type LoadClass, type Workload } from '../workload.ts';

export function workloadOf(variant: Variant, loads: readonly (readonly LoadClass[])[], overrides: Partial<Workload> = {}): Workload {
  const threshold = overrides.threshold ?? THRESHOLD;
  // a row of loads holds every worker of every process
  const processes = overrides.processes ?? 1;
  return {
    variant,
    replicas: 1,
    processes,
    workersPerProcess: (loads[0]?.length ?? processes) / processes,
    intervals: loads.length,
    asOf: 0,
    threshold,
    knob: [threshold],
    barrierFlags: [variant === 'barrier'],
    loads,
    blobTargetSize: DEFAULT_BLOB_TARGET,
    inlineSingleMaxBytes: INLINE_SINGLE_MAX,
    inlineTotalMaxBytes: DEFAULT_INLINE_TOTAL,
    pushChunkUpdates: 256,
    pacing: 'lockstep',
    noData: DEFAULT_NO_DATA,
    sink: DEFAULT_SINK,
    ...overrides,
  };
}
