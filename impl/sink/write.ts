/**
 * The write operator of one worker: per description, stage → route → write → hand.
 *
 * Per worker and description the trace is, in order (PROTOCOL.md): stage; then
 *   shared: open, push+, finish-begin, finish-end      own: [skip], own-batch      none: [skip]
 *   empty (no data, noData = finish): open, finish-begin, finish-end
 * and finally hand. `skip` is reported only under the barrier with sharing on.
 *
 * Supersede: a worker that, at its stage step, sees that a newer description was minted
 * (the mint sequence moved past this one's successor) does not write this one: `superseded`, then
 * [skip] (barrier, sharing on), then a hand of nothing.
 */
import type { Description, Route, WorkerRef } from '../../vocab/index.ts';
import type { Batch } from '../persist/batch.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { pointAt } from '../runtime/where.ts';
import { payloadBytes, type Update } from '../update.ts';
import { batchId, type SharedBatchId } from '../shared/batch-id.ts';
import { at, type ReplicaState } from './replica-state.ts';
import { unreachable } from '../errors.ts';
import { decideRoute, readBarrier, sharingOn } from './route.ts';

export async function runWriter(r: ReplicaState, worker: number): Promise<void> {
  const queue = at(r.writeQueues, worker);
  for (;;) {
    const desc = await queue.recv();
    if (desc === undefined) return;
    await writeDescription(r, worker, desc);
  }
}

async function writeDescription(r: ReplicaState, worker: number, desc: Description): Promise<void> {
  const { scheduler, trace, bugs } = r.deps;
  const ref: WorkerRef = { replica: r.settings.replica, process: r.processOf(worker), worker };

  await pointAt(scheduler, 'write.stage', ref);
  if (r.seq > desc.sharedId + 1) {
    trace.emit({ kind: 'superseded', ...ref, sharedId: desc.sharedId });
    await reportSkip(r, ref, desc, barrierOf(r, desc));
    await pointAt(scheduler, 'write.hand', ref);
    trace.emit({ kind: 'hand', ...ref, sharedId: desc.sharedId, batches: [] });
    at(r.inboxes, desc.appendWorker).send({ desc, worker, batches: [] });
    return;
  }
  const staged = r.staged(worker, desc.lower, desc.upper);
  const bytes = payloadBytes(staged);
  const route = decideRoute(r.settings.policy, desc.maxBytes, staged.length, bytes, bugs, r.settings.noData);
  trace.emit({ kind: 'stage', ...ref, sharedId: desc.sharedId, updates: staged.map((u) => u.id), bytes, route });
  const batches = await writeRoute(r, ref, desc, staged, route, barrierOf(r, desc));
  await pointAt(scheduler, 'write.hand', ref);
  trace.emit({ kind: 'hand', ...ref, sharedId: desc.sharedId, batches: batches.map((b) => b.summary()) });
  at(r.inboxes, desc.appendWorker).send({ desc, worker, batches });
}

/** Writes the worker's staged updates as its route says: into the shared batch, or its own. */
async function writeRoute(r: ReplicaState, ref: WorkerRef, desc: Description, staged: readonly Update[], route: Route, barrier: boolean): Promise<Batch[]> {
  // A switch, not ts-pattern's `match`: this runs per worker and description (a conformance hot path).
  switch (route) {
    case 'shared':
      return writeShared(r, ref.worker, desc, staged, barrier);
    case 'empty': {
      // Nothing staged: the handle is opened and finished without a push; its finish returns what the
      // builder delivers to it (the shared batch if this handle held the last reference or is the deliverer).
      const received = await writeShared(r, ref.worker, desc, staged, barrier);
      // BUG (empty-finish-hands-nothing): "no data, nothing to hand" drops a batch the finish delivered.
      return r.deps.bugs.has('empty-finish-hands-nothing') ? [] : received;
    }
    case 'own':
      await reportSkip(r, ref, desc, barrier);
      return [await writeOwn(r, ref, desc, staged)];
    case 'none':
      await reportSkip(r, ref, desc, barrier);
      return [];
    default:
      return unreachable(route);
  }
}

/** Under the barrier every worker of the process reports exactly once: push+finish, or skip. */
async function reportSkip(r: ReplicaState, ref: WorkerRef, desc: Description, barrier: boolean): Promise<void> {
  if (barrier && sharingOn(r.settings.policy, desc.maxBytes)) {
    const { participants } = r.settings.policy.barrier(r.settings.workersPerProcess);
    await at(r.registries, ref.process).noteSkip(batchIdOf(r, desc), participants, ref.worker, r.registrySink);
  }
}

/** The registry id of a description: its sink's namespace (the shard) and its mint sequence number, unique
 * across the sinks of a process like Materialize's Uuid. BUG (batch-ids-collide-across-sinks): the sequence
 * number alone, which every sink's mint counts from 0. */
function batchIdOf(r: ReplicaState, desc: Description): SharedBatchId {
  return batchId(desc.sharedId, r.deps.bugs.has('batch-ids-collide-across-sinks') ? '' : r.registrySink.shard);
}

/** The barrier flag this worker acts on: the description's, read once at mint. */
function barrierOf(r: ReplicaState, desc: Description): boolean {
  if (!r.deps.bugs.has('barrier-flag-read-per-worker')) return desc.barrier;
  // BUG (barrier-flag-read-per-worker): the flag is read now, as this worker writes; after a flip the
  // workers of one description disagree.
  const { replica, policy } = r.settings;
  return policy.sharing && readBarrier(r.settings.barrier, { replica, lower: desc.lower, seq: desc.sharedId, desired: r.desired });
}

async function writeShared(r: ReplicaState, worker: number, desc: Description, staged: readonly Update[], barrier: boolean): Promise<Batch[]> {
  const registry = at(r.registries, r.processOf(worker));
  const spec = barrier ? r.settings.policy.barrier(r.settings.workersPerProcess) : undefined;
  const handle = await registry.builder(batchIdOf(r, desc), desc, { worker, participants: spec?.participants, deadline: spec?.deadline, sink: r.registrySink });
  const chunk = r.settings.pushChunkUpdates;
  for (let i = 0; i < staged.length; i += chunk) await handle.push(staged.slice(i, i + chunk));
  if (r.deps.bugs.has('drop-without-finish') && worker === desc.appendWorker) {
    // BUG (drop-without-finish): the append worker collects every batch from the hands anyway, so
    // its own finish() looked redundant; dropping the handle skips the last-reference hand-off.
    await handle.drop();
    return [];
  }
  const batch = await handle.finish();
  return batch === null ? [] : [batch];
}

async function writeOwn(r: ReplicaState, ref: WorkerRef, desc: Description, staged: readonly Update[]): Promise<Batch> {
  // Own batches honour persist_batch_max_runs (Materialize's `WriteHandle::builder`). BUG
  // (own-batch-ignores-max-runs): built like the shared builder, with its hard-coded `None`.
  const maxRuns = r.deps.bugs.has('own-batch-ignores-max-runs') ? null : undefined;
  const builder = new BatchBuilder(r.deps.writer, desc.lower, desc.upper, ref, maxRuns);
  await builder.add(staged);
  const batch = await builder.finish();
  await pointAt(r.deps.scheduler, 'write.own', ref);
  r.deps.trace.emit({ kind: 'own-batch', ...ref, sharedId: desc.sharedId, batch: batch.summary() });
  return batch;
}
