import { describe, expect, it } from 'vitest';
import { isSbkitError } from '../errors.ts';
import type { Batch } from '../persist/batch.ts';
import { sharedHarness, ofKind } from '../test-support/harness.ts';
import { StepScheduler, byPriority, resumeLabel, seeded } from '../test-support/step-scheduler.ts';
import { upd } from '../test-support/workloads.ts';

const range = { lower: 0, upper: 1 };

function nonNull(results: readonly (Batch | null)[]): Batch[] {
  return results.filter((b): b is Batch => b !== null);
}

describe("SharedBatches: Materialize's tests (materialize-tests.test.ts) in other orders: concurrent finishes, a skip racing the writer", () => {
  it('two handles each pushing one row: exactly one receives a batch of 2 updates, the other null', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(7, range, { worker: 0 });
    const b = await h.registry.builder(7, range, { worker: 1 });
    await a.push([upd(1, 0)]);
    await b.push([upd(2, 0)]);
    const results = await Promise.all([a.finish(), b.finish()]);
    const got = nonNull(results);
    expect(got).toHaveLength(1);
    expect(got[0]?.updates).toBe(2);
    expect([...(got[0]?.updateIds ?? [])].sort()).toEqual([1, 2]);
    expect(results.filter((r) => r === null)).toHaveLength(1);
    await h.tasks.whenAllDone();
  });

  it('barrier of 2 finishing concurrently: exactly one receives the batch of 2', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(3, range, { worker: 0, participants: 2 });
    const b = await h.registry.builder(3, range, { worker: 1, participants: 2 });
    await Promise.all([a.push([upd(1, 0)]), b.push([upd(2, 0)])]);
    const results = await Promise.all([a.finish(), b.finish()]);
    const got = nonNull(results);
    expect(got).toHaveLength(1);
    expect(got[0]?.updates).toBe(2);
    await h.tasks.whenAllDone();
  });

  it('barrier with one noteSkip: the writer receives a batch of 1 and does not hang', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const out = await sched.run(async () => {
      const writer = (async () => {
        const handle = await h.registry.builder(5, range, { worker: 0, participants: 2 });
        await handle.push([upd(1, 0)]);
        return handle.finish();
      })();
      const skipper = h.registry.noteSkip(5, 2, 1);
      const [batch] = await Promise.all([writer, skipper]);
      return batch;
    });
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    expect(out.value?.updates).toBe(1);
  });
});

