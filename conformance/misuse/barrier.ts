/** A barrier: conflicting participants and modes, skips before the state exists, over-reports. */
import type { Batch } from '../../impl/persist/batch.ts';
import { BarrierState } from '../../impl/shared/barrier-state.ts';
import type { SharedBatchHandle } from '../../impl/shared/handle.ts';
import { inMemoryShared } from '../../impl/shared/in-memory.ts';
import { OK, refused, Judge } from './judge.ts';
import { sortedIds, show, chunk } from './draw.ts';
import { programScheduler } from './scheduler.ts';

export async function barrier(j: Judge): Promise<void> {
  const d = j.draw;
  const { registry: shared, tasks } = inMemoryShared({ scheduler: programScheduler });
  const range = { lower: 0, upper: 1 + d.int(3) };
  const p = 2 + d.int(2);
  const id = 1;
  // Typed refusals of a skip's or an open's bad arguments (nothing is recorded for them).
  const bad = d.int(4);
  if (bad === 0) await j.call(`noteSkip(-1, ${p})`, refused('invalid-config', 'shared id', '-1'), () => shared.noteSkip(-1, p, 0));
  if (bad === 1) await j.call(`noteSkip(${id}, 0)`, refused('invalid-workers', 'participants', '0'), () => shared.noteSkip(id, 0, 0));
  if (bad === 2) await j.call(`noteSkip(${id}, ${p}) by worker -1`, refused('invalid-workers', 'worker', '-1'), () => shared.noteSkip(id, p, -1));
  if (bad === 3) {
    const deadline = d.int(2) === 0 ? -1 : Number.NaN;
    await j.call(`builder(${id}, participants ${p}, deadline ${deadline})`, refused('invalid-config', `barrier deadline of shared batch ${id}`, String(deadline)), () => shared.builder(id, range, { worker: 0, participants: p, deadline }));
  }
  j.same(`earlySkips(${id})`, 0, shared.earlySkips(id));
  j.same('entries after the refusals', 0, shared.size);
  // Skips recorded before any state exists, then a conflicting count (skip or open).
  const early = 10;
  const skipped = 1 + d.int(p - 1);
  for (let w = 0; w < skipped; w++) await j.call(`noteSkip(${early}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(early, p, w));
  j.same(`earlySkips(${early})`, skipped, shared.earlySkips(early));
  if (d.int(2) === 0) {
    await j.call(`noteSkip(${early}, ${p + 1})`, refused('conflicting-descriptions', `noteSkip(${early}, ${p + 1}) after skips recorded for ${p} participants`), () => shared.noteSkip(early, p + 1, 5));
  } else {
    await j.call(`builder(${early}, participants ${p + 1})`, refused('conflicting-descriptions', `builder(${early}) with ${p + 1} participants after skips recorded for ${p}`), () => shared.builder(early, range, { worker: 5, participants: p + 1 }));
  }
  j.same(`earlySkips(${early})`, skipped, shared.earlySkips(early));
  // The rest of `early`'s participants skip: it completes, and every later report is an over-report.
  for (let w = skipped; w < p; w++) await j.call(`noteSkip(${early}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(early, p, w));
  j.same(`earlySkips(${early})`, 0, shared.earlySkips(early));
  await j.call(`noteSkip(${early}, ${p}) once more`, refused('barrier-over-report', `noteSkip() for shared batch ${early}`, 'already reported'), () => shared.noteSkip(early, p, 0));

  // A live barrier: opens and skips by p participants, with misuse in between.
  const accepted: number[] = [];
  const finishes: Promise<Batch | null | undefined>[] = [];
  const opened: SharedBatchHandle[] = [];
  let reported = 0;
  for (let w = 0; w < p; w++) {
    const skip = w > 0 && d.int(3) === 0;
    if (skip) {
      await j.call(`noteSkip(${id}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(id, p, w));
    } else {
      const h = await j.call(`builder(${id}, participants ${p}) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w, participants: p }));
      if (h === undefined) return;
      opened.push(h);
      if (d.int(2) === 0) {
        const us = chunk(d, range.lower, range.upper, false).updates;
        await j.call(`worker ${w} pushes ${show(us)}`, OK, () => h.push(us));
        accepted.push(...us.map((u) => u.id));
      }
    }
    reported += 1;
    if (reported < p) {
      // Misuse against the live barrier (each leaves it as it was).
      const m = d.int(4);
      if (m === 0) await j.call(`noteSkip(${id}, ${p + 1})`, refused('conflicting-descriptions', `noteSkip(${id}, ${p + 1}) on a shared batch opened with ${p} participants`), () => shared.noteSkip(id, p + 1, 7));
      if (m === 1) await j.call(`builder(${id}) without a barrier`, refused('conflicting-descriptions', `live builder has [${range.lower}, ${range.upper}) with ${p} participants`), () => shared.builder(id, range, { worker: 7 }));
      if (m === 2) await j.call(`builder(${id}, participants ${p + 1})`, refused('conflicting-descriptions', `asked for [${range.lower}, ${range.upper}) with ${p + 1} participants`), () => shared.builder(id, range, { worker: 7, participants: p + 1 }));
    }
  }
  // Every participant reported (the skips counted): the finishes run; a further report over-reports.
  for (const [i, h] of opened.entries()) finishes.push(j.call(`handle ${i}.finish()`, OK, () => h.finish()));
  const results = await Promise.all(finishes);
  const got = results.filter((b): b is Batch => b !== null && b !== undefined);
  j.same('batches received', accepted.length > 0 ? 1 : 0, got.length);
  j.same('the received batch', accepted.length > 0 ? sortedIds(accepted) : null, got[0] === undefined ? null : sortedIds(got[0].updateIds));
  // (an open without a barrier too: the id's barrier completed, whatever mode the open asks for)
  const after = d.int(3);
  if (after === 0) await j.call(`builder(${id}, participants ${p}) after all reported`, refused('barrier-over-report', `builder() for shared batch ${id}`), () => shared.builder(id, range, { worker: 8, participants: p }));
  else if (after === 1) await j.call(`builder(${id}) without a barrier after all reported`, refused('barrier-over-report', `builder() for shared batch ${id}`), () => shared.builder(id, range, { worker: 8 }));
  else await j.call(`noteSkip(${id}, ${p}) after all reported`, refused('barrier-over-report', `noteSkip() for shared batch ${id}`), () => shared.noteSkip(id, p, 8));
  // Not a barrier: a skip for a live best-effort id.
  const be = await j.call('builder(2) best-effort', OK, () => shared.builder(2, range, { worker: 0 }));
  if (be === undefined) return;
  await j.call('noteSkip(2, 2) on a best-effort batch', refused('conflicting-descriptions', 'opened with no barrier'), () => shared.noteSkip(2, 2, 1));
  await j.call('builder(2).finish()', OK, () => be.finish());

  // One handle too many: p + 1 workers open a barrier of p participants before anyone reports (the
  // registry cannot refuse the extra open: the barrier has not completed). The p-th finish finalizes and
  // its handle, the deliverer, claims the batch, closing the channel: the extra handle's push then meets
  // a closed channel, and its finish is an over-report the barrier itself refuses.
  const extraId = 3;
  const many: SharedBatchHandle[] = [];
  for (let w = 0; w <= p; w++) {
    const h = await j.call(`builder(${extraId}, participants ${p}) by worker ${w}${w === p ? ' (one too many)' : ''}`, OK, () => shared.builder(extraId, range, { worker: w, participants: p }));
    if (h === undefined) return;
    many.push(h);
  }
  const extra = many.pop() as SharedBatchHandle;
  const pushed: number[] = [];
  if (d.int(2) === 0) {
    const us = chunk(d, range.lower, range.upper, false).updates;
    await j.call(`the extra handle pushes ${show(us)} before anyone finishes`, OK, () => extra.push(us));
    pushed.push(...us.map((u) => u.id));
  }
  const reports = await Promise.all(many.map((h, i) => j.call(`handle ${i} of ${extraId}.finish()`, OK, () => h.finish())));
  const delivered = reports.filter((b): b is Batch => b !== null && b !== undefined);
  j.same(`batches received for ${extraId}`, pushed.length > 0 ? 1 : 0, delivered.length);
  j.same(`the batch received for ${extraId}`, pushed.length > 0 ? sortedIds(pushed) : null, delivered[0] === undefined ? null : sortedIds(delivered[0].updateIds));
  const late = chunk(d, range.lower, range.upper, false).updates;
  await j.call(`the extra handle pushes ${show(late)} after the deliverer claimed`, refused('push-after-finish', `shared batch ${extraId}`, 'channel is already closed'), () => extra.push(late));
  await j.call('the extra handle finishes', refused('barrier-over-report', `barrier of shared batch ${extraId}`, `a finish arrived after all ${p} participants reported`), () => extra.finish());
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());

  await barrierContract(j);
}

