/**
 * A SharedBatches registry over in-memory persist, for unit tests of the registry alone: impl/shared/
 * in-memory.ts under the pass-through scheduler unless a test gives its own.
 */
import type { BugName, PersistConfig, TraceEvent } from '../../vocab/index.ts';
import type { MemBlob } from '../persist/blob.ts';
import { passThroughScheduler, type Scheduler } from '../seams.ts';
import { inMemoryShared } from '../shared/in-memory.ts';

export function sharedHarness(
  opts: { scheduler?: Scheduler; bugs?: readonly BugName[]; persist?: Partial<PersistConfig>; blob?: MemBlob; shardId?: string } = {},
) {
  return inMemoryShared({ ...opts, scheduler: opts.scheduler ?? passThroughScheduler });
}

/** Events of one kind. */
export function ofKind<K extends TraceEvent['kind']>(events: readonly TraceEvent[], kind: K): Extract<TraceEvent, { kind: K }>[] {
  return events.filter((e): e is Extract<TraceEvent, { kind: K }> => e.kind === kind);
}
