/**
 * The executable arguments mutation/evidence.ts cites for surviving mutants judged equivalent: each test
 * shows, for every input the check can give, that the mutated branch is never taken or that taking it
 * changes no output. (The arguments that need the check's whole budget instrumented are in
 * mutation/probes.deep.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SharingPolicy } from '../variants/index.ts';
import type { PointSite, Scheduler } from '../seams.ts';
import { BugSwitches } from '../bugs.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { ShardWriter } from '../persist/shard-writer.ts';
import { Trace } from '../runtime/trace.ts';
import { passThroughScheduler } from '../seams.ts';
import { ReplicaState, type SinkDeps, type SinkSettings } from '../sink/replica-state.ts';
import { sharedHarness } from '../test-support/harness.ts';
import { upd } from '../test-support/workloads.ts';
import type { Update } from '../update.ts';

/** A replica's state with only what `staged` reads: its settings and one worker's updates (no registries). */
function replica(updates: readonly Update[], settings: { startLower: number; restarted: boolean }, bugs: BugSwitches = BugSwitches.none): ReplicaState {
  const s = { replica: 0, processes: 1, workersPerProcess: 1, intervals: 8, policy: {} as SharingPolicy, ...settings } as unknown as SinkSettings;
  const deps = { bugs, registries: [], writer: {}, trace: new Trace(), shard: { shardId: 's' } } as unknown as SinkDeps;
  return new ReplicaState(s, deps, [updates]);
}

/** One worker's updates as the sink hands them to ReplicaState: ascending by (time, id), ids unique. */
const updatesArb = fc
  .uniqueArray(fc.record({ id: fc.nat({ max: 60 }), time: fc.nat({ max: 7 }) }), { selector: (u) => u.id, maxLength: 30 })
  .map((us) => us.map((u) => upd(u.id, u.time)).sort((a, b) => a.time - b.time || a.id - b.id));

describe("a worker's corrections (ReplicaState.staged) with every bug switch off", () => {
  it('are the updates with lower ≤ time < upper, the very objects handed in, ascending by id, whatever the restart', () => {
    fc.assert(
      fc.property(updatesArb, fc.nat({ max: 7 }), fc.integer({ min: 1, max: 8 }), fc.nat({ max: 7 }), fc.boolean(), (updates, lower, width, startLower, restarted) => {
        const upper = lower + width;
        const expected = updates.filter((u) => u.time >= lower && u.time < upper).sort((a, b) => a.id - b.id);
        for (const r of [replica(updates, { startLower, restarted }), replica(updates, { startLower: lower, restarted: true })]) {
          const staged = r.staged(0, lower, upper);
          expect(staged).toEqual(expected);
          // The same objects: the arm that advances an update's time to `lower` (`u.time < lower`) was
          // never taken — the slice starts at `lower` — so forcing it false changes nothing; and as
          // `u.time <= lower` it would copy an update at `lower` into an equal one.
          for (const u of staged) {
            expect(updates).toContain(u);
            if (u.time <= lower) expect({ ...u, time: lower }).toEqual(u);
          }
        }
      }),
      { seed: 1, numRuns: 500 },
    );
  });

  it("of one time are in id order before any sort: sorting them (as `upper - from > 1` forced true would) is the identity", () => {
    fc.assert(
      fc.property(updatesArb, fc.nat({ max: 7 }), fc.boolean(), (updates, lower, restarted) => {
        const staged = replica(updates, { startLower: lower, restarted }).staged(0, lower, lower + 1);
        // The input order of the updates at `lower` (ascending by (time, id): by id within one time).
        expect(staged).toEqual(updates.filter((u) => u.time === lower));
        expect([...staged].sort((a, b) => a.id - b.id)).toEqual(staged);
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it('with restart-rewrites-appended-interval on, those of one time from 0 are in id order too (the sort condition matters only across times)', () => {
    fc.assert(
      fc.property(updatesArb, (updates) => {
        // The bug's first description after a restart at 0 stages from 0: [0, 1) spans one time.
        const staged = replica(updates, { startLower: 0, restarted: true }, new BugSwitches(['restart-rewrites-appended-interval'])).staged(0, 0, 1);
        expect(staged).toEqual(updates.filter((u) => u.time === 0));
        expect([...staged].sort((a, b) => a.id - b.id)).toEqual(staged);
      }),
      { seed: 1, numRuns: 200 },
    );
  });
});

/** A scheduler that records every point it passes. */
function recording(): Scheduler & { readonly sites: PointSite[] } {
  const sites: PointSite[] = [];
  return { sites, point: (site) => (sites.push(site), Promise.resolve()) };
}

describe('an empty push on an open handle', () => {
  it('passes no point, emits nothing, sends nothing to the builder task and changes nothing: the builder task never sees an empty chunk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), async (plan) => {
        const scheduler = recording();
        const h = sharedHarness({ scheduler });
        const handle = await h.registry.builder(1, { lower: 0, upper: 2 }, { worker: 0 });
        const pushed: number[] = [];
        let id = 1;
        for (const nonEmpty of plan) {
          // (the builder task runs beside the handle: its own points and events are not the push's)
          const mine = () => ({ points: scheduler.sites.filter((s) => s.label.startsWith('shared.')).length, events: h.events.filter((e) => e.kind === 'push').length });
          const before = mine();
          if (nonEmpty) {
            await handle.push([upd(id, id % 2)]);
            pushed.push(id++);
          } else {
            await handle.push([]);
            expect(mine()).toEqual(before);
            expect(handle.state).toBe('open');
          }
        }
        const batch = await handle.finish();
        await h.tasks.whenAllDone();
        // Every chunk the builder task received was one of the non-empty pushes, in order.
        expect(batch?.updateIds ?? []).toEqual(pushed);
        expect(h.events.filter((e) => e.kind === 'push')).toHaveLength(pushed.length);
      }),
      { seed: 1, numRuns: 60 },
    );
  });
});

describe('a refused compare-and-append', () => {
  it('reports a current upper other than the expected one (never equal: `current >= lower` and `current > lower` agree on every refusal)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ writer: fc.nat({ max: 1 }), expected: fc.nat({ max: 6 }), width: fc.integer({ min: 1, max: 2 }) }), { maxLength: 12 }), async (calls) => {
        const consensus = new MemConsensus();
        const config = resolvePersistConfig({});
        const writers = [0, 1].map((replica) => {
          const metrics = new MetricsRecorder();
          const blob = new BlobClient(new MemBlob(), passThroughScheduler, metrics, `w${replica}`, new Trace());
          return {
            writer: { config, blob, metrics, shardId: 's' },
            shard: new ShardWriter({ shardId: 's', consensus, blob, scheduler: passThroughScheduler, metrics, config, where: { replica }, trace: new Trace(), bugs: BugSwitches.none }),
          };
        });
        for (const c of calls) {
          const w = writers[c.writer] as (typeof writers)[0];
          const b = new BatchBuilder(w.writer, c.expected, c.expected + c.width, { replica: c.writer });
          await b.add([upd(1, c.expected)]);
          const batch = await b.finish();
          const result = await w.shard.compareAndAppend([batch], c.expected, c.expected + c.width);
          if (result.kind === 'upper-mismatch') {
            expect(result.current).not.toBe(c.expected);
            expect(result.expected).toBe(c.expected);
          }
        }
      }),
      { seed: 1, numRuns: 100 },
    );
  });
});
