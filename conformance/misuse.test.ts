import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batch } from '../impl/persist/batch.ts';
import { BatchBuilder } from '../impl/persist/batch-builder.ts';
import { MemConsensus } from '../impl/persist/consensus.ts';
import { BarrierState } from '../impl/shared/barrier-state.ts';
import { SharedBatchHandle } from '../impl/shared/handle.ts';
import { SharedBatches } from '../impl/shared/shared-batches.ts';
import type { Update } from '../impl/update.ts';
import { runCheck } from './check.ts';
import { SCENARIOS, runScenario, type Scenario } from './misuse/index.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every refusal code a scenario's model predicts somewhere over `seeds` programs. */
async function sweep(scenario: Scenario, seeds: number): Promise<{ wrong: string[]; codes: string[] }> {
  const wrong: string[] = [];
  const codes = new Set<string>();
  for (let seed = 1; seed <= seeds; seed++) {
    const v = await runScenario(scenario, seed);
    wrong.push(...v.wrong.map((w) => `seed ${seed}: ${w}`));
    for (const code of Object.keys(v.refusals)) codes.add(code);
  }
  return { wrong, codes: [...codes].sort() };
}

describe('misuse: the model of use against the implementation', () => {
  // What each scenario must try (the vacuity side: a refusal the programs never ask for kills nothing).
  const EXPECTED: Record<Scenario, string[]> = {
    handles: ['conflicting-descriptions', 'finish-twice', 'invalid-config', 'invalid-workers', 'push-after-finish', 'push-in-flight', 'update-outside-description'],
    barrier: ['barrier-over-report', 'conflicting-descriptions', 'invalid-config', 'invalid-workers', 'push-after-finish'],
    builder: ['finish-twice', 'push-after-finish', 'update-outside-description'],
    batch: ['batch-consumed', 'invalid-append', 'storage-permanent'],
    stores: ['blob-key-exists', 'consensus-invariant'],
    registry: ['storage-permanent'],
    faults: ['storage-indeterminate', 'storage-permanent', 'storage-transient'],
    failing: ['builder-failed', 'storage-permanent'],
    reuse: [],
    ids: ['conflicting-descriptions', 'invalid-config', 'push-after-finish'],
    writers: [],
    claims: ['storage-permanent'],
  };

  it.each(SCENARIOS.map((s) => [s]))('%s: 150 random programs behave as the model predicts, every refusal tried', async (scenario) => {
    const { wrong, codes } = await sweep(scenario, 150);
    expect(wrong).toEqual([]);
    expect(codes).toEqual(EXPECTED[scenario]);
  });

  it('fails a handle whose second finish() returns null instead of refusing', async () => {
    const finish = SharedBatchHandle.prototype.finish;
    vi.spyOn(SharedBatchHandle.prototype, 'finish').mockImplementation(async function (this: SharedBatchHandle) {
      return this.state === 'open' ? finish.call(this) : null;
    });
    expect((await sweep('handles', 60)).wrong.join('\n')).toMatch(/finish\(\): expected finish-twice, but it succeeded/);
  });

  it('fails a batch builder that drops updates outside its range instead of refusing the add', async () => {
    const add = BatchBuilder.prototype.add;
    vi.spyOn(BatchBuilder.prototype, 'add').mockImplementation(function (this: BatchBuilder, us: readonly Update[]) {
      return add.call(this, us.filter((u) => u.time >= this.lower && u.time < this.upper));
    });
    expect((await sweep('builder', 60)).wrong.join('\n')).toMatch(/expected update-outside-description, but it succeeded/);
  });

  it('fails a registry that opens a barrier with a negative or NaN deadline instead of refusing it', async () => {
    const builder = SharedBatches.prototype.builder;
    vi.spyOn(SharedBatches.prototype, 'builder').mockImplementation(function (this: SharedBatches, id, range, opts) {
      const valid = opts.deadline === undefined || opts.deadline >= 0;
      return builder.call(this, id, range, valid ? opts : { ...opts, deadline: undefined });
    });
    expect((await sweep('barrier', 60)).wrong.join('\n')).toMatch(/deadline (-1|NaN)\): expected invalid-config, but it succeeded/);
  });

  it('fails a barrier that takes an arrival after it finalized as one more count', async () => {
    const arrive = BarrierState.prototype.arrive;
    vi.spyOn(BarrierState.prototype, 'arrive').mockImplementation(function (this: BarrierState, finisher: number | null) {
      try {
        return arrive.call(this, finisher);
      } catch {
        return false;
      }
    });
    // Both ways an arrival reaches the barrier: through the registry (a handle too many) and directly.
    const wrong = (await sweep('barrier', 60)).wrong.join('\n');
    expect(wrong).toMatch(/the extra handle finishes: expected barrier-over-report, but it succeeded/);
    expect(wrong).toMatch(/arrive\(.*\): expected barrier-over-report, but it succeeded/);
  });

  it('fails a barrier whose over-report message says finish for a skip', async () => {
    const arrive = BarrierState.prototype.arrive;
    vi.spyOn(BarrierState.prototype, 'arrive').mockImplementation(function (this: BarrierState, finisher: number | null) {
      return arrive.call(this, finisher === null ? -1 : finisher);
    });
    expect((await sweep('barrier', 60)).wrong.join('\n')).toMatch(/arrive\(a skip\): refused \(barrier-over-report\) but the message does not name "a skip arrived/);
  });

  it('fails a batch that stays owned after it was appended', async () => {
    vi.spyOn(Batch.prototype, 'markConsumed').mockImplementation(() => undefined);
    expect((await sweep('batch', 60)).wrong.join('\n')).toMatch(/status is "owned", the model says "consumed"/);
  });

  it('fails a batch builder whose compaction counts its part rewrites twice', async () => {
    const finish = BatchBuilder.prototype.finish;
    vi.spyOn(BatchBuilder.prototype, 'finish').mockImplementation(async function (this: BatchBuilder) {
      const c = (this as unknown as { writer: { metrics: { c: { compactionRewrites: number } } } }).writer.metrics.c;
      const rewrites = c.compactionRewrites;
      const batch = await finish.call(this);
      c.compactionRewrites += c.compactionRewrites - rewrites;
      return batch;
    });
    expect((await sweep('writers', 60)).wrong.join('\n')).toMatch(/w\d: the batch's runs and the part rewrites compacting them cost is \{"runs":\d+,"rewrites":\d+\}, the model says/);
  });

  it('fails a store that takes any sequence number', async () => {
    const cas = MemConsensus.prototype.compareAndSet;
    vi.spyOn(MemConsensus.prototype, 'compareAndSet').mockImplementation(function (this: MemConsensus, key, expected, next) {
      return cas.call(this, key, expected, { ...next, seqNo: expected === null ? 0 : expected + 1 });
    });
    expect((await sweep('stores', 20)).wrong.join('\n')).toMatch(/expected consensus-invariant, but it succeeded/);
  });

  it('sbkit check fails a batch builder that ignores add() after finish()', async () => {
    const clean = await runCheck({ variant: 'off', runs: 60, seed: 1, shrink: false });
    expect(clean.exitCode).toBe(0);
    const add = BatchBuilder.prototype.add;
    vi.spyOn(BatchBuilder.prototype, 'add').mockImplementation(async function (this: BatchBuilder, us: readonly Update[]) {
      await add.call(this, us).catch((e: unknown) => {
        if (!(e instanceof Error && /after finish/.test(e.message))) throw e;
      });
    });
    const broken = await runCheck({ variant: 'off', runs: 60, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/misuse-refused/);
    expect(broken.output).toMatch(/builder: add\(.*\): expected push-after-finish, but it succeeded/);
    expect(broken.token).toBeDefined();
  });
});
