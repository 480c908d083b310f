import { describe, expect, it } from 'vitest';
import { Notify } from '../runtime/notify.ts';
import type { TraceEvent } from '../../vocab/index.ts';
import { BugSwitches } from '../bugs.ts';
import { isSbkitError, type SbkitErrorCode } from '../errors.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { ShardWriter } from '../persist/shard-writer.ts';
import { TaskGroup } from '../runtime/task-group.ts';
import { Trace } from '../runtime/trace.ts';
import { runSink, type RunConfig } from '../run.ts';
import { passThroughScheduler } from '../seams.ts';
import { runAppender } from '../sink/append.ts';
import { ReplicaState } from '../sink/replica-state.ts';
import { decideRoute, readMaxBytes } from '../sink/route.ts';
import { sharingPolicy } from '../variants/index.ts';
import { ofKind } from '../test-support/harness.ts';
import { recordRun, settled, steppedRun } from '../test-support/run-harness.ts';
import { seeded } from '../test-support/step-scheduler.ts';
import { perWorker, upd, uniform } from '../test-support/workloads.ts';

const none = BugSwitches.none;

function cfg(over: Partial<RunConfig> = {}): RunConfig {
  return { variant: 'best-effort', replicas: 1, processes: 1, workersPerProcess: 2, intervals: 2, updates: perWorker(2, 2, [2, 2], 8), maxBytes: 1 << 20, ...over };
}

async function rejectsWith(config: RunConfig, code: SbkitErrorCode, message?: string): Promise<void> {
  await expect(runSink(config)).rejects.toSatisfy((e: unknown) => isSbkitError(e, code) && (message === undefined || e.message === message));
}

describe('routing', () => {
  it('follows PROTOCOL.md: none / shared below the threshold (strict) / own', () => {
    expect(decideRoute(sharingPolicy('best-effort'), 100, 0, 0, none)).toBe('none');
    expect(decideRoute(sharingPolicy('best-effort'), 100, 3, 99, none)).toBe('shared');
    expect(decideRoute(sharingPolicy('barrier'), 100, 3, 100, none)).toBe('own');
    expect(decideRoute(sharingPolicy('barrier'), 0, 3, 1, none)).toBe('own'); // maxBytes = 0: never shared
    expect(decideRoute(sharingPolicy('off'), 100, 3, 1, none)).toBe('own');
  });

  it('reads the knob once per description and validates it', () => {
    expect(readMaxBytes(5, { replica: 0, lower: 0, seq: 0, desired: 1 })).toBe(5);
    expect(readMaxBytes(({ seq }) => seq * 10, { replica: 0, lower: 0, seq: 3, desired: 1 })).toBe(30);
    expect(() => readMaxBytes(() => -2, { replica: 1, lower: 4, seq: 3, desired: 5 })).toThrow(
      'maxBytes (read for replica 1, description 3) must be a non-negative integer, got -2',
    );
  });
});

describe('bad input is a typed error naming the problem', () => {
  it('maxBytes negative, NaN, fractional or not a number', async () => {
    await rejectsWith(cfg({ maxBytes: -1 }), 'invalid-max-bytes', 'maxBytes must be a non-negative integer, got -1');
    await rejectsWith(cfg({ maxBytes: Number.NaN }), 'invalid-max-bytes', 'maxBytes must be a non-negative integer, got NaN');
    await rejectsWith(cfg({ maxBytes: 1.5 }), 'invalid-max-bytes');
    await rejectsWith(cfg({ maxBytes: 'big' as unknown as number }), 'invalid-max-bytes');
    // A knob that goes bad mid-run fails the run at that mint, not silently.
    await rejectsWith(cfg({ maxBytes: ({ seq }) => (seq === 1 ? -5 : 100) }), 'invalid-max-bytes');
  });

  it('fewer than one worker or process; other malformed fields', async () => {
    await rejectsWith(cfg({ workersPerProcess: 0 }), 'invalid-workers', 'workersPerProcess must be an integer ≥ 1, got 0');
    await rejectsWith(cfg({ processes: 0 }), 'invalid-workers');
    await rejectsWith(cfg({ replicas: 0 }), 'invalid-workers');
    await rejectsWith(cfg({ intervals: -1 }), 'invalid-config');
    await rejectsWith(cfg({ variant: 'sometimes' as 'off' }), 'invalid-config');
    await rejectsWith(cfg({ pushChunkUpdates: 0 }), 'invalid-config');
    await rejectsWith(cfg({ pacing: 'fast' as 'free' }), 'invalid-config');
    await rejectsWith(cfg({ bugs: ['nope' as 'threshold-inclusive'] }), 'unknown-bug');
    await rejectsWith(cfg({ persist: { blobTargetSize: 0 } }), 'invalid-config');
    await rejectsWith(cfg({ updates: 'x' as unknown as [] }), 'invalid-config');
    await rejectsWith(cfg({ barrier: 'yes' as unknown as boolean }), 'invalid-config', 'barrier must be a boolean or a function, got "yes"');
    await rejectsWith(cfg({ variant: 'barrier', barrier: () => 1 as unknown as boolean }), 'invalid-config', 'barrier flag (read for replica 0, description 0) must be a boolean, got 1');
  });

  it('malformed updates, and an update outside [asOf, K)', async () => {
    await rejectsWith(cfg({ updates: [upd(1, 0), upd(1, 1)] }), 'invalid-config', 'update id 1 appears twice');
    await rejectsWith(cfg({ updates: [{ ...upd(1, 0), key: 3 as unknown as string }] }), 'invalid-config');
    await rejectsWith(cfg({ updates: [{ ...upd(1, 0), value: [1] as unknown as Uint8Array }] }), 'invalid-config');
    await rejectsWith(cfg({ updates: [{ ...upd(1, 0), diff: 0.5 }] }), 'invalid-config');
    await rejectsWith(cfg({ updates: [upd(1, 2)] }), 'update-outside-description', 'update 1 has time 2, outside [0, 2) (asOf, intervals)');
    await rejectsWith(cfg({ asOf: 1, updates: [upd(1, 0)] }), 'update-outside-description', 'update 1 has time 0, outside [1, 2) (asOf, intervals)');
    await rejectsWith(cfg({ asOf: 2 }), 'invalid-config', 'asOf must be below intervals (2), got 2');
  });
});

