/**
 * Regression tests for the review findings (scratch/review/): each failed before its fix.
 */
import { Trace } from '../runtime/trace.ts';
import { BugSwitches } from '../bugs.ts';
import { describe, expect, it } from 'vitest';
import { auditShard } from '../audit.ts';
import { SbkitError, isSbkitError } from '../errors.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus, type Consensus } from '../persist/consensus.ts';
import { ShardWriter } from '../persist/shard-writer.ts';
import { loadShardState } from '../persist/state.ts';
import { racingConsensus } from '../test-support/racing-consensus.ts';
import { claimWriter, readWriters, retireWriter, writerId, writerOfKey, writerRegistryKey } from '../persist/writer-registry.ts';
import { runSink, SHARD_ID, type RunConfig } from '../run.ts';
import { passThroughScheduler } from '../seams.ts';
import type { BuilderEntry } from '../shared/entry.ts';
import type { SharedBatchHandle } from '../shared/handle.ts';
import { ofKind, sharedHarness } from '../test-support/harness.ts';
import { recordRun } from '../test-support/run-harness.ts';
import { StepScheduler, drain, resumeLabel } from '../test-support/step-scheduler.ts';
import { perWorker, upd } from '../test-support/workloads.ts';
import type { Update } from '../update.ts';

const range = { lower: 0, upper: 1 };

/** The builder entry behind a handle (test-only access to a private field). */
function entryOf(handle: SharedBatchHandle): BuilderEntry {
  return (handle as unknown as { entry: BuilderEntry }).entry;
}

describe('1. a writer that starts again on the same storage', () => {
  const base = (blob: MemBlob, consensus: MemConsensus, over: Partial<RunConfig> = {}): RunConfig => ({
    variant: 'off',
    replicas: 1,
    processes: 1,
    workersPerProcess: 2,
    intervals: 2,
    updates: perWorker(2, 2, [2, 2], 3000),
    maxBytes: 0,
    blob,
    consensus,
    ...over,
  });

  it('never overwrites or deletes the blobs the shard references (scratch/review/restart-key-collision.ts)', async () => {
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const first = await runSink(base(blob, consensus));
    expect(first.audit).toMatchObject({ lost: 0, leakedBlobs: 0 });
    const before = new Map<string, string>();
    for (const k of await blob.list()) before.set(k, Buffer.from((await blob.get(k)) ?? []).toString('hex'));

    const second = await runSink(base(blob, consensus));
    expect(second.metrics).toMatchObject({ mismatches: 0, blobDeletes: 0, blobPuts: 0, appends: 0 });
    for (const [k, bytes] of before) expect(Buffer.from((await blob.get(k)) ?? []).toString('hex')).toBe(bytes);
    const audit = await auditShard(await loadShardState(consensus, SHARD_ID), blob, base(blob, consensus).updates);
    expect(audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, danglingKeys: [] });
  });

  it('resumes from the shard upper, with part keys of its own', async () => {
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const all = perWorker(3, 2, [2, 2], 3000);
    await runSink(base(blob, consensus, { intervals: 1, updates: all.filter((u) => u.time < 1) }));
    const keysOfFirst = await blob.list();
    const { result, events } = await recordRun(base(blob, consensus, { intervals: 3, updates: all }));
    expect(ofKind(events, 'mint').map((m) => [m.desc.lower, m.desc.upper])).toEqual([[1, 2], [2, 3]]);
    expect(result.metrics.mismatches).toBe(0);
    expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, danglingKeys: [], upper: 3 });
    const keysOfSecond = (await blob.list()).filter((k) => !keysOfFirst.includes(k));
    expect(keysOfSecond.length).toBeGreaterThan(0);
    const prefix = (k: string): string => k.slice(0, k.lastIndexOf('/'));
    const firstPrefixes = new Set(keysOfFirst.map(prefix));
    for (const k of keysOfSecond) expect(firstPrefixes.has(prefix(k))).toBe(false);
  });

  it('the writer refuses to PUT a key that already exists (typed error, bytes kept)', async () => {
    const blob = new MemBlob();
    const client = new BlobClient(blob, passThroughScheduler, new MetricsRecorder(), 'r0', new Trace());
    await client.set('k', new Uint8Array([1]), { replica: 0 });
    await expect(client.set('k', new Uint8Array([2]), { replica: 0 })).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'blob-key-exists'));
    expect([...((await blob.get('k')) ?? [])]).toEqual([1]);
  });
});

