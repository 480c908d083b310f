/**
 * Supersede and the two sinks (vocab/PROTOCOL.md "The two sinks (v1, v2) and supersede").
 *
 * - supersede: with two replicas racing and free pacing, a replica's mint sees the shard's upper pass its
 *   live lower before that description's append began and mints a newer one from there; workers that had
 *   not staged the old one skip it (`superseded`, a skip under the barrier), its append worker deletes
 *   what was handed for it (`delete`, reason stale). Nothing is lost, duplicated or leaked.
 * - sink: 'v1' (the async sink) never uses SharedBatches: every worker writes its own batch, whatever the
 *   variant. A bad value is a typed error naming the field.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { isSbkitError } from '../errors.ts';
import { runSink, type RunConfig } from '../run.ts';
import { ofKind } from '../test-support/harness.ts';
import { settled, steppedRun } from '../test-support/run-harness.ts';
import { seeded, type Pick } from '../test-support/step-scheduler.ts';
import { perWorkerKinds } from '../test-support/trace-kinds.ts';
import { perWorker } from '../test-support/workloads.ts';

/** 2 replicas × 1 process × 2 workers, 4 intervals, data for both workers every interval, free pacing. */
function cfg(over: Partial<RunConfig> = {}): RunConfig {
  return {
    variant: 'barrier',
    replicas: 2,
    processes: 1,
    workersPerProcess: 2,
    intervals: 4,
    updates: perWorker(4, 2, [1, 1], 8),
    maxBytes: 1 << 20,
    pacing: 'free',
    ...over,
  };
}

/** Seeded, but replica 0's workers stage late (one worker of it is slow): what makes replica 1 overtake
 * replica 0 while replica 0's description is in flight. */
function slowStager(seed: number): Pick {
  const pick = seeded(seed);
  return (parked, step) => {
    const others = parked.flatMap((p, i) => (p.site.replica === 0 && p.site.worker === 1 && p.site.label === 'write.stage' ? [] : [i]));
    if (others.length === 0) return 0;
    return others[pick(others.map((i) => parked[i]!), step)]!;
  };
}

/** Mints while the replica's previous description was not appended yet (a supersede). */
function supersedes(events: readonly TraceEvent[]): number {
  const live = new Set<number>();
  let n = 0;
  for (const e of events) {
    if (e.kind === 'mint') {
      if (live.has(e.replica)) n += 1;
      live.add(e.replica);
    } else if (e.kind === 'append') live.delete(e.replica);
  }
  return n;
}

describe('supersede (both sinks)', () => {
  it.each(['off', 'best-effort', 'barrier'] as const)('%s: replicas overtaking each other supersede, skip and delete stale batches, and nothing is lost', async (variant) => {
    let superseded = 0;
    let skipsOnSupersede = 0;
    let stale = 0;
    let mints = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const run = await steppedRun(cfg({ variant }), slowStager(seed));
      const result = settled(run);
      expect(result.audit, `seed ${seed}`).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      mints += supersedes(run.events);
      for (const [k, kinds] of perWorkerKinds(run.events)) {
        if (!kinds.startsWith('superseded')) continue;
        superseded += 1;
        // a superseded worker writes nothing: [skip under the barrier], then an empty hand
        expect(kinds, `${k} (seed ${seed})`).toMatch(variant === 'barrier' ? /^superseded,skip,hand$/ : /^superseded,hand$/);
        if (kinds.includes('skip')) skipsOnSupersede += 1;
      }
      for (const d of ofKind(run.events, 'delete')) if (d.reason === 'stale') stale += d.batches;
      // a description superseded before its append is never appended by that replica
      for (const h of ofKind(run.events, 'hand')) {
        const k = `${h.replica}/${h.worker}/${h.sharedId}`;
        if (perWorkerKinds(run.events).get(k)?.startsWith('superseded')) expect(h.batches).toEqual([]);
      }
    }
    expect(mints).toBeGreaterThan(0);
    expect(superseded).toBeGreaterThan(0);
    expect(stale).toBeGreaterThan(0);
    if (variant === 'barrier') expect(skipsOnSupersede).toBeGreaterThan(0);
  });

  it('lockstep pacing never supersedes (a description spans one interval, so no upper lies strictly inside it)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const run = await steppedRun(cfg({ pacing: 'lockstep' }), seeded(seed));
      settled(run);
      expect(supersedes(run.events)).toBe(0);
      expect(ofKind(run.events, 'superseded')).toEqual([]);
    }
  });
});

describe("sink: 'v1' | 'v2'", () => {
  it("v1 never shares: every worker with data writes its own batch, whatever the variant", async () => {
    for (const variant of ['best-effort', 'barrier'] as const) {
      const run = await steppedRun(cfg({ variant, sink: 'v1', replicas: 1, pacing: 'lockstep' }), seeded(3));
      const result = settled(run);
      expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      expect(ofKind(run.events, 'open')).toEqual([]);
      expect(ofKind(run.events, 'skip')).toEqual([]);
      expect(ofKind(run.events, 'mint').every((m) => !m.desc.barrier)).toBe(true);
      const stages = ofKind(run.events, 'stage');
      expect(stages.length).toBeGreaterThan(0);
      expect(stages.every((s) => s.route === (s.updates.length > 0 ? 'own' : 'none'))).toBe(true);
    }
  });

  it('v2 (the default) shares as the variant says', async () => {
    const run = await steppedRun(cfg({ variant: 'best-effort', replicas: 1, pacing: 'lockstep' }), seeded(3));
    settled(run);
    expect(ofKind(run.events, 'open').length).toBeGreaterThan(0);
  });

  it('a bad sink is a typed error naming the field', async () => {
    await expect(runSink(cfg({ sink: 'v3' as 'v1' }))).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'invalid-config') && e.message === `sink must be one of 'v1', 'v2', got "v3"`,
    );
  });
});
