import { Trace } from '../runtime/trace.ts';
import { BugSwitches } from '../bugs.ts';
import { describe, expect, it } from 'vitest';
import type { PersistConfig } from '../../vocab/index.ts';
import { isSbkitError } from '../errors.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import type { Batch } from '../persist/batch.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { DEFAULT_PERSIST_CONFIG, MiB, resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus, type Consensus, type SeqNo, type VersionedData } from '../persist/consensus.ts';
import { ShardWriter } from '../persist/shard-writer.ts';
import { EMPTY_SHARD_STATE, applyDiff, loadShardState } from '../persist/state.ts';
import { passThroughScheduler } from '../seams.ts';
import { racingConsensus } from '../test-support/racing-consensus.ts';
import { upd } from '../test-support/workloads.ts';
import { encodedUpdateSize } from '../update.ts';

function persist(config: Partial<PersistConfig> = {}, consensus: Consensus = new MemConsensus(), replica = 0) {
  const metrics = new MetricsRecorder();
  const blob = new MemBlob();
  const client = new BlobClient(blob, passThroughScheduler, metrics, `r${replica}`, new Trace());
  const cfg = resolvePersistConfig(config);
  const writer = { config: cfg, blob: client, metrics, shardId: 's' };
  const shard = new ShardWriter({ shardId: 's', consensus, blob: client, scheduler: passThroughScheduler, metrics, config: cfg, where: { replica }, trace: new Trace(), bugs: BugSwitches.none });
  const build = async (lower: number, upper: number, updates = [upd(1, lower)]): Promise<Batch> => {
    const b = new BatchBuilder(writer, lower, upper, { replica });
    await b.add(updates);
    return b.finish();
  };
  return { metrics, blob, client, writer, shard, consensus, build };
}

describe('config', () => {
  it('defaults to 128 MiB / 4096 / 1 MiB / max runs 1 and names a bad field', () => {
    expect(resolvePersistConfig()).toEqual({ blobTargetSize: 128 * MiB, inlineSingleMaxBytes: 4096, inlineTotalMaxBytes: MiB, maxRuns: 1 });
    expect(() => resolvePersistConfig({ maxRuns: -1 })).toThrow(/persist.maxRuns must be a non-negative integer, got -1/);
    expect(DEFAULT_PERSIST_CONFIG.blobTargetSize).toBe(134_217_728);
    expect(() => resolvePersistConfig({ blobTargetSize: 0 })).toThrow(/persist.blobTargetSize must be an integer ≥ 1, got 0/);
    expect(() => resolvePersistConfig({ inlineSingleMaxBytes: -1 })).toThrow(/non-negative integer, got -1/);
    expect(() => resolvePersistConfig({ inlineTotalMaxBytes: 1.5 })).toThrow(expect.objectContaining({ code: 'invalid-config' }));
  });
});

describe('in-memory blob and consensus', () => {
  it('MemBlob counts every operation and byte, and copies bytes', async () => {
    const blob = new MemBlob();
    const bytes = new Uint8Array([1, 2, 3]);
    await blob.set('b', bytes);
    await blob.set('a', new Uint8Array(5));
    bytes[0] = 9;
    expect([...((await blob.get('b')) ?? [])]).toEqual([1, 2, 3]);
    expect(await blob.list()).toEqual(['a', 'b']);
    expect(await blob.delete('a')).toBe(true);
    expect(await blob.delete('a')).toBe(false);
    expect(await blob.get('a')).toBeUndefined();
    expect(blob.stats).toEqual({ gets: 2, sets: 2, setBytes: 8, deletes: 2, lists: 1 });
  });

  it('MemConsensus compare-and-sets on the sequence number', async () => {
    const c = new MemConsensus();
    const v = (seqNo: SeqNo): VersionedData => ({ seqNo, data: new Uint8Array([seqNo]) });
    expect(await c.head('k')).toBeUndefined();
    expect(await c.compareAndSet('k', null, v(0))).toEqual({ ok: true });
    expect(await c.compareAndSet('k', null, v(0))).toEqual({ ok: false, head: 0 });
    expect(await c.compareAndSet('k', 0, v(1))).toEqual({ ok: true });
    await expect(c.compareAndSet('k', 1, v(5))).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'consensus-invariant'));
    expect((await c.head('k'))?.seqNo).toBe(1);
    expect((await c.scan('k', 1)).map((x) => x.seqNo)).toEqual([1]);
    expect(c.stats).toMatchObject({ cas: 4, casFailures: 1, bytesWritten: 2 });
  });
});

