/**
 * The write operator of one worker: per description, stage → route → write → hand.
 *
 * Per worker and description the trace is, in order (PROTOCOL.md): stage; then
 *   shared: open, push+, finish-begin, finish-end      own: [skip], own-batch      none: [skip]
 * and finally hand. `skip` is reported only under the barrier with sharing on.
 */
import type { Description, WorkerRef } from '../../vocab/index.ts';
import type { Batch } from '../persist/batch.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { pointAt } from '../runtime/where.ts';
import { payloadBytes, type Update } from '../update.ts';
import { at, type ReplicaState } from './replica-state.ts';
import { unreachable } from '../errors.ts';
import { decideRoute, sharingOn } from './route.ts';

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
  const { variant } = r.settings;
  const ref: WorkerRef = { replica: r.settings.replica, process: r.processOf(worker), worker };

  await pointAt(scheduler, 'write.stage', ref);
  const staged = r.staged(worker, desc.lower, desc.upper);
  const bytes = payloadBytes(staged);
  const route = decideRoute(variant, desc.maxBytes, staged.length, bytes, bugs);
  trace.emit({ kind: 'stage', ...ref, sharedId: desc.sharedId, updates: staged.map((u) => u.id), bytes, route });

  // Under the barrier every worker of the process reports exactly once: push+finish, or skip.
  const skip = async (): Promise<void> => {
    if (variant === 'barrier' && sharingOn(variant, desc.maxBytes)) {
      await at(r.registries, ref.process).noteSkip(desc.sharedId, r.settings.workersPerProcess, worker);
    }
  };
  const batches = await writeRoute();
  async function writeRoute(): Promise<Batch[]> {
    // A switch, not ts-pattern's `match`: this runs per worker and description (a conformance hot path).
    switch (route) {
      case 'shared':
        return writeShared(r, worker, desc, staged);
      case 'own':
        await skip();
        return [await writeOwn(r, ref, desc, staged)];
      case 'none':
        await skip();
        return [];
      default:
        return unreachable(route);
    }
  }

  await pointAt(scheduler, 'write.hand', ref);
  trace.emit({ kind: 'hand', ...ref, sharedId: desc.sharedId, batches: batches.map((b) => b.summary()) });
  at(r.inboxes, desc.appendWorker).send({ desc, worker, batches });
}

async function writeShared(r: ReplicaState, worker: number, desc: Description, staged: readonly Update[]): Promise<Batch[]> {
  const registry = at(r.registries, r.processOf(worker));
  const participants = r.settings.variant === 'barrier' ? r.settings.workersPerProcess : undefined;
  const handle = await registry.builder(desc.sharedId, desc, { worker, participants });
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
  const builder = new BatchBuilder(r.deps.writer, desc.lower, desc.upper, ref);
  await builder.add(staged);
  const batch = await builder.finish();
  await pointAt(r.deps.scheduler, 'write.own', ref);
  r.deps.trace.emit({ kind: 'own-batch', ...ref, sharedId: desc.sharedId, batch: batch.summary() });
  return batch;
}
