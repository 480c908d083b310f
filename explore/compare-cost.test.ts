/**
 * `sbkit compare`'s figures are among what the cost contract pins: for a seed, every case's blob PUTs,
 * blob bytes, consensus commands and state-diff bytes equal what the model predicts (model/cost.ts) for
 * that run's own trace — exactly, not within a bound: compare's runs have one replica and no faults,
 * where nothing the figures count is left to the schedule.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TraceEvent, Variant } from '../vocab/index.ts';
import { BlobClient } from '../impl/persist/blob-client.ts';
import type { Where } from '../impl/runtime/where.ts';
import { predictCost } from '../model/cost.ts';
import { casesFor } from './cases.ts';
import { prepareWorkload, runCase } from './experiment.ts';
import { modelConfigFor } from './model-agreement.ts';
import { VARIANTS } from './variants/index.ts';
import type { Setup } from './types.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const setup: Setup = { replicas: 1, processes: 2, workers: 4, intervals: 12, rows: 300, rowBytes: 100, threshold: 16 * 1024, seed: 7 };

describe("compare's figures against the model's cost of the same run", () => {
  it.each(casesFor('steady', VARIANTS, setup.threshold).map((c) => [c.variant, c]))('%s: PUTs, bytes, commands and state bytes as predicted', async (_, c) => {
    const workload = prepareWorkload(setup);
    const trace: TraceEvent[] = [];
    const figures = await runCase(setup, c, workload, undefined, (e) => trace.push(e));
    expect(figures.modelAgrees).toBe(true);
    const cfg = modelConfigFor(setup, c, workload);
    const { counters } = predictCost({ sinks: [cfg], cleanup: false }, trace, { shardCasLost: 0, storeCasLost: 0, bumpsLost: 0 });
    const pinned = { blobPuts: counters['blob.puts'], blobBytes: counters['blob.putBytes'], consensusCommands: counters['shard.cas'], stateDiffBytes: counters['state.bytes'] };
    for (const [figure, bound] of Object.entries(pinned)) {
      expect(bound.min, `${figure} is exact`).toBe(bound.max);
      expect(figures[figure as keyof typeof pinned], figure).toBe(bound.min);
    }
    expect(figures.blobPuts).toBeGreaterThan(0);
  });

  it('a PUT made twice shows as a figure the model does not predict', async () => {
    const set = BlobClient.prototype.set;
    vi.spyOn(BlobClient.prototype, 'set').mockImplementation(async function (this: BlobClient, key: string, bytes: Uint8Array, where: Where) {
      await set.call(this, key, bytes, where);
      await set.call(this, key, bytes, where);
    });
    const c = { variant: VARIANTS[0] as Variant, threshold: setup.threshold };
    const workload = prepareWorkload(setup);
    const trace: TraceEvent[] = [];
    const figures = await runCase(setup, c, workload, undefined, (e) => trace.push(e));
    const { counters } = predictCost({ sinks: [modelConfigFor(setup, c, workload)], cleanup: false }, trace, { shardCasLost: 0, storeCasLost: 0, bumpsLost: 0 });
    expect(figures.blobPuts).toBe(2 * counters['blob.puts'].max);
  });
});