describe('SharedBatches: registry', () => {
  it('reuses the live state for an id and creates a new one after every handle finished (overlap groups)', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(1, range, { worker: 0 });
    const b = await h.registry.builder(1, range, { worker: 1 });
    expect(h.registry.refs(1)).toBe(2);
    await a.push([upd(1, 0)]);
    await b.push([upd(2, 0)]);
    const first = nonNull(await Promise.all([a.finish(), b.finish()]));
    expect(h.registry.refs(1)).toBe(0);
    // A late worker: the entry is dead, so a separate batch is built for the same id.
    const late = await h.registry.builder(1, range, { worker: 2 });
    await late.push([upd(3, 0)]);
    const second = await late.finish();
    expect(first.map((x) => x.updates)).toEqual([2]);
    expect(second?.updateIds).toEqual([3]);
    expect(ofKind(h.events, 'open').map((e) => e.created)).toEqual([true, false, true]);
    await h.tasks.whenAllDone();
  });

  it('a different description for a live id is a typed error; for a dead id it starts afresh', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(1, range, { worker: 0 });
    await expect(h.registry.builder(1, { lower: 0, upper: 2 }, { worker: 1 })).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'conflicting-descriptions') && /\[0, 1\).*\[0, 2\)/.test(e.message),
    );
    await expect(h.registry.builder(1, range, { worker: 1, participants: 2 })).rejects.toSatisfy((e: unknown) =>
      isSbkitError(e, 'conflicting-descriptions'),
    );
    await a.finish();
    const b = await h.registry.builder(1, { lower: 0, upper: 2 }, { worker: 1 });
    expect(await b.finish()).toBeNull();
    await h.tasks.whenAllDone();
  });

  it('rejects bad ranges, ids, workers and participants', async () => {
    const h = sharedHarness();
    await expect(h.registry.builder(1, { lower: 2, upper: 2 }, { worker: 0 })).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-config'));
    await expect(h.registry.builder(-1, range, { worker: 0 })).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-config'));
    await expect(h.registry.builder(1, range, { worker: -1 })).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-workers'));
    await expect(h.registry.builder(1, range, { worker: 0, participants: 0 })).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-workers'));
    await expect(h.registry.noteSkip(1, 0, 0)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-workers'));
  });

  it('push after finish, finish twice, drop after finish, and updates outside the range are typed errors', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(1, { lower: 2, upper: 4 }, { worker: 0 });
    await expect(a.push([upd(1, 4)])).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'update-outside-description') && e.message.includes('time 4'),
    );
    await a.push([upd(1, 3)]);
    expect((await a.finish())?.updates).toBe(1);
    await expect(a.push([upd(2, 3)])).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'push-after-finish') && e.message.includes('after finish()'));
    await expect(a.finish()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'finish-twice'));
    await expect(a.drop()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'finish-twice'));
    const b = await h.registry.builder(2, range, { worker: 0 });
    await b.drop();
    await expect(b.push([upd(3, 0)])).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'push-after-finish') && e.message.includes('after drop()'));
    await h.tasks.whenAllDone();
  });

  it('creates the persist builder lazily: nothing pushed → finish returns null and writes nothing', async () => {
    const h = sharedHarness({ persist: { inlineSingleMaxBytes: 0 } });
    const a = await h.registry.builder(1, range, { worker: 0 });
    await a.push([]); // empty chunks are ignored
    expect(await a.finish()).toBeNull();
    await h.tasks.whenAllDone();
    expect(h.blob.stats.sets).toBe(0);
    expect(ofKind(h.events, 'push')).toHaveLength(0);
  });

  it('the channel holds 4 chunks: a fifth push waits until the builder task takes one', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const opening = h.registry.builder(1, range, { worker: 0 });
    expect(await resumeLabel(sched, 'shared.open')).toBe(true);
    const handle = await opening;
    let pushed = 0;
    const pusher = (async () => {
      for (let i = 0; i < 5; i++) {
        await handle.push([upd(i, 0)]);
        pushed += 1;
      }
    })();
    // Resume only the pusher's points: the builder task never runs, so the fifth push must wait.
    while (await resumeLabel(sched, 'shared.push'));
    expect(pushed).toBe(4);
    expect(sched.parked.map((p) => p.site.label)).not.toContain('shared.push'); // blocked on the channel, not at a point
    // Now let everything run: the builder drains, the fifth push completes.
    const out = await sched.run(async () => {
      await pusher;
      return handle.finish();
    });
    expect(out.kind).toBe('settled');
    if (out.kind === 'settled') expect(out.value?.updates).toBe(5);
  });

  it('dropping the last handle without finish builds the batch for nobody: its parts leak, observably', async () => {
    const h = sharedHarness({ persist: { inlineSingleMaxBytes: 0 } });
    const a = await h.registry.builder(1, range, { worker: 0 });
    await a.push([upd(1, 0)]);
    await a.drop();
    await h.tasks.whenAllDone();
    expect(ofKind(h.events, 'drop')).toEqual([{ kind: 'drop', replica: 0, process: 0, worker: 0, sharedId: 1, closed: true }]);
    expect(h.metrics.c.batchesOrphaned).toBe(1);
    expect(h.blob.size).toBe(1); // one hollow part nobody references or deletes
  });

  it('dropping a handle that is not last leaves the batch to the last finisher', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(1, range, { worker: 0 });
    const b = await h.registry.builder(1, range, { worker: 1 });
    await a.push([upd(1, 0)]);
    await a.drop();
    await b.push([upd(2, 0)]);
    expect((await b.finish())?.updates).toBe(2);
    expect(ofKind(h.events, 'drop')[0]?.closed).toBe(false);
    await h.tasks.whenAllDone();
    expect(h.metrics.c.batchesOrphaned).toBe(0);
  });

  it('cuts parts in push order at the target size, inline below the inline limit', async () => {
    const h = sharedHarness({ persist: { blobTargetSize: 100, inlineSingleMaxBytes: 50 } });
    const a = await h.registry.builder(1, range, { worker: 0 });
    const b = await h.registry.builder(1, range, { worker: 1 });
    // Each update: key "key-N" (5) + 1 + value 40 + 1 + time 1 + diff 1 = 49 bytes.
    await a.push([upd(1, 0, 'key-1', 40), upd(2, 0, 'key-2', 40)]); // 98 < 100: no cut yet
    await b.push([upd(3, 0, 'key-3', 40)]); // 147 ≥ 100: cut a hollow part of 3
    await b.push([upd(4, 0, 'key-4', 40)]); // 49 left at finish: inline
    await a.finish();
    const batch = await b.finish();
    expect(batch?.updateIds).toEqual([1, 2, 3, 4]);
    expect(batch?.partsSummary()).toEqual({ hollow: 1, inline: 1 });
    expect(batch?.parts.map((p) => p.updates)).toEqual([3, 1]);
    await h.tasks.whenAllDone();
  });
});