describe('1. writer incarnations', () => {
  it('concurrent claims get distinct incarnations (a lost race is retried); a fresh store starts at 0', async () => {
    const consensus = new MemConsensus();
    const metrics = new MetricsRecorder();
    const got = await Promise.all([claimWriter(consensus, 's', 0, metrics), claimWriter(consensus, 's', 1, metrics)]);
    expect(got.map((w) => w.incarnation).sort()).toEqual([0, 1]);
    expect(metrics.c.writerRegistrations).toBe(3); // one claim lost the race and went again
    expect((await claimWriter(consensus, 's', 1, metrics)).id).toBe('w2-r1');
    expect((await consensus.head(writerRegistryKey('s')))?.seqNo).toBe(2);
    expect(await consensus.head('s')).toBeUndefined(); // shard state untouched
    expect(writerId(2, 1)).toBe('w2-r1');
  });

  it('a claim expires the earlier live incarnations of its replica; retiring records why', async () => {
    const consensus = new MemConsensus();
    const metrics = new MetricsRecorder();
    const a = await claimWriter(consensus, 's', 0, metrics);
    const b = await claimWriter(consensus, 's', 1, metrics);
    await retireWriter(consensus, 's', b, 'finished', metrics);
    const c = await claimWriter(consensus, 's', 0, metrics);
    const writers = await readWriters(consensus, 's');
    expect([...writers.values()].map((w) => [w.id, w.retired])).toEqual([
      [a.id, 'expired'],
      [b.id, 'finished'],
      [c.id, null],
    ]);
    expect(writerOfKey(`${c.id}/part-3`)).toBe(c.id);
    expect(writerOfKey('stray/part-3')).toBeUndefined();
  });
});

describe('2. a push in flight when the same handle finishes', () => {
  it('finish() refuses while a push of its handle is in flight; nothing is lost (scratch/review/push-finish-race.ts)', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const u = (id: number): Update => upd(id, 0, `k${id}`, 1);
    const out = await sched.run(
      async () => {
        const handle = await h.registry.builder(7, range, { worker: 0 });
        const pushes: Promise<void>[] = [];
        for (let i = 0; i < 6; i++) pushes.push(handle.push([u(i)])); // not awaited (misuse)
        const refused = await handle.finish().then(
          () => null,
          (e: unknown) => e,
        );
        await Promise.all(pushes);
        const batch = await handle.finish();
        return { refused, got: batch?.updateIds };
      },
      // The builder task runs last: the channel stays full, pushes wait.
      { pick: (parked) => Math.max(0, parked.findIndex((p) => p.site.label !== 'builder.recv')) },
    );
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    expect(isSbkitError(out.value.refused, 'push-in-flight')).toBe(true);
    expect([...(out.value.got ?? [])].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('drop() refuses too while a push is in flight, and the handle stays usable', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const opened = h.registry.builder(1, range, { worker: 0 });
    expect(await resumeLabel(sched, 'shared.open')).toBe(true);
    const handle = await opened;
    const push = handle.push([upd(1, 0)]);
    await expect(handle.drop()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'push-in-flight') && /1 push\(\) of this handle is in flight/.test(e.message));
    expect(handle.state).toBe('open');
    expect(await resumeLabel(sched, 'shared.push')).toBe(true);
    await push;
    const out = await sched.run(() => handle.finish());
    expect(out.kind === 'settled' && out.value?.updateIds).toEqual([1]);
  });

  it('a push that meets a closed channel throws push-after-finish and emits no push event', async () => {
    const h = sharedHarness();
    const handle = await h.registry.builder(1, range, { worker: 0 });
    entryOf(handle).instance.channel.close();
    await expect(handle.push([upd(1, 0)])).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'push-after-finish'));
    expect(ofKind(h.events, 'push')).toEqual([]);
  });
});

describe('3. the builder task fails', () => {
  class FailingBlob extends MemBlob {
    override async set(): Promise<void> {
      throw new Error('S3 503');
    }
  }

  it('a push waiting on the full channel wakes with a typed error carrying the cause (scratch/review/builder-fail-push-hang.ts)', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched, blob: new FailingBlob(), persist: { blobTargetSize: 1, inlineSingleMaxBytes: 0 } });
    let pushed = 0;
    const out = await sched.run(
      async () => {
        const handle = await h.registry.builder(1, range, { worker: 0 });
        for (let i = 0; i < 8; i++) {
          await handle.push([upd(i, 0)]);
          pushed += 1;
        }
        return handle.finish();
      },
      { running: () => h.tasks.running },
    );
    expect(out.kind).toBe('rejected');
    if (out.kind !== 'rejected') return;
    expect(isSbkitError(out.error, 'builder-failed')).toBe(true);
    expect(String((out.error as SbkitError).cause)).toMatch(/S3 503/);
    expect(pushed).toBeLessThan(8);
    await expect(h.tasks.whenAllDone()).rejects.toThrow(/S3 503/);
  });
});

