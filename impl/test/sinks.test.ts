/**
 * Several MV sinks in one run (RunConfig.sinks, impl/sinks.ts): own shards, own blobs, own events; the
 * replica's registries shared; and the gallery bug that keys them by id alone.
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

  it('registry-keyed-by-id: with descriptions alike, one sink joins the other sink\'s builder and its updates land in the wrong shard', async () => {
    const clean = await runSink(cfg());
    expect(clean.bySink.map((s) => s.audit.lost + s.audit.duplicated)).toEqual([0, 0]);
    let outcome: string;
    try {
      const r = await runSink(cfg({ bugs: ['registry-keyed-by-id'] }));
      outcome = r.bySink.map((s) => `lost ${s.audit.lost} dup ${s.audit.duplicated} dangling ${s.audit.danglingKeys.length}`).join('; ');
    } catch (e) {
      outcome = isSbkitError(e, 'conflicting-descriptions') ? 'conflicting-descriptions' : String(e);
    }
    // Both sinks mint [0, 1) with id 0 and [1, 2) with id 1: each id is shared, so one sink's updates
    // are lost from its shard and appear (foreign) in the other's.
    expect(outcome).toMatch(/lost [1-9]/);
    expect(outcome).toMatch(/dup [1-9]/);
  });
});