describe('SharedBatches: barrier', () => {
  it('a skip before the state exists is recorded and applied at creation', async () => {
    const h = sharedHarness();
    await h.registry.noteSkip(4, 3, 2);
    expect(h.registry.earlySkips(4)).toBe(1);
    const a = await h.registry.builder(4, range, { worker: 0, participants: 3 });
    expect(h.registry.earlySkips(4)).toBe(0);
    const b = await h.registry.builder(4, range, { worker: 1, participants: 3 });
    await a.push([upd(1, 0)]);
    await b.push([upd(2, 0)]);
    const got = nonNull(await Promise.all([a.finish(), b.finish()]));
    expect(got.map((x) => x.updates)).toEqual([2]);
    expect(ofKind(h.events, 'skip').map((e) => e.early)).toEqual([true]);
    await h.tasks.whenAllDone();
  });

  it('the deliverer is the last to finish, even when a later skip finalizes the barrier', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(4, range, { worker: 0, participants: 3 });
    const b = await h.registry.builder(4, range, { worker: 1, participants: 3 });
    await a.push([upd(1, 0)]);
    const fa = a.finish();
    await b.push([upd(2, 0)]);
    const fb = b.finish();
    await new Promise((r) => setImmediate(r));
    await h.registry.noteSkip(4, 3, 2);
    const [ra, rb] = await Promise.all([fa, fb]);
    expect(ra).toBeNull();
    expect(rb?.updates).toBe(2);
    const begins = ofKind(h.events, 'finish-begin').map((e) => e.last);
    expect(begins).toEqual([false, false]);
    expect(ofKind(h.events, 'skip')[0]?.early).toBe(false);
    await h.tasks.whenAllDone();
  });

  it('all participants skipping removes the record; any further report is an over-report', async () => {
    const h = sharedHarness();
    await h.registry.noteSkip(9, 2, 0);
    await h.registry.noteSkip(9, 2, 1);
    expect(h.registry.earlySkips(9)).toBe(0);
    expect(h.registry.size).toBe(0);
    await expect(h.registry.noteSkip(9, 2, 1)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'barrier-over-report'));
    await expect(h.registry.builder(9, range, { worker: 0, participants: 2 })).rejects.toSatisfy((e: unknown) =>
      isSbkitError(e, 'barrier-over-report'),
    );
  });

  it('over-reporting is a typed error, never a hang', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(2, range, { worker: 0, participants: 1 });
    await a.push([upd(1, 0)]);
    expect((await a.finish())?.updates).toBe(1);
    // A second "participant" of a barrier of 1 reports after it finalized.
    await expect(h.registry.noteSkip(2, 1, 1)).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'barrier-over-report') && e.message.includes('shared batch 2'),
    );
    await expect(h.registry.builder(2, range, { worker: 1, participants: 1 })).rejects.toSatisfy((e: unknown) =>
      isSbkitError(e, 'barrier-over-report'),
    );
    // Within a live state: three arrivals at a barrier of 2.
    const b = await h.registry.builder(3, range, { worker: 0, participants: 2 });
    const c = await h.registry.builder(3, range, { worker: 1, participants: 2 });
    const d = await h.registry.builder(3, range, { worker: 2, participants: 2 });
    await Promise.all([b.finish(), c.finish()]);
    await expect(d.finish()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'barrier-over-report'));
  });

  it('skips must agree with the participants of the state or the record', async () => {
    const h = sharedHarness();
    await h.registry.noteSkip(1, 3, 0);
    await expect(h.registry.noteSkip(1, 2, 1)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'conflicting-descriptions'));
    await expect(h.registry.builder(1, range, { worker: 1, participants: 2 })).rejects.toSatisfy((e: unknown) =>
      isSbkitError(e, 'conflicting-descriptions'),
    );
    const a = await h.registry.builder(2, range, { worker: 0 });
    await expect(h.registry.noteSkip(2, 2, 1)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'conflicting-descriptions'));
    await a.finish();
    const b = await h.registry.builder(3, range, { worker: 0, participants: 2 });
    await expect(h.registry.noteSkip(3, 3, 1)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'conflicting-descriptions'));
    await h.registry.noteSkip(3, 2, 1);
    expect(await b.finish()).toBeNull();
  });

  it('no lost wake-up: every interleaving of 3 participants returns, exactly one receives', async () => {
    for (let seed = 0; seed < 40; seed++) {
      const sched = new StepScheduler();
      const h = sharedHarness({ scheduler: sched });
      const out = await sched.run(
        () =>
          Promise.all(
            [0, 1, 2].map(async (w) => {
              if (w === 2 && seed % 2 === 0) {
                await h.registry.noteSkip(1, 3, w);
                return null;
              }
              const handle = await h.registry.builder(1, range, { worker: w, participants: 3 });
              await handle.push([upd(w, 0)]);
              return handle.finish();
            }),
          ),
        { pick: seeded(seed) },
      );
      expect(out.kind, `seed ${seed}`).toBe('settled');
      if (out.kind !== 'settled') continue;
      const got = nonNull(out.value);
      expect(got).toHaveLength(1);
      expect(got[0]?.updates).toBe(seed % 2 === 0 ? 2 : 3);
    }
  });
});