describe('4. metrics', () => {
  let writers = 0;
  function writer(consensus: Consensus, blob = new MemBlob(), persist = {}) {
    const metrics = new MetricsRecorder();
    // Distinct writer ids: the idempotency token in state is per writer.
    const client = new BlobClient(blob, passThroughScheduler, metrics, `w${writers++}-r0`, new Trace());
    const config = resolvePersistConfig(persist);
    const shard = new ShardWriter({ shardId: 's', consensus, blob: client, scheduler: passThroughScheduler, metrics, config, where: { replica: 0 }, trace: new Trace(), bugs: BugSwitches.none });
    const build = async (updates: Update[]) => {
      const b = new BatchBuilder({ config, blob: client, metrics, shardId: 's' }, 0, 1, { replica: 0 });
      await b.add(updates);
      return b.finish();
    };
    return { metrics, shard, build };
  }

  it('consensusCasFailed counts the CaS attempts that lost a race (consensusCommands counts every attempt)', async () => {
    const inner = new MemConsensus();
    const other = writer(inner);
    const racing = racingConsensus(inner, () => other.shard.compareAndAppend([], 0, 1));
    const w = writer(racing);
    const batch = await w.build([upd(1, 0)]);
    expect((await w.shard.compareAndAppend([batch], 0, 1)).kind).toBe('upper-mismatch');
    expect(w.metrics.c).toMatchObject({ consensusCommands: 1, consensusCasFailed: 1 });
  });

  it('inlineFlushedParts counts a flush even when the retry then meets an upper mismatch', async () => {
    const consensus = new MemConsensus();
    const other = writer(consensus);
    let raced = false;
    class RacingBlob extends MemBlob {
      override async set(k: string, v: Uint8Array): Promise<void> {
        if (!raced) {
          raced = true;
          await other.shard.compareAndAppend([], 0, 1); // another writer wins during the flush
        }
        return super.set(k, v);
      }
    }
    const w = writer(consensus, new RacingBlob(), { inlineTotalMaxBytes: 10 });
    const batch = await w.build([upd(1, 0)]);
    expect(await w.shard.compareAndAppend([batch], 0, 1)).toMatchObject({ kind: 'upper-mismatch' });
    expect(w.metrics.c).toMatchObject({ blobPuts: 1, inlineFlushedParts: 1, consensusCommands: 0 });
  });
});

describe('5. bad input', () => {
  const cfg = (updates: unknown[], over: Partial<RunConfig> = {}): RunConfig => ({
    variant: 'best-effort',
    replicas: 1,
    processes: 1,
    workersPerProcess: 2,
    intervals: 1,
    maxBytes: 1 << 20,
    updates: updates as Update[],
    ...over,
  });
  const rejects = async (c: RunConfig, code: string, message: RegExp): Promise<void> => {
    await expect(runSink(c)).rejects.toSatisfy((e: unknown) => e instanceof SbkitError && e.code === code && message.test(e.message));
  };

  it('a key that is not well-formed UTF-16 (lone surrogate) is rejected, naming the update', async () => {
    await rejects(cfg([{ ...upd(4, 0), key: 'a\uD800b' }]), 'invalid-config', /update 4: key .*lone surrogate/);
    await rejects(cfg([{ ...upd(5, 0), key: 'x\uDC00' }]), 'invalid-config', /update 5: key/);
    await rejects(cfg([{ ...upd(6, 0), key: 'x\uD800' }]), 'invalid-config', /update 6: key/);
    const ok = await runSink(cfg([{ ...upd(7, 0), key: 'pair \uD83D\uDE00' }]));
    expect(ok.audit).toMatchObject({ lost: 0, duplicated: 0 });
  });

  it('|diff| is bounded at config so encoding cannot fail later', async () => {
    const max = 2 ** 52 - 1;
    await rejects(cfg([upd(1, 0, 'a', 1, -(2 ** 53 - 1))]), 'invalid-config', /update 1: diff/);
    await rejects(cfg([upd(1, 0, 'a', 1, max + 1)]), 'invalid-config', /update 1: diff/);
    await rejects(cfg([upd(1, 0, 'a', 1, -(max + 1))]), 'invalid-config', /update 1: diff/);
    const ok = await runSink(cfg([upd(1, 0, 'a', 1, max), upd(2, 0, 'b', 1, -max)]));
    expect(ok.audit).toMatchObject({ lost: 0, duplicated: 0, foundUpdates: 2 });
  });

  it('a null or non-object update is a typed error naming its index', async () => {
    await rejects(cfg([null]), 'invalid-config', /updates\[0\]/);
    await rejects(cfg([upd(1, 0), 'x']), 'invalid-config', /updates\[1\]/);
  });

  it('replicas: 0 is invalid-workers, as errors.ts documents', async () => {
    await rejects(cfg([], { replicas: 0 }), 'invalid-workers', /replicas/);
  });
});

