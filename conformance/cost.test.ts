/**
 * Cost is part of the contract (cost-check.ts, model/cost.ts): the model's prediction holds on real
 * runs, and an implementation that does the right thing with more I/O — a read, a write or a wake-up
 * more — fails the check, naming the counter, what the model predicted and what the run counted. Each
 * counter is shown failing on a fault planted for it: here by a spy where a public method can carry it;
 * in cost.deep.test.ts by a textual change (the product's `sbkit check` on a changed copy of the kit)
 * where the fault sits inside a private method, a module function or a loop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchBuilder } from '../impl/persist/batch-builder.ts';
import type { Batch } from '../impl/persist/batch.ts';
import { BlobClient } from '../impl/persist/blob-client.ts';
import { ShardWriter } from '../impl/persist/shard-writer.ts';
import { runSink } from '../impl/run.ts';
import type { Where } from '../impl/runtime/where.ts';
import { COST_COUNTERS } from '../model/cost.ts';
import { runCheck } from './check.ts';
import { costJudged } from './cost-check.ts';
import { SchedulePlan } from './faults.ts';
import { runConfigOf, storeTally } from './harness.ts';
import { FIFO, schedulerFor, type Schedule } from './schedule.ts';
import { workloadOf } from './test-support/workload.ts';
import type { Workload } from './workload.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const base = workloadOf('best-effort', [
  ['medium', 'large'],
  ['tiny', 'boundary'],
  ['none', 'medium'],
], { replicas: 2, blobTargetSize: 6000 });

async function judged(w: Workload, schedule: Schedule = FIFO) {
  const scheduler = schedulerFor(schedule);
  const plan = schedule.faults === undefined ? undefined : new SchedulePlan(schedule.faults, () => scheduler.steps);
  const { config, trace, updates } = runConfigOf(w, scheduler, undefined, plan);
  const outcome = await scheduler.drive(runSink(config));
  if (outcome.kind !== 'settled') throw new Error(`run did not settle: ${outcome.kind}`);
  const store = await storeTally(config);
  if (store === undefined) throw new Error('the harness ran on stores that count nothing');
  return costJudged(w, updates, trace, outcome.value.metrics, store, scheduler.log, plan !== undefined);
}

describe('the cost model on real runs', () => {
  it('predicts two racing replicas exactly where the trace decides, and within its bounds elsewhere', async () => {
    const v = await judged(base);
    expect(v.failed).toEqual([]);
    for (const c of ['blob.puts', 'blob.putBytes', 'blob.gets', 'blob.deletes', 'blob.lists', 'consensus.heads', 'consensus.cas', 'shard.cas', 'registry.cas', 'state.bytes'] as const) {
      expect(v.prediction.counters[c].min, c).toBe(v.prediction.counters[c].max);
    }
    expect(v.actual['blob.puts']).toBeGreaterThan(0);
    expect(v.actual['blob.deletes']).toBeGreaterThan(0);
    expect(v.actual['state.bytes']).toBeGreaterThan(0);
  });

  it('holds in the fault world, where every counter may be a bound', async () => {
    const v = await judged(base, { ...FIFO, faults: { storage: [1, 0, 2, 0, 3, 1, 0, 1, 2, 2, 0, 1], aborts: [{ step: 30, replica: 1 }], heal: 10_000 } });
    expect(v.failed).toEqual([]);
    expect(COST_COUNTERS.some((c) => v.prediction.counters[c].min < v.prediction.counters[c].max)).toBe(true);
  });

  it('predicts the part rewrites of own batches compacted under persist_batch_max_runs exactly', async () => {
    // Every update a part of its own: each worker's own batch has several, and several levels of the merge tree.
    const w = workloadOf('off', [
      ['large', 'cut-edge'],
      ['large', 'large'],
    ], { maxRuns: 2, blobTargetSize: 1, inlineSingleMaxBytes: 0, pacing: 'free' });
    const v = await judged(w);
    expect(v.failed).toEqual([]);
    expect(v.prediction.counters['compaction.rewrites'].min).toBe(v.prediction.counters['compaction.rewrites'].max);
    expect(v.actual['compaction.rewrites']).toBeGreaterThan(0);
  });

  it('names the counter, the prediction and the count when they disagree', async () => {
    const scheduler = schedulerFor(FIFO);
    const { config, trace, updates } = runConfigOf(base, scheduler);
    const outcome = await scheduler.drive(runSink(config));
    if (outcome.kind !== 'settled') throw new Error(outcome.kind);
    const store = await storeTally(config);
    if (store === undefined) throw new Error('no store tally');
    const more = { ...store, blob: { ...store.blob, sets: store.blob.sets + 1 } };
    const v = costJudged(base, updates, trace, outcome.value.metrics, more, scheduler.log, false);
    expect(v.failed).toEqual([{ check: 'cost-blob.puts', why: `blob.puts (blob PUTs that reached the store): the model predicts exactly ${store.blob.sets}, the run counted ${store.blob.sets + 1}` }]);
  });
});

describe('more I/O than the protocol needs fails the check, counter by counter', () => {
  it('blob.puts, blob.putBytes: a part PUT again after it was stored', async () => {
    const set = BlobClient.prototype.set;
    vi.spyOn(BlobClient.prototype, 'set').mockImplementation(async function (this: BlobClient, key: string, bytes: Uint8Array, where: Where) {
      await set.call(this, key, bytes, where);
      await this.blob.set(key, bytes);
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false });
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/\[cost\] cost-blob\.puts: blob\.puts \(blob PUTs that reached the store\): the model predicts exactly \d+, the run counted \d+/);
    expect(r.output).toMatch(/\[cost\] cost-blob\.putBytes:/);
  });

  it('blob.gets: a part read back after every PUT', async () => {
    const set = BlobClient.prototype.set;
    vi.spyOn(BlobClient.prototype, 'set').mockImplementation(async function (this: BlobClient, key: string, bytes: Uint8Array, where: Where) {
      await set.call(this, key, bytes, where);
      await this.blob.get(key);
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false });
    expect(r.output).toMatch(/\[cost\] cost-blob\.gets:/);
  });

  it('blob.deletes: every delete sent twice (deleting is idempotent)', async () => {
    const del = BlobClient.prototype.delete;
    vi.spyOn(BlobClient.prototype, 'delete').mockImplementation(async function (this: BlobClient, key: string, where: Where, opts?: { readonly retries: boolean }) {
      await del.call(this, key, where, opts);
      await this.blob.delete(key);
    });
    const r = await runCheck({ variant: 'off', runs: 100, seed: 1, shrink: false });
    expect(r.output).toMatch(/\[cost\] cost-blob\.deletes:/);
  });

  it("blob.lists: cleanup's listing made twice", async () => {
    const list = BlobClient.prototype.list;
    vi.spyOn(BlobClient.prototype, 'list').mockImplementation(async function (this: BlobClient, where: Where) {
      await list.call(this, where);
      return list.call(this, where);
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false, faults: 0.1 });
    expect(r.output).toMatch(/\[cost\] cost-blob\.lists:/);
  });

  it('compaction.rewrites: an own batch whose runs are compacted twice', async () => {
    const finish = BatchBuilder.prototype.finish;
    vi.spyOn(BatchBuilder.prototype, 'finish').mockImplementation(async function (this: BatchBuilder) {
      const before = (this as unknown as { writer: { metrics: { c: { compactionRewrites: number } } } }).writer.metrics.c;
      const rewrites = before.compactionRewrites;
      const batch: Batch = await finish.call(this);
      before.compactionRewrites += before.compactionRewrites - rewrites;
      return batch;
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false });
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/\[cost\] cost-compaction\.rewrites: compaction\.rewrites \(part writes the compaction of merged runs costs while own batches are built \(metrics compactionRewrites\)\): the model predicts exactly \d+, the run counted \d+/);
  });

  it('consensus.heads: the shard read once more before every compare-and-append', async () => {
    const cas = ShardWriter.prototype.compareAndAppend;
    vi.spyOn(ShardWriter.prototype, 'compareAndAppend').mockImplementation(async function (this: ShardWriter, ...args: Parameters<ShardWriter['compareAndAppend']>) {
      await this.fetchState();
      return cas.apply(this, args);
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false });
    expect(r.output).toMatch(/\[cost\] cost-consensus\.heads:/);
  });

});
