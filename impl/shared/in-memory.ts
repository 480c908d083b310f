/**
 * A `SharedBatches` registry of its own over in-memory persist (one replica, one process): the objects
 * wired as the sink wires them, with a trace that keeps every event. What the misuse check drives
 * (conformance/misuse/) and what the registry's unit tests build (impl/test-support/harness.ts).
 */
import type { BugName, PersistConfig, TraceEvent } from '../../vocab/index.ts';
import { BugSwitches } from '../bugs.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { TaskGroup } from '../runtime/task-group.ts';
import { Trace } from '../runtime/trace.ts';
import type { Scheduler } from '../seams.ts';
import { SharedBatches } from './shared-batches.ts';

export function inMemoryShared(opts: { scheduler: Scheduler; bugs?: readonly BugName[]; persist?: Partial<PersistConfig>; blob?: MemBlob; shardId?: string }) {
  const scheduler = opts.scheduler;
  const metrics = new MetricsRecorder();
  const blob = opts.blob ?? new MemBlob();
  const tasks = new TaskGroup();
  const events: TraceEvent[] = [];
  const trace = new Trace({ event: (e) => events.push(e) });
  const config = resolvePersistConfig(opts.persist);
  const client = new BlobClient(blob, scheduler, metrics, 'r0', trace);
  const shardId = opts.shardId ?? 'test-shard';
  const writer = { config, blob: client, metrics, shardId };
  const registry = new SharedBatches({
    shard: shardId,
    replica: 0,
    process: 0,
    writer,
    scheduler,
    trace,
    bugs: new BugSwitches(opts.bugs ?? []),
    spawn: tasks.spawn,
  });
  return { scheduler, metrics, blob, client, tasks, events, trace, writer, registry, config, shardId };
}