describe('6. minor', () => {
  it('a failed batch delete leaves the batch owned, so the delete can be retried', async () => {
    let failing = true;
    class FlakyDelete extends MemBlob {
      override async delete(key: string): Promise<boolean> {
        if (failing) throw new Error('S3 503 on delete');
        return super.delete(key);
      }
    }
    const blob = new FlakyDelete();
    const metrics = new MetricsRecorder();
    const client = new BlobClient(blob, passThroughScheduler, metrics, 'w', new Trace());
    const b = new BatchBuilder({ config: resolvePersistConfig({ inlineSingleMaxBytes: 0 }), blob: client, metrics, shardId: 's' }, 0, 1, { replica: 0 });
    await b.add([upd(1, 0)]);
    const batch = await b.finish();
    await expect(batch.delete()).rejects.toThrow(/S3 503/);
    expect(batch.status).toBe('owned');
    failing = false;
    expect(await batch.delete()).toBe(1);
    expect(batch.status).toBe('deleted');
    expect(blob.size).toBe(0);
  });

  it('a batch being deleted can be neither appended nor deleted again meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    class SlowDelete extends MemBlob {
      override async delete(key: string): Promise<boolean> {
        await gate;
        return super.delete(key);
      }
    }
    const metrics = new MetricsRecorder();
    const client = new BlobClient(new SlowDelete(), passThroughScheduler, metrics, 'w', new Trace());
    const config = resolvePersistConfig({ inlineSingleMaxBytes: 0 });
    const b = new BatchBuilder({ config, blob: client, metrics, shardId: 's' }, 0, 1, { replica: 0 });
    await b.add([upd(1, 0)]);
    const batch = await b.finish();
    const shard = new ShardWriter({ shardId: 's', consensus: new MemConsensus(), blob: client, scheduler: passThroughScheduler, metrics, config, where: { replica: 0 }, trace: new Trace(), bugs: BugSwitches.none });
    const deleting = batch.delete();
    const beingDeleted = (e: unknown): boolean => isSbkitError(e, 'batch-consumed') && /being deleted/.test(e.message);
    await expect(batch.delete()).rejects.toSatisfy(beingDeleted);
    await expect(shard.compareAndAppend([batch], 0, 1)).rejects.toSatisfy(beingDeleted);
    expect(batch.appendable).toBe(false);
    release();
    expect(await deleting).toBe(1);
    expect(batch.status).toBe('deleted');
  });

  it('a barrier deliverer woken by a peer passes a scheduling point before it closes the channel', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const run = (async () => {
      const handle = await h.registry.builder(2, range, { worker: 0, participants: 2 });
      await handle.push([upd(1, 0)]);
      return { handle, batch: handle.finish() };
    })();
    expect(await resumeLabel(sched, 'shared.open')).toBe(true);
    expect(await resumeLabel(sched, 'shared.push')).toBe(true);
    const { handle, batch } = await run;
    expect(await resumeLabel(sched, 'shared.finish')).toBe(true); // worker 0 waits: it will deliver
    const skip = h.registry.noteSkip(2, 2, 1);
    expect(await resumeLabel(sched, 'barrier.skip')).toBe(true); // the skip finalizes and wakes it
    await drain();
    expect(entryOf(handle).instance.channel.closed).toBe(false); // woken, but not yet acted
    await skip;
    const out = await sched.run(() => batch);
    expect(out.kind).toBe('settled');
    if (out.kind === 'settled') expect(out.value?.updateIds).toEqual([1]);
    expect(sched.log.some((s) => s.label === 'barrier.wake')).toBe(true);
  });
});
