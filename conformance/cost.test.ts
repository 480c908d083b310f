/**
 * Cost is part of the contract (cost-check.ts, model/cost.ts): the model's prediction holds on real
 * runs, and an implementation that does the right thing with more I/O — a read, a write or a wake-up
 * more — fails the check, naming the counter, what the model predicted and what the run counted. Each
 * counter is shown failing on a fault planted for it: by a spy where a public method can carry it, by a
 * textual change (test-support/plant.ts, the product's `sbkit check` run on the changed copy) where the
 * fault sits inside a private method, a module function or a loop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
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
import { plant, type Change } from './test-support/plant.ts';
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

/** `sbkit check` on a copy of the kit with `changes` planted: it fails, naming `check`. */
function plantedFails(changes: readonly Change[], args: readonly string[], check: string): string {
  const p = plant(...changes);
  try {
    const r = p.sbkit(['check', '--seed', '1', '--no-shrink', ...args]);
    expect(r.code, r.output.slice(0, 2000)).toBe(1);
    const failures = r.output.split('\n').filter((l) => /^\s+- \[/.test(l));
    expect(failures.join('\n')).toContain(`[cost] ${check}:`);
    expect(r.output).toMatch(/^seed 1; failed on run \d+/m);
    expect(r.output).toMatch(/^replay: sbkit check --replay sb1\./m);
    return failures.join('\n');
  } finally {
    p.dispose();
  }
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

  it('consensus.heads: the shard read once more before every compare-and-append', async () => {
    const cas = ShardWriter.prototype.compareAndAppend;
    vi.spyOn(ShardWriter.prototype, 'compareAndAppend').mockImplementation(async function (this: ShardWriter, ...args: Parameters<ShardWriter['compareAndAppend']>) {
      await this.fetchState();
      return cas.apply(this, args);
    });
    const r = await runCheck({ variant: 'off', runs: 50, seed: 1, shrink: false });
    expect(r.output).toMatch(/\[cost\] cost-consensus\.heads:/);
  });

  it("consensus.scans: the re-read's bound `<=` made `<` (every refresh scans, even when nothing is new)", () => {
    plantedFails([{ file: 'impl/persist/shard-writer.ts', from: 'head.seqNo <= have', to: 'head.seqNo < have' }], ['--variant', 'off', '--runs', '100'], 'cost-consensus.scans');
  });

  it('consensus.cas, registry.cas: a claim that writes its registry version twice', () => {
    const out = plantedFails(
      [{ file: 'impl/persist/writer-registry.ts', from: 'if (cas.ok) return seqNo;', to: 'if (cas.ok) { metrics.c.writerRegistrations += 1; await consensus.compareAndSet(key, seqNo, { seqNo: seqNo + 1, data }); return seqNo; }' }],
      ['--variant', 'off', '--runs', '20'],
      'cost-consensus.cas',
    );
    expect(out).toContain('[cost] cost-registry.cas:');
  });

  it('shard.cas: an empty command after every commit (it moves nothing)', () => {
    plantedFails(
      [
        {
          file: 'impl/persist/shard-writer.ts',
          from: 'this.#state = applyDiff(state, diff);',
          to: 'this.#state = applyDiff(state, diff); const touch = { ...diff, seqNo: seqNo + 1, batch: null }; metrics.c.consensusCommands += 1; await consensus.compareAndSet(shardId, seqNo, { seqNo: seqNo + 1, data: encodeDiff(touch) }); this.#state = applyDiff(this.#state, touch);',
        },
      ],
      ['--variant', 'off', '--runs', '20'],
      'cost-shard.cas',
    );
  });

  it('a lost race no other writer caused: a doomed compare-and-set before every command', () => {
    const out = plantedFails(
      [{ file: 'impl/persist/shard-writer.ts', from: 'metrics.c.consensusCommands += 1;', to: 'metrics.c.consensusCommands += 1; metrics.c.consensusCasFailed += 1; await consensus.compareAndSet(shardId, seqNo - 2, { seqNo: seqNo - 1, data });' }],
      ['--variant', 'off', '--runs', '20'],
      'cost-consensus.heads',
    );
    expect(out).toContain('[cost] cost-shardCasLost:');
  });

  it('state.bytes: an append with no batches records an empty batch instead of none', () => {
    plantedFails([{ file: 'impl/persist/shard-writer.ts', from: 'batch: batches.length === 0 ? null : {', to: 'batch: {' }], ['--variant', 'off', '--runs', '200'], 'cost-state.bytes');
  });

  it('mint.polls: the mint polls twice per wake-up', () => {
    plantedFails(
      [
        {
          file: 'impl/sink/mint.ts',
          from: '({ upper } = await r.deps.shard.fetchState());',
          to: "await r.deps.shard.fetchState(); await pointAt(r.deps.scheduler, 'mint.poll', r.where()); if (!mayPoll(r)) continue; r.deps.trace.emit({ kind: 'poll', replica: r.settings.replica, sharedId: (r.live as Description).sharedId }); ({ upper } = await r.deps.shard.fetchState());",
        },
      ],
      ['--variant', 'off', '--runs', '500'],
      'cost-mint.polls',
    );
  });

  it('points.mint.poll: the mint passes its point twice before a poll', () => {
    const poll = "await pointAt(r.deps.scheduler, 'mint.poll', r.where());";
    plantedFails([{ file: 'impl/sink/mint.ts', from: poll, to: `${poll} ${poll}` }], ['--variant', 'off', '--runs', '500'], 'cost-points.mint.poll');
  });

  it('points.builder.recv: a builder task passes its point twice per read', () => {
    const recv = "await pointAt(scheduler, 'builder.recv', where);";
    plantedFails([{ file: 'impl/shared/builder-task.ts', from: recv, to: `${recv} ${recv}` }], ['--variant', 'best-effort', '--runs', '300'], 'cost-points.builder.recv');
  });

  it('points.registry-lock: a builder() call passes its point once more after taking the lock', () => {
    const open = "await this.#acquire(() => pointAt(this.ctx.scheduler, 'shared.open', where), opts.worker);";
    plantedFails([{ file: 'impl/shared/shared-batches.ts', from: open, to: `${open} await pointAt(this.ctx.scheduler, 'shared.open', where);` }], ['--variant', 'best-effort', '--runs', '300'], 'cost-points.registry-lock');
  });

  it('points.barrier.wake: every woken barrier waiter passes the wake point, not only the deliverer', () => {
    plantedFails([{ file: 'impl/shared/handle.ts', from: 'if (barrier.deliverer === this.handleId) await pointAt', to: 'await pointAt' }], ['--variant', 'barrier', '--runs', '300'], 'cost-points.barrier.wake');
  });
});