describe('runSink', () => {
  it('with no intervals finishes at once', async () => {
    const { result, events } = await recordRun(cfg({ intervals: 0, updates: [] }));
    expect(result.upper).toBe(0);
    expect(events).toEqual([]);
  });

  it('reads maxBytes per interval: a change takes effect at the next description without a rebuild', async () => {
    const updates = uniform(4, 20, 8);
    const { result, events } = await recordRun(cfg({ intervals: 4, updates, maxBytes: ({ seq }) => (seq < 2 ? 0 : 1 << 20) }));
    expect(ofKind(events, 'mint').map((m) => m.desc.maxBytes)).toEqual([0, 0, 1 << 20, 1 << 20]);
    const routes = (sharedId: number) => new Set(ofKind(events, 'stage').filter((s) => s.sharedId === sharedId).map((s) => s.route));
    expect([...routes(1)]).toEqual(['own']);
    expect([...routes(2)]).toEqual(['shared']);
    expect(result.audit.lost).toBe(0);
  });

  it("mints strictly increasing lowers, round-robin append workers and fresh shared ids; 'free' pacing may span steps", async () => {
    const run = await steppedRun(cfg({ workersPerProcess: 3, intervals: 6, updates: uniform(6, 10, 8), pacing: 'free' }), seeded(11));
    const mints = ofKind(run.events, 'mint').map((m) => m.desc);
    mints.forEach((d, seq) => {
      expect(d.sharedId).toBe(seq);
      expect(d.appendWorker).toBe(seq % 3);
      expect(d.lower).toBeLessThan(d.upper);
      if (seq > 0) expect(d.lower).toBe(mints[seq - 1]?.upper);
    });
    expect(mints.length).toBeLessThan(6); // the input ran ahead of the sink at least once
    expect(settled(run).audit.lost).toBe(0);
  });

  it('every event is emitted in its own scheduling step, and each worker follows the protocol order', async () => {
    for (const variant of ['off', 'best-effort', 'barrier'] as const) {
      const updates = perWorker(4, 4, [3, 0, 2, 40], 8);
      const run = await steppedRun(
        cfg({ variant, processes: 2, workersPerProcess: 2, intervals: 4, updates, maxBytes: 400, pushChunkUpdates: 1, replicas: 2 }),
        seeded(5),
      );
      expect(settled(run).audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      expect(new Set(run.eventSteps).size).toBe(run.eventSteps.length);
      checkWorkerOrder(run.events, variant === 'barrier');
    }
  });
});

/** PROTOCOL.md "Per worker, for the live description, in this order". */
function checkWorkerOrder(events: readonly TraceEvent[], barrier: boolean): void {
  const seqs = new Map<string, string[]>();
  for (const e of events) {
    if (!('worker' in e) || !('sharedId' in e)) continue;
    const k = `${e.replica}/${e.worker}/${e.sharedId}`;
    seqs.set(k, [...(seqs.get(k) ?? []), e.kind]);
  }
  const shared = /^stage,open(,push)+,finish-begin,finish-end,hand$/;
  // no data under the barrier: the default no-data policy finishes an empty handle (route `empty`)
  const empty = barrier ? /^stage,open,finish-begin,finish-end,hand$/ : /^$/;
  const own = barrier ? /^stage,(skip,)?own-batch,hand$/ : /^stage,own-batch,hand$/;
  const none = barrier ? /^stage,(skip,)?hand$/ : /^stage,hand$/;
  for (const [k, kinds] of seqs) {
    const s = kinds.join(',');
    expect(shared.test(s) || empty.test(s) || own.test(s) || none.test(s), `${k}: ${s}`).toBe(true);
  }
}

describe('append operator edge paths (unreachable in the sink flow; PROTOCOL.md "Bump")', () => {
  function replica(shardUpper: number) {
    const metrics = new MetricsRecorder();
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const client = new BlobClient(blob, passThroughScheduler, metrics, 'r0', new Trace());
    const config = resolvePersistConfig({ inlineSingleMaxBytes: 0 });
    const shard = new ShardWriter({ shardId: 's', consensus, blob: client, scheduler: passThroughScheduler, metrics, config, where: { replica: 0 }, trace: new Trace(), bugs: BugSwitches.none });
    const events: TraceEvent[] = [];
    const tasks = new TaskGroup();
    const writer = { config, blob: client, metrics, shardId: 's' };
    const r = new ReplicaState(
      { replica: 0, policy: sharingPolicy('off'), processes: 1, workersPerProcess: 1, intervals: 10, maxBytes: 0, barrier: false, pushChunkUpdates: 1, noData: 'skip', pacing: 'lockstep', startLower: 0, restarted: false },
      { scheduler: passThroughScheduler, trace: new Trace({ event: (e) => events.push(e) }), bugs: BugSwitches.none, metrics, spawn: tasks.spawn, shard, writer, shardMoved: new Notify() },
      [[]],
    );
    const batch = async (lower: number, upper: number) => {
      const b = new BatchBuilder(writer, lower, upper, { replica: 0 });
      await b.add([upd(lower, lower)]);
      return b.finish();
    };
    return { r, metrics, blob, shard, events, batch, shardUpper, consensus };
  }

  it('current < lower: bumps the shard to lower with an empty append, then appends', async () => {
    const x = replica(0);
    const desc = { lower: 3, upper: 5, appendWorker: 0, sharedId: 0, maxBytes: 0, barrier: false };
    const b = await x.batch(3, 5);
    const task = runAppender(x.r, 0);
    x.r.live = desc;
    x.r.appendQueues[0]?.send(desc);
    x.r.inboxes[0]?.send({ desc, worker: 0, batches: [b] });
    await new Promise((res) => setImmediate(res));
    x.r.closeQueues();
    await task;
    expect(x.metrics.c).toMatchObject({ bumps: 1, appends: 1, appendAttempts: 3, consensusCommands: 2 });
    expect(x.r.lower).toBe(5);
    expect(ofKind(x.events, 'append')).toEqual([expect.objectContaining({ lower: 3, upper: 5, batches: 1, result: { ok: true } })]);
  });

  it('a superseded description: what was handed for it is deleted (reason stale), the live one is appended', async () => {
    const x = replica(0);
    const passed = { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 0, barrier: false };
    const current = { lower: 1, upper: 2, appendWorker: 0, sharedId: 1, maxBytes: 0, barrier: false };
    await x.shard.compareAndAppend([], 0, 1); // another writer passed the old lower
    const stale = await x.batch(0, 1);
    const task = runAppender(x.r, 0);
    // what mint.ts's supersede leaves: the old description pending, lower at the shard's upper, a newer one live
    x.r.superseded = passed;
    x.r.lower = 1;
    x.r.live = current;
    x.r.appendQueues[0]?.send(passed);
    x.r.appendQueues[0]?.send(current);
    x.r.inboxes[0]?.send({ desc: current, worker: 0, batches: [] }); // waits for its turn
    x.r.inboxes[0]?.send({ desc: passed, worker: 0, batches: [stale] });
    await new Promise((res) => setImmediate(res));
    x.r.closeQueues();
    await task;
    expect(ofKind(x.events, 'delete')).toEqual([{ kind: 'delete', replica: 0, lower: 0, batches: 1, reason: 'stale' }]);
    expect(ofKind(x.events, 'append')).toEqual([expect.objectContaining({ lower: 1, upper: 2, batches: 0, result: { ok: true } })]);
    expect(x.r.superseded).toBeNull();
    expect(x.r.lower).toBe(2);
    expect(x.blob.size).toBe(0);
    expect(x.metrics.c).toMatchObject({ batchesDeleted: 1, emptyAppends: 1 });
  });

  it('stale-hand-appended: the superseded description is appended instead, refused, and ends the live one', async () => {
    const x = replica(0);
    const passed = { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 0, barrier: false };
    const current = { lower: 1, upper: 2, appendWorker: 0, sharedId: 1, maxBytes: 0, barrier: false };
    await x.shard.compareAndAppend([], 0, 1);
    const stale = await x.batch(0, 1);
    const bugged = new ReplicaState(x.r.settings, { ...x.r.deps, bugs: new BugSwitches(['stale-hand-appended']) }, [[]]);
    const task = runAppender(bugged, 0);
    bugged.superseded = passed;
    bugged.lower = 1;
    bugged.live = current;
    bugged.appendQueues[0]?.send(passed);
    bugged.inboxes[0]?.send({ desc: passed, worker: 0, batches: [stale] });
    await new Promise((res) => setImmediate(res));
    bugged.closeQueues();
    await task;
    expect(ofKind(x.events, 'append')).toEqual([expect.objectContaining({ lower: 0, upper: 1, result: { ok: false, current: 1 } })]);
    expect(ofKind(x.events, 'delete')).toEqual([expect.objectContaining({ reason: 'mismatch' })]);
    expect(bugged.live).toBeNull(); // the newer description ended under its workers
  });
});