/**
 * A barrier's own contract, on a `BarrierState` made directly (the registry refuses a skip or an open
 * after completion before the barrier sees it, so through the registry only a finish over-reports):
 * `pending` arrivals from `pending` (early skips already counted), the last one finalizes, the latest
 * finisher delivers, and any further arrival — or any arrival at all when nothing is pending — is an
 * over-report naming whether it was a skip or a finish.
 */
async function barrierContract(j: Judge): Promise<void> {
  const d = j.draw;
  const participants = 1 + d.int(3);
  const pending = d.int(participants + 1);
  const id = 20 + d.int(5);
  const state = new BarrierState(id, participants, pending);
  j.program.push(`new BarrierState(${id}, ${participants} participants, ${pending} pending)`);
  let deliverer: number | null = null;
  const arrivals = pending + 1 + d.int(2);
  for (let i = 0; i < arrivals; i++) {
    const finisher = d.int(3) === 0 ? null : 100 + i;
    const what = `arrive(${finisher === null ? 'a skip' : `finish by handle ${finisher}`})`;
    if (i < pending) {
      const last = i === pending - 1;
      const finalized = await j.call(what, OK, () => state.arrive(finisher));
      if (finisher !== null) deliverer = finisher;
      j.same(`${what} finalized`, last, finalized);
      j.same('deliverer', deliverer, state.deliverer);
    } else {
      await j.call(what, refused('barrier-over-report', `barrier of shared batch ${id}`, `a ${finisher === null ? 'skip' : 'finish'} arrived after all ${participants} participants reported`), () => state.arrive(finisher));
      j.same('deliverer after an over-report', deliverer, state.deliverer);
    }
  }
}
