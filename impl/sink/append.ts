/**
 * The append operator of one worker: for each description it is the append worker of, collect the
 * hands of all P·W workers, then one compare_and_append(batches, lower, upper).
 *
 * - ok: lower = upper; the description ends.
 * - mismatch with current < lower (the shard is behind the sink's as-of): bump the shard with an empty
 *   append from current to lower (`bump`, when it committed), then retry.
 * - any other mismatch (another replica wrote): lower = current; delete the unappended batches
 *   (`delete`, reason mismatch); nothing is retried — the next description rewrites what is missing.
 * - a description superseded before its append began (mint.ts): its lower already passed, so
 *   what was handed for it is deleted instead of appended (`delete`, reason stale, when any batch was
 *   handed); lower and the live description are the newer one's and stay untouched.
 *
 * The append worker takes its descriptions in mint order and waits for every worker's hand of one
 * before the next (a worker hands every description, superseded ones with nothing), so no hand arrives
 * for a description it already passed.
 */
import type { Description } from '../../vocab/index.ts';
import type { Batch } from '../persist/batch.ts';
import type { CompareAndAppendResult } from '../persist/shard-writer.ts';
import { NO_PARTS, addParts, ascending } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import { at, type Hand, type ReplicaState } from './replica-state.ts';
import { isStorageFailure } from '../errors.ts';

export async function runAppender(r: ReplicaState, worker: number): Promise<void> {
  const queue = at(r.appendQueues, worker);
  const inbox = at(r.inboxes, worker);
  for (;;) {
    const desc = await queue.recv();
    if (desc === undefined) return;
    const hands: Hand[] = [];
    for (;;) {
      hands.push(...inbox.takeWhere((h) => h.desc.sharedId === desc.sharedId));
      if (hands.length >= r.workers) break;
      await inbox.changed();
    }
    await appendDescription(r, r.where(worker), desc, hands.flatMap((h) => h.batches));
  }
}

async function appendDescription(r: ReplicaState, where: Where, desc: Description, batches: readonly Batch[]): Promise<void> {
  const { scheduler, trace, metrics, bugs } = r.deps;
  const { replica } = r.settings;
  await pointAt(scheduler, 'append', where);
  // The mint's poll reads the shard (mint.ts): the append begins after the read answered (the poll may
  // have superseded this description meanwhile), so no read outlives the description it polled for.
  while (r.polling) {
    await r.pollDone.register();
    await pointAt(scheduler, 'append', where);
  }
  // BUG (stale-hand-appended): a superseded description is appended like the live one.
  if (r.superseded === desc && !bugs.has('stale-hand-appended')) {
    await deleteStale(r, desc, batches);
    return;
  }
  r.appendStarted = true;
  const result = await appendWithBump(r, desc, batches);
  // if/else on the result's kind rather than ts-pattern's `match` (the append is a conformance hot path).
  const parts = result.kind === 'ok' ? result.parts : batches.reduce((sum, b) => addParts(sum, b.partsSummary()), NO_PARTS);
  const event = {
    kind: 'append',
    replica,
    lower: desc.lower,
    upper: desc.upper,
    batches: batches.length,
    parts,
    runs: batches.reduce((n, b) => n + b.runs, 0),
    updates: ascending(batches.flatMap((b) => b.updateIds)),
  } as const;

  if (result.kind === 'ok') {
    const c = metrics.c;
    if (batches.length > 0) c.appends += 1;
    else c.emptyAppends += 1;
    c.partsHollow += parts.hollow;
    c.partsInline += parts.inline;
    c.batchesAppended += batches.length;
    c.updatesAppended += event.updates.length;
    c.runsAppended += event.runs;
    trace.emit({ ...event, result: { ok: true } });
    r.deps.shardMoved.notifyWaiters();
    r.setLower(desc.upper);
  } else {
    const { current } = result;
    metrics.c.mismatches += 1;
    trace.emit({ ...event, result: { ok: false, current } });
    r.setLower(current);
    // BUG (append-keeps-batches-on-mismatch): the batches are dropped, their blobs leak.
    if (batches.length > 0 && !bugs.has('append-keeps-batches-on-mismatch')) {
      await pointAt(scheduler, 'append.delete', where);
      if (bugs.has('mismatch-delete-error-swallowed')) await deleteBestEffort(batches);
      else for (const b of batches) await b.delete();
      metrics.c.batchesDeleted += batches.length;
      trace.emit({ kind: 'delete', replica, lower: desc.lower, batches: batches.length, reason: 'mismatch' });
    }
  }
  r.endDescription();
}

async function appendWithBump(r: ReplicaState, desc: Description, batches: readonly Batch[]): Promise<CompareAndAppendResult> {
  const { shard, metrics } = r.deps;
  for (;;) {
    metrics.c.appendAttempts += 1;
    const result = await shard.compareAndAppend(batches, desc.lower, desc.upper);
    if (result.kind === 'ok' || result.current >= desc.lower) return result;
    // The shard is behind our lower: advance it with an empty append, then retry. Either we or a
    // concurrent writer moved it; the retry decides.
    metrics.c.appendAttempts += 1;
    const bumped = await shard.compareAndAppend([], result.current, desc.lower);
    if (bumped.kind === 'ok') {
      metrics.c.bumps += 1;
      r.deps.trace.emit({ kind: 'bump', replica: r.settings.replica, from: result.current, to: desc.lower });
      r.deps.shardMoved.notifyWaiters();
    }
  }
}

/** Deletes what was handed for a superseded description; then a newer one may be superseded. */
async function deleteStale(r: ReplicaState, desc: Description, batches: readonly Batch[]): Promise<void> {
  if (batches.length > 0) {
    for (const b of batches) await b.delete();
    r.deps.metrics.c.batchesDeleted += batches.length;
    r.deps.trace.emit({ kind: 'delete', replica: r.settings.replica, lower: desc.lower, batches: batches.length, reason: 'stale' });
  }
  r.superseded = null;
  r.changed.notifyWaiters();
}

/** BUG (mismatch-delete-error-swallowed), gallery-only: one attempt per blob; a storage error is "logged" and swallowed,
 * so the batch's remaining blobs leak from a live writer. */
async function deleteBestEffort(batches: readonly Batch[]): Promise<void> {
  for (const b of batches) {
    try {
      await b.delete({ retries: false });
    } catch (e) {
      if (!isStorageFailure(e)) throw e;
    }
  }
}
