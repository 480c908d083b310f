/**
 * Several MV sinks in one run (RunConfig.sinks, impl/sinks.ts): own shards, own blobs, own events; the
 * replica's registries shared, keyed by batch ids no two sinks share; and the gallery bug whose ids collide.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { isSbkitError } from '../errors.ts';
import { MemBlob } from '../persist/blob.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { loadShardState } from '../persist/state.ts';
import { resolveRunConfig } from '../run-config.ts';
import { runSink, type RunConfig } from '../run.ts';
import { PrefixedBlob } from '../sinks.ts';
import { perWorker } from '../test-support/workloads.ts';
import type { Update } from '../update.ts';

/** Sink 1's updates: sink 0's shape, other keys and ids (no update of one sink equals one of the other's). */
const other = (updates: readonly Update[]): Update[] => updates.map((u) => ({ ...u, id: u.id + 1000, key: `s1-${u.key}` }));

function cfg(over: Partial<RunConfig> = {}): RunConfig {
  const updates = perWorker(2, 2, [2, 2], 3000); // hollow parts: blobs to see
  return { variant: 'best-effort', replicas: 1, processes: 1, workersPerProcess: 2, intervals: 2, updates, maxBytes: 1 << 20, sinks: 2, sinkUpdates: [other(updates)], ...over };
}

describe('several MV sinks', () => {
  it('refuses a bad sinks or sinkUpdates with a typed error naming it', () => {
    for (const sinks of [0, 5, 1.5, '2' as unknown as number]) {
      expect(() => resolveRunConfig(cfg({ sinks }))).toThrow(expect.objectContaining({ code: 'invalid-config', message: expect.stringContaining('sinks must be an integer in [1, 4]') }));
    }
    expect(() => resolveRunConfig(cfg({ sinks: 3 }))).toThrow(/sinkUpdates must list the updates of sinks 1 … 2 \(2 lists\)/);
    expect(() => resolveRunConfig(cfg({ sinkUpdates: [[{ id: 0, key: 'k', value: new Uint8Array(1), time: 9, diff: 1 }]] }))).toThrow(
      expect.objectContaining({ code: 'update-outside-description' }),
    );
    // Without sinkUpdates every sink desires the run's updates.
    expect(resolveRunConfig(cfg({ sinks: 3, sinkUpdates: undefined })).updatesBySink).toHaveLength(3);
  });

  it('each sink writes its own shard and blobs, and traces its own events; one sweep serves both', async () => {
    const trace: TraceEvent[] = [];
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const r = await runSink(cfg({ blob, consensus, observer: { event: (e) => trace.push(e) } }));
    expect(r.bySink).toHaveLength(2);
    for (const s of r.bySink) expect([s.audit.lost, s.audit.duplicated, s.audit.leakedBlobs, s.upper]).toEqual([0, 0, 0, 2]);
    expect(r.audit).toBe(r.bySink[0]?.audit);
    expect((await loadShardState(consensus, 'mv-sink-shard/s1')).upper).toBe(2);
    // Every blob under its sink's prefix.
    const keys = await blob.list();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith('s0/') || k.startsWith('s1/'))).toBe(true);
    expect(await new PrefixedBlob(blob, 's1/').list()).toEqual(keys.filter((k) => k.startsWith('s1/')).map((k) => k.slice(3)));
    // Sink 1's events say so; sink 0's carry no sink field; a sweep lists both sinks.
    const mints = trace.filter((e) => e.kind === 'mint');
    expect(mints.filter((e) => e.sink === 1)).toHaveLength(2);
    expect(mints.filter((e) => !('sink' in e))).toHaveLength(2);
    expect(trace.filter((e) => e.sink === 1 && e.kind === 'append')).toHaveLength(2);
    expect(trace.filter((e) => e.sink === undefined && e.kind === 'append')).toHaveLength(2);
    const sweeps = trace.filter((e) => e.kind === 'sweep');
    expect(sweeps.length).toBeGreaterThan(0);
    for (const sw of sweeps) expect(sw.kind === 'sweep' && sw.sinks?.map((x) => x.sink)).toEqual([0, 1]);
    // Sink 1's shared batches were built by builders of the shared registry, writing sink 1's shard.
    expect(trace.some((e) => e.kind === 'open' && e.sink === 1 && e.created)).toBe(true);
  });

  it('a one-sink run has one bySink entry equal to its own fields, and unprefixed blobs', async () => {
    const blob = new MemBlob();
    const r = await runSink(cfg({ sinks: 1, sinkUpdates: undefined, blob }));
    expect(r.bySink).toEqual([{ audit: r.audit, upper: r.upper, leaks: r.leaks }]);
    expect((await blob.list()).every((k) => k.startsWith('w'))).toBe(true);
  });

  it('batch ids are namespaced by the sink\'s shard: two sinks minting the same sequence numbers never share an entry', async () => {
    const trace: TraceEvent[] = [];
    await runSink(cfg({ observer: { event: (e) => trace.push(e) } }));
    // Both sinks mint ids 0 and 1; every open of each sink creates its own entry or joins its own sink's.
    const opens = trace.filter((e) => e.kind === 'open');
    for (const sink of [undefined, 1]) {
      const mine = opens.filter((e) => e.sink === sink);
      expect(mine.filter((e) => e.kind === 'open' && e.created).map((e) => e.kind === 'open' && e.sharedId)).toEqual([0, 1]);
    }
  });

  it('batch-ids-collide-across-sinks: with bare sequence numbers one sink finds the other\'s live entry and the description check refuses it', async () => {
    const clean = await runSink(cfg());
    expect(clean.bySink.map((s) => s.audit.lost + s.audit.duplicated)).toEqual([0, 0]);
    // Both sinks mint [0, 1) with id 0 and [1, 2) with id 1: the second sink's builder(0) finds the first
    // sink's live entry for another shard — Materialize's assert_eq! on {shard_id, lower, upper}.
    await expect(runSink(cfg({ bugs: ['batch-ids-collide-across-sinks'] }))).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'conflicting-descriptions') && /shard mv-sink-shard.*shard mv-sink-shard\/s1|shard mv-sink-shard\/s1.*shard mv-sink-shard/.test(e.message),
    );
  });
});
