/**
 * Runs under persist_batch_max_runs (persist/runs.ts): own batches compact their runs to the configured
 * limit, the shared builder ignores it (Materialize passes `None`), and the gallery bug that builds own
 * batches like the shared one.
 */
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { maxRunsLimit, runsOf } from '../persist/runs.ts';
import { Trace } from '../runtime/trace.ts';
import { runSink } from '../run.ts';
import { passThroughScheduler } from '../seams.ts';
import { sharedHarness, ofKind } from '../test-support/harness.ts';
import { perWorker, upd } from '../test-support/workloads.ts';
import type { TraceEvent } from '../../vocab/index.ts';

describe('persist_batch_max_runs', () => {
  it('below 2 is None (every part a run of its own); m ≥ 2 bounds the runs through the merge tree, counting the rewrites', () => {
    expect([0, 1, undefined].map(maxRunsLimit)).toEqual([null, null, null]);
    expect(maxRunsLimit(2)).toBe(2);
    expect(runsOf(5, null)).toEqual({ runs: 5, rewrites: 0 });
    expect(runsOf(2, 2)).toEqual({ runs: 2, rewrites: 0 }); // exactly max_len: the deepest level holds them
    expect(runsOf(3, 2)).toEqual({ runs: 2, rewrites: 2 }); // the first two merged into one run
    expect(runsOf(0, 2)).toEqual({ runs: 0, rewrites: 0 });
    for (let m = 2; m < 6; m++) for (let parts = 1; parts < 40; parts++) expect(runsOf(parts, m).runs).toBeLessThanOrEqual(m);
  });

  it('an own batch compacts to the configured limit; the shared builder keeps one run per part', async () => {
    const metrics = new MetricsRecorder();
    const config = resolvePersistConfig({ blobTargetSize: 1, maxRuns: 2 }); // every update a part
    const writer = { config, blob: new BlobClient(new MemBlob(), passThroughScheduler, metrics, 'r0', new Trace()), metrics, shardId: 's' };
    const own = new BatchBuilder(writer, 0, 1, { replica: 0 });
    await own.add([upd(0, 0), upd(1, 0), upd(2, 0), upd(3, 0), upd(4, 0)]);
    const batch = await own.finish();
    expect([batch.parts.length, batch.runs]).toEqual([5, 2]);
    expect(metrics.c.compactionRewrites).toBeGreaterThan(0);

    const h = sharedHarness({ persist: { blobTargetSize: 1, maxRuns: 2 } });
    const handle = await h.registry.builder(0, { lower: 0, upper: 1 }, { worker: 0 });
    await handle.push([upd(0, 0), upd(1, 0), upd(2, 0), upd(3, 0), upd(4, 0)]);
    const shared = await handle.finish();
    expect([shared?.parts.length, shared?.runs]).toEqual([5, 5]);
  });

  for (const bug of [false, true]) {
    it(`own-batch-ignores-max-runs ${bug ? 'on: own batches keep one run per part' : 'off: the append reports the compacted runs'}`, async () => {
      const events: TraceEvent[] = [];
      const r = await runSink({
        variant: 'off',
        replicas: 1,
        processes: 1,
        workersPerProcess: 2,
        intervals: 1,
        updates: perWorker(1, 2, [3, 1], 16),
        maxBytes: 0,
        persist: { blobTargetSize: 1, maxRuns: 2 },
        bugs: bug ? ['own-batch-ignores-max-runs'] : [],
        observer: { event: (e) => events.push(e) },
      });
      const [append] = ofKind(events, 'append');
      // worker 0: 3 parts → 2 runs when compacted; worker 1: 1 part, 1 run
      expect(append?.parts).toEqual({ hollow: 0, inline: 4 });
      expect(append?.runs).toBe(bug ? 4 : 3);
      expect(r.metrics.runsAppended).toBe(bug ? 4 : 3);
      expect(r.audit.lost).toBe(0);
    });
  }
});