describe('SharedBatches: sweep (Materialize persist.rs, SharedBatches::builder)', () => {
  it('six ids opened and finished one after another: each builder() call sweeps before its lookup when the map outgrew twice its last retained length — [0], [1], [2], [3], [4] in five sweeps, one entry left', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const out = await sched.run(async () => {
      const sizes: number[] = [];
      for (let id = 0; id < 6; id++) {
        const handle = await h.registry.builder(id, range, { worker: 0 });
        sizes.push(h.registry.size);
        await handle.push([upd(id, 0)]);
        await handle.finish();
      }
      return { size: h.registry.size, retained: h.registry.retained, sizes };
    });
    // call 0: length 0, no sweep; call k > 0: length 1 (id k − 1, dead) > 2 × 0 → sweep removes it,
    // retained 0, then the lookup inserts id k.
    expect(ofKind(h.events, 'sweep').map((s) => s.removed)).toEqual([[0], [1], [2], [3], [4]]);
    expect(out).toMatchObject({ kind: 'settled', value: { size: 1, retained: 0, sizes: [1, 1, 1, 1, 1, 1] } });
    // The sweep is the caller's: it names the worker whose builder() call ran it, right before its open.
    const kinds = h.events.filter((e) => e.kind === 'sweep' || e.kind === 'open').map((e) => e.kind);
    expect(kinds).toEqual(['open', ...Array.from({ length: 5 }, () => ['sweep', 'open']).flat()]);
    expect(ofKind(h.events, 'sweep').every((e) => e.worker === 0)).toBe(true);
  });

  it('a join sweeps too, and the length that triggers it is taken before the call inserts its id', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(0, range, { worker: 0 }); // length 0: no sweep
    expect(ofKind(h.events, 'sweep')).toHaveLength(0);
    const b = await h.registry.builder(0, range, { worker: 1 }); // length 1 > 0: sweeps (nothing dead), joins
    expect(ofKind(h.events, 'sweep')).toEqual([expect.objectContaining({ worker: 1, removed: [] })]);
    expect(ofKind(h.events, 'open').map((o) => o.created)).toEqual([true, false]);
    expect(h.registry.retained).toBe(1);
    const c = await h.registry.builder(1, range, { worker: 0 }); // length 1 ≤ 2 × 1: no sweep, inserts id 1
    expect(ofKind(h.events, 'sweep')).toHaveLength(1);
    expect(h.registry.size).toBe(2);
    for (const x of [a, b, c]) await x.finish();
  });

  it("the sweep runs under the registry's lock: another builder() or noteSkip() call waits for the caller's lookup", async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const first = await sched.run(() => h.registry.builder(0, range, { worker: 0 }));
    if (first.kind !== 'settled') throw new Error('first open did not settle');
    // Worker 1's call sweeps (1 entry > 2 × 0) and holds the lock until its open; worker 2's call and
    // worker 3's skip, resumed in between, wait for it.
    const calls = Promise.all([
      h.registry.builder(1, range, { worker: 1 }),
      h.registry.builder(2, range, { worker: 2 }),
      h.registry.noteSkip(3, 2, 3),
    ]);
    expect(await resumeLabel(sched, 'shared.open')).toBe(true); // worker 1 takes the lock and sweeps
    expect(ofKind(h.events, 'sweep')).toEqual([expect.objectContaining({ worker: 1 })]);
    expect(await resumeLabel(sched, 'shared.open')).toBe(true); // worker 2: the lock is held, it waits
    expect(await resumeLabel(sched, 'barrier.skip')).toBe(true); // worker 3: the same
    expect(ofKind(h.events, 'open').map((o) => o.worker)).toEqual([0]);
    const rest = await sched.run(() => calls);
    expect(rest.kind).toBe('settled');
    expect(h.events.filter((e) => e.kind !== 'push').map((e) => `${e.kind}${'worker' in e ? e.worker : ''}`).slice(1)).toEqual(['sweep1', 'open1', 'open2', 'skip3']);
  });
});