describe('BatchBuilder and Batch', () => {
  it('cuts a part as soon as the buffer reaches the target; inline iff payload < inline limit', async () => {
    const p = persist({ blobTargetSize: 60, inlineSingleMaxBytes: 60 });
    const u = (id: number) => upd(id, 0, `k${id}`, 20); // 2 + 1 + 20 + 1 + 1 + 1 = 26 bytes
    expect(encodedUpdateSize(u(1))).toBe(26);
    const batch = await p.build(0, 1, [u(1), u(2), u(3), u(4), u(5)]);
    // 26, 52, 78 ≥ 60 → cut [1,2,3] (78 B, hollow); then 26, 52 → finish cuts [4,5] (52 B, inline).
    expect(batch.parts.map((x) => [x.kind, x.updates, x.payloadBytes])).toEqual([
      ['hollow', 3, 78],
      ['inline', 2, 52],
    ]);
    expect(p.metrics.c).toMatchObject({ blobPuts: 1, updatesWritten: 5 });
    expect(batch.summary()).toEqual({ updates: [1, 2, 3, 4, 5], parts: { hollow: 1, inline: 1 }, partBytes: [78, 52] });
  });

  it('refuses updates outside [lower, upper) (all or nothing), add after finish, and finish twice', async () => {
    const p = persist();
    const b = new BatchBuilder(p.writer, 2, 4, { replica: 0 });
    await expect(b.add([upd(1, 2), upd(2, 4)])).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'update-outside-description') && e.message === "update 2 has time 4, outside the batch's [2, 4)",
    );
    await expect(b.add([upd(3, 1)])).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'update-outside-description'));
    const batch = await b.finish();
    expect(batch.updates).toBe(0);
    expect(batch.parts).toHaveLength(0);
    await expect(b.add([upd(1, 2)])).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'push-after-finish'));
    await expect(b.finish()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'finish-twice'));
  });

  it('delete() removes the hollow parts\' blobs once; a deleted batch cannot be appended', async () => {
    const p = persist({ inlineSingleMaxBytes: 0, blobTargetSize: 1 });
    const batch = await p.build(0, 1, [upd(1, 0), upd(2, 0)]);
    expect(p.blob.size).toBe(2);
    expect(await batch.delete()).toBe(2);
    expect(p.blob.size).toBe(0);
    expect(batch.status).toBe('deleted');
    await expect(batch.delete()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'batch-consumed') && e.message.includes('deleted'));
    await expect(p.shard.compareAndAppend([batch], 0, 1)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'batch-consumed'));
  });
});

