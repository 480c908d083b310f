/**
 * The no-data policy (RunConfig.noData): what a worker with no updates for a shared description does.
 * 'skip' (the default): nothing (route none; under the barrier it reports a skip). 'finish': it opens a
 * handle on the description's shared id and finishes it without pushing (route empty), as #37591's doc
 * asks ("all workers must call finish even if they did not push").
 */
import { describe, expect, it } from 'vitest';
import { BugSwitches } from '../bugs.ts';
import { isSbkitError } from '../errors.ts';
import { runSink, type RunConfig } from '../run.ts';
import { decideRoute } from '../sink/route.ts';
import { sharingPolicy } from '../variants/index.ts';
import { ofKind } from '../test-support/harness.ts';
import { settled, steppedRun } from '../test-support/run-harness.ts';
import { seeded } from '../test-support/step-scheduler.ts';
import { perWorkerKinds } from '../test-support/trace-kinds.ts';
import { perWorker } from '../test-support/workloads.ts';

const none = BugSwitches.none;

/** 2 processes × 2 workers: worker 0 has data every interval, workers 1–3 none (process 1 has none at all). */
function cfg(over: Partial<RunConfig> = {}): RunConfig {
  return { variant: 'barrier', replicas: 1, processes: 2, workersPerProcess: 2, intervals: 3, updates: perWorker(3, 4, [2, 0, 0, 0], 8), maxBytes: 1 << 20, ...over };
}

describe('routing with the no-data policy', () => {
  it("'finish' routes a worker with no data empty only while the description is shared", () => {
    expect(decideRoute(sharingPolicy('best-effort'), 100, 0, 0, none, 'finish')).toBe('empty');
    expect(decideRoute(sharingPolicy('barrier'), 100, 0, 0, none, 'finish')).toBe('empty');
    expect(decideRoute(sharingPolicy('barrier'), 0, 0, 0, none, 'finish')).toBe('none'); // maxBytes = 0: not shared
    expect(decideRoute(sharingPolicy('off'), 100, 0, 0, none, 'finish')).toBe('none');
    expect(decideRoute(sharingPolicy('best-effort'), 100, 0, 0, none, 'skip')).toBe('none');
    expect(decideRoute(sharingPolicy('best-effort'), 100, 0, 0, none)).toBe('none'); // the default is 'skip'
    // a worker with data routes as before
    expect(decideRoute(sharingPolicy('best-effort'), 100, 2, 99, none, 'finish')).toBe('shared');
    expect(decideRoute(sharingPolicy('best-effort'), 100, 2, 100, none, 'finish')).toBe('own');
  });

  it('a bad policy is a typed error naming the field', async () => {
    await expect(runSink(cfg({ noData: 'maybe' as 'skip' }))).rejects.toSatisfy(
      (e: unknown) => isSbkitError(e, 'invalid-config') && e.message === `noData must be one of 'skip', 'finish', got "maybe"`,
    );
  });
});

describe("noData = 'finish'", () => {
  it("the default is 'finish' under the barrier and 'skip' otherwise: the same trace, event for event, as naming it", async () => {
    for (const [variant, policy] of [['best-effort', 'skip'], ['barrier', 'finish']] as const) {
      const implicit = await steppedRun(cfg({ variant }), seeded(3));
      const explicit = await steppedRun(cfg({ variant, noData: policy }), seeded(3));
      expect(JSON.stringify(explicit.events)).toBe(JSON.stringify(implicit.events));
      expect(ofKind(implicit.events, 'stage').some((s) => s.route === 'empty')).toBe(policy === 'finish');
    }
  });

  it('best-effort: a worker with no data opens, finishes without a push and hands what it got; nothing is lost or leaked', async () => {
    let emptyReceivers = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const run = await steppedRun(cfg({ variant: 'best-effort', noData: 'finish', pushChunkUpdates: 1 }), seeded(seed));
      const result = settled(run);
      expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      expect(result.metrics.batchesOrphaned).toBe(0);
      const empty = ofKind(run.events, 'stage').filter((s) => s.updates.length === 0);
      expect(empty.length).toBe(3 * 3);
      for (const s of empty) {
        expect(s.route).toBe('empty');
        expect(perWorkerKinds(run.events).get(`${s.replica}/${s.worker}/${s.sharedId}`)).toBe('stage,open,finish-begin,finish-end,hand');
      }
      expect(ofKind(run.events, 'open').find((o) => o.worker !== 0)?.participants).toBeNull();
      // An empty handle that dropped the last reference of worker 0's instance receives its batch and hands it.
      for (const f of ofKind(run.events, 'finish-end')) {
        if (f.worker === 1 && f.received !== null) {
          emptyReceivers += 1;
          expect(ofKind(run.events, 'hand').find((h) => h.worker === 1 && h.sharedId === f.sharedId)?.batches).toEqual([f.received]);
        }
      }
    }
    expect(emptyReceivers).toBeGreaterThan(0);
  });

  it('barrier: no skip is reported; an empty finisher can be the deliverer and hands the shared batch; one batch per process with data', async () => {
    let emptyDeliverers = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const run = await steppedRun(cfg({ noData: 'finish' }), seeded(seed));
      const result = settled(run);
      expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      expect(ofKind(run.events, 'skip')).toEqual([]);
      expect(ofKind(run.events, 'open').every((o) => o.participants === 2)).toBe(true);
      const routes = new Map(ofKind(run.events, 'stage').map((s) => [`${s.worker}/${s.sharedId}`, s.route]));
      for (const f of ofKind(run.events, 'finish-end')) {
        if (f.received !== null && routes.get(`${f.worker}/${f.sharedId}`) === 'empty') {
          emptyDeliverers += 1;
          const hand = ofKind(run.events, 'hand').find((h) => h.worker === f.worker && h.sharedId === f.sharedId);
          expect(hand?.batches).toEqual([f.received]);
        }
      }
      // Process 1 has no data: its empty finishes deliver nothing; process 0's one shared batch is appended.
      for (const a of ofKind(run.events, 'append')) expect(a).toMatchObject({ batches: 1, result: { ok: true } });
      expect(ofKind(run.events, 'finish-end').filter((f) => f.worker >= 2).every((f) => f.received === null)).toBe(true);
    }
    expect(emptyDeliverers).toBeGreaterThan(0);
  });

  it("barrier with 'skip': the same workload reports skips instead and opens no handle for the empty workers", async () => {
    const run = await steppedRun(cfg({ noData: 'skip' }), seeded(1));
    expect(settled(run).audit.lost).toBe(0);
    expect(ofKind(run.events, 'skip').length).toBe(3 * 3);
    expect(ofKind(run.events, 'open').every((o) => o.worker === 0)).toBe(true);
  });
});
