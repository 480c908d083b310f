/**
 * Handles on one best-effort shared batch: push, finish, drop, pushes in flight, conflicting opens. A
 * refusal of a handle's call names the handle: the entry numbers its handles 0, 1, 2… in open order.
 */
import type { Batch } from '../../impl/persist/batch.ts';
import type { SharedBatchHandle } from '../../impl/shared/handle.ts';
import { inMemoryShared } from '../../impl/shared/in-memory.ts';
import { OK, refused, Judge } from './judge.ts';
import { sortedIds, show, chunk } from './draw.ts';
import { programScheduler } from './scheduler.ts';

interface HandleModel {
  readonly handle: SharedBatchHandle;
  readonly name: string;
  /** Its number among the entry's handles (the open order), which a refusal names. */
  readonly index: number;
  state: 'open' | 'finished' | 'dropped';
}

export async function handles(j: Judge): Promise<void> {
  const d = j.draw;
  const { registry: shared, tasks, events, metrics } = inMemoryShared({ scheduler: programScheduler, persist: { blobTargetSize: 1 + d.int(200), inlineSingleMaxBytes: d.int(100) } });
  const lower = d.int(3);
  const upper = lower + 1 + d.int(3);
  const id = 1 + d.int(5);
  const range = { lower, upper };
  // Typed refusals of bad arguments, before any state exists.
  const bad = d.int(6);
  if (bad === 0) await j.call(`builder(-1)`, refused('invalid-config', 'shared id', '-1'), () => shared.builder(-1, range, { worker: 0 }));
  if (bad === 4) await j.call(`builder(${id}, [-1, ${upper}))`, refused('invalid-config', `shared batch ${id} lower`, '-1'), () => shared.builder(id, { lower: -1, upper }, { worker: 0 }));
  if (bad === 5) await j.call(`builder(${id}, [${lower}, ${upper + 0.5}))`, refused('invalid-config', `shared batch ${id} upper`, `${upper + 0.5}`), () => shared.builder(id, { lower, upper: upper + 0.5 }, { worker: 0 }));
  if (bad === 1) await j.call(`builder(${id}, worker -1)`, refused('invalid-workers', 'worker', '-1'), () => shared.builder(id, range, { worker: -1 }));
  if (bad === 2) await j.call(`builder(${id}, [${upper}, ${upper}))`, refused('invalid-config', `upper ${upper} must be greater than lower ${upper}`), () => shared.builder(id, { lower: upper, upper }, { worker: 0 }));
  if (bad === 3) await j.call(`builder(${id}, participants 0)`, refused('invalid-workers', 'participants', '0'), () => shared.builder(id, range, { worker: 0, participants: 0 }));

  const hs: HandleModel[] = [];
  const count = 1 + d.int(3);
  for (let w = 0; w < count; w++) {
    const handle = await j.call(`builder(${id}, [${lower}, ${upper})) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w }));
    if (handle === undefined) return;
    hs.push({ handle, name: `h${w}`, index: w, state: 'open' });
  }
  let refs = count;
  const accepted = new Set<number>();
  let pushEvents = 0;
  /** The finish or drop that released the last reference (the entry is dead after it). */
  let lastRelease: 'finish' | 'drop' | undefined;
  const after = (h: HandleModel): string => `(handle ${h.index}) ${h.state === 'finished' ? 'after finish()' : 'after drop()'}`;
  const release = (how: 'finish' | 'drop'): boolean => {
    refs -= 1;
    if (refs === 0) lastRelease = how;
    return refs === 0;
  };
  let received: Batch | null | undefined;

  const steps = 4 + d.int(7);
  for (let s = 0; s < steps && refs > 0; s++) {
    const h = d.pick(hs);
    const op = d.int(7);
    if (op <= 1) {
      const { updates, bad: out } = chunk(d, lower, upper, op === 1);
      const expect =
        h.state !== 'open' ? refused('push-after-finish', after(h)) : out !== undefined ? refused('update-outside-description', `update ${out.id} has time ${out.time}`, `[${lower}, ${upper})`) : OK;
      await j.call(`${h.name}.push(${show(updates)})`, expect, () => h.handle.push(updates));
      if (expect.ok) {
        for (const u of updates) accepted.add(u.id);
        pushEvents += 1;
      }
    } else if (op === 2) {
      await j.call(`${h.name}.push([])`, h.state === 'open' ? OK : refused('push-after-finish', after(h)), () => h.handle.push([]));
    } else if (op === 3 || op === 4) {
      const how = op === 3 ? 'finish' : 'drop';
      if (h.state !== 'open') {
        await j.call(`${h.name}.${how}()`, refused('finish-twice', `${how}() on shared batch ${id}`, after(h)), async () => { if (how === 'finish') await h.handle.finish(); else await h.handle.drop(); });
        continue;
      }
      h.state = how === 'finish' ? 'finished' : 'dropped';
      const last = release(how);
      if (how === 'finish') {
        const batch = await j.call(`${h.name}.finish()`, OK, () => h.handle.finish());
        if (batch !== undefined && (batch !== null) !== (last && accepted.size > 0)) j.wrong.push(`${h.name}.finish(): ${batch === null ? 'no batch' : 'a batch'}, but the model says ${last && accepted.size > 0 ? 'this last finish receives the batch' : 'only the last finish receives one'}`);
        if (last) received = batch;
      } else await j.call(`${h.name}.drop()`, OK, () => h.handle.drop());
    } else if (op === 5) {
      // Pushes not awaited, then finish() or drop() while they are in flight: refused, handle still open.
      if (h.state !== 'open') continue;
      const n = 1 + d.int(2);
      const chunks = Array.from({ length: n }, () => chunk(d, lower, upper, false).updates);
      const pending = chunks.map((c) => h.handle.push(c));
      const how = d.int(2) === 0 ? 'finish' : 'drop';
      await j.call(`${h.name}.${how}() with ${n} pushes in flight`, refused('push-in-flight', `${how}() on shared batch ${id} (handle ${h.index})`, `${n} push() of this handle ${n === 1 ? 'is' : 'are'} in flight`), async () => { if (how === 'finish') await h.handle.finish(); else await h.handle.drop(); });
      await j.call(`${h.name}: the ${n} pushes return`, OK, () => Promise.all(pending));
      for (const c of chunks) for (const u of c) accepted.add(u.id);
      pushEvents += n;
      j.same(`${h.name}.state`, 'open', h.handle.state);
    } else {
      // Another description for the live id.
      // (each bound apart, and both: a check that compares only one of them lets the others through)
      const change = d.int(3);
      const other =
        change === 0
          ? { lower, upper: upper + 1 }
          : change === 1
            ? { lower: lower + 1, upper: upper + 1 }
            : lower > 0
              ? { lower: lower - 1, upper }
              : { lower: lower + 1, upper: upper > lower + 1 ? upper : upper + 1 };
      const participants = d.int(3) === 0 ? 2 : undefined;
      const asked = participants === undefined ? `[${other.lower}, ${other.upper})` : `[${other.lower}, ${other.upper}) with 2 participants`;
      // The message names both descriptions exactly: a best-effort one without a participant count.
      await j.call(`builder(${id}, ${asked})`, refused('conflicting-descriptions', `live builder has [${lower}, ${upper}), builder()`, `asked for ${asked}`), () => shared.builder(id, other, { worker: 9, participants }));
    }
    j.same(`refs(${id})`, refs, shared.refs(id));
    j.same(`${h.name}.state`, h.state, h.handle.state);
  }
  // Every handle still open finishes (the protocol's end); the last one receives what was accepted.
  for (const h of hs) {
    if (h.state !== 'open') continue;
    h.state = 'finished';
    const last = release('finish');
    const batch = await j.call(`${h.name}.finish()`, OK, () => h.handle.finish());
    if (last) received = batch;
    else if (batch !== null && batch !== undefined) j.wrong.push(`${h.name}.finish(): a batch, but only the last finish receives one`);
  }
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());
  // A batch built after the last reference was dropped goes to nobody: counted, and its parts leak.
  j.same('batchesOrphaned', lastRelease === 'drop' && accepted.size > 0 ? 1 : 0, metrics.c.batchesOrphaned);
  const expected = lastRelease === 'finish' && accepted.size > 0 ? sortedIds(accepted) : null;
  j.same('the received batch', expected, received === null || received === undefined ? null : sortedIds(received.updateIds));
  j.same('push events', pushEvents, events.filter((e) => e.kind === 'push').length);
  j.same(`refs(${id})`, 0, shared.refs(id));
}