describe('ShardWriter.compareAndAppend', () => {
  it('appends several batches as one batch with exactly one consensus command; measures the diff bytes', async () => {
    const p = persist({ inlineSingleMaxBytes: 0 });
    const a = await p.build(0, 2, [upd(1, 0)]);
    const b = await p.build(0, 2, [upd(2, 1)]);
    const result = await p.shard.compareAndAppend([a, b], 0, 2);
    expect(result).toEqual({ kind: 'ok', parts: { hollow: 2, inline: 0 }, flushedParts: 0 });
    expect(p.metrics.c.consensusCommands).toBe(1);
    const state = await loadShardState(p.consensus, 's');
    expect(state).toMatchObject({ seqNo: 0, upper: 2, batches: [{ lower: 0, upper: 2 }] });
    expect(state.batches[0]?.parts).toHaveLength(2);
    expect(p.metrics.c.stateDiffBytes).toBe((p.consensus as MemConsensus).stats.bytesWritten);
    expect([a.status, b.status]).toEqual(['consumed', 'consumed']);
    await expect(a.delete()).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'batch-consumed'));
  });

  it('returns UpperMismatch (not an exception) and leaves the batches owned', async () => {
    const p = persist();
    await p.shard.compareAndAppend([], 0, 3);
    const batch = await p.build(1, 2);
    const result = await p.shard.compareAndAppend([batch], 1, 2);
    expect(result).toEqual({ kind: 'upper-mismatch', current: 3, expected: 1 });
    expect(batch.status).toBe('owned');
    expect(p.metrics.c.consensusCommands).toBe(1);
  });

  it('validates its arguments', async () => {
    const p = persist();
    const batch = await p.build(0, 2);
    const invalid = (e: unknown) => isSbkitError(e, 'invalid-append');
    await expect(p.shard.compareAndAppend([batch], 0, 1)).rejects.toSatisfy(invalid);
    await expect(p.shard.compareAndAppend([batch, batch], 0, 2)).rejects.toSatisfy(invalid);
    await expect(p.shard.compareAndAppend([], 2, 2)).rejects.toSatisfy(invalid);
    await expect(p.shard.compareAndAppend([], -1, 2)).rejects.toSatisfy(invalid);
  });

  it('another writer sees the first writer\'s appends (state rebuilt from consensus diffs)', async () => {
    const consensus = new MemConsensus();
    const a = persist({}, consensus, 0);
    const b = persist({}, consensus, 1);
    expect((await a.shard.compareAndAppend([await a.build(0, 1)], 0, 1)).kind).toBe('ok');
    expect(await b.shard.compareAndAppend([await b.build(0, 1)], 0, 1)).toMatchObject({ kind: 'upper-mismatch', current: 1 });
    expect((await b.shard.compareAndAppend([await b.build(1, 2)], 1, 2)).kind).toBe('ok');
    expect((await a.shard.fetchState()).upper).toBe(2);
    expect(a.shard.cachedState.batches).toHaveLength(2);
  });

  it('a concurrent commit between head and CaS makes the CaS fail; the step is re-evaluated', async () => {
    const inner = new MemConsensus();
    const other = persist({}, inner, 1);
    const racing = racingConsensus(inner, () => other.shard.compareAndAppend([], 0, 5)); // the other writer wins the race
    const p = persist({}, racing, 0);
    const result = await p.shard.compareAndAppend([await p.build(0, 1)], 0, 1);
    expect(result).toEqual({ kind: 'upper-mismatch', current: 5, expected: 0 });
    expect(p.metrics.c.consensusCommands).toBe(1); // its one attempt; the retry saw the mismatch
  });

  it('inline backpressure: flushes the inline parts to blob, then commits them hollow', async () => {
    const p = persist({ inlineSingleMaxBytes: 4096, inlineTotalMaxBytes: 100 });
    const small = await p.build(0, 1, [upd(1, 0, 'k', 40)]); // 45 B inline
    expect((await p.shard.compareAndAppend([small], 0, 1)).kind).toBe('ok');
    expect(p.shard.cachedState.inlineBytes).toBe(45);
    const more = await p.build(1, 2, [upd(2, 1, 'k', 40)]); // 45 + 45 < 100: still inline
    expect(await p.shard.compareAndAppend([more], 1, 2)).toMatchObject({ parts: { hollow: 0, inline: 1 } });
    const third = await p.build(2, 3, [upd(3, 2, 'k', 40)]); // 90 + 45 ≥ 100: refused, flushed
    const result = await p.shard.compareAndAppend([third], 2, 3);
    expect(result).toEqual({ kind: 'ok', parts: { hollow: 1, inline: 0 }, flushedParts: 1 });
    expect(p.metrics.c).toMatchObject({ blobPuts: 1, inlineFlushedParts: 1, consensusCommands: 3 });
    expect(p.shard.cachedState.inlineBytes).toBe(90);
  });

  it('inline backpressure flush awaits PUTs: another writer can win meanwhile → mismatch', async () => {
    const consensus = new MemConsensus();
    const other = persist({}, consensus, 1);
    const metrics = new MetricsRecorder();
    let raced = false;
    class RacingBlob extends MemBlob {
      override async set(k: string, v: Uint8Array): Promise<void> {
        if (!raced) {
          raced = true;
          await other.shard.compareAndAppend([], 0, 1);
        }
        return super.set(k, v);
      }
    }
    const client = new BlobClient(new RacingBlob(), passThroughScheduler, metrics, 'r0', new Trace());
    const config = resolvePersistConfig({ inlineTotalMaxBytes: 10 });
    const shard = new ShardWriter({ shardId: 's', consensus, blob: client, scheduler: passThroughScheduler, metrics, config, where: { replica: 0 }, trace: new Trace(), bugs: BugSwitches.none });
    const builder = new BatchBuilder({ config, blob: client, metrics, shardId: 's' }, 0, 1, { replica: 0 });
    await builder.add([upd(1, 0)]);
    const batch = await builder.finish();
    expect(await shard.compareAndAppend([batch], 0, 1)).toEqual({ kind: 'upper-mismatch', current: 1, expected: 0 });
    expect(batch.partsSummary()).toEqual({ hollow: 1, inline: 0 }); // flushed, still owned: deletable
    expect(await batch.delete()).toBe(1);
  });

  it('applyDiff enforces the state invariants', () => {
    const d = { seqNo: 0, upper: 2, since: 0, batch: { lower: 0, upper: 2, parts: [] }, writer: 'w0-r0', token: 0 };
    const s = applyDiff(EMPTY_SHARD_STATE, d);
    const broken = (f: () => unknown) => expect(f).toThrow(expect.objectContaining({ code: 'consensus-invariant' }));
    broken(() => applyDiff(s, { ...d, seqNo: 3 }));
    broken(() => applyDiff(s, { ...d, seqNo: 1, upper: 1, batch: null }));
    broken(() => applyDiff(s, { ...d, seqNo: 1, upper: 4, batch: { lower: 1, upper: 4, parts: [] } }));
  });
});
