/**
 * runIncarnation (replica-process.ts): one replica's sink as a process of its own would run it — here
 * several in one process, on in-memory stores, as the crash test runs them in several. Two replicas
 * started behind a gate race on one shard like runSink's; an incarnation stopped for good mid-run (a
 * scheduler that never resumes: what SIGKILL does to its tasks) is succeeded by a restarted one that
 * starts at the shard's upper and writes only what is missing. The joined trace, put in the shard's
 * order, replays on the model; the audit finds nothing lost or duplicated, and cleanup collects what
 * the stopped incarnation leaked.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent, Variant } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import type { ModelConfig } from '../../model/config.ts';
import { predictAppends } from '../../model/predict.ts';
import { auditShard } from '../audit.ts';
import { BugSwitches } from '../bugs.ts';
import { linearizeByShard } from '../linearize.ts';
import { MetricsRecorder } from '../metrics.ts';
import { MemBlob } from '../persist/blob.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { collectLeakedBlobs } from '../persist/gc.ts';
import { loadShardState } from '../persist/state.ts';
import { readWriters } from '../persist/writer-registry.ts';
import { runIncarnation, type IncarnationConfig } from '../replica-process.ts';
import { Trace } from '../runtime/trace.ts';
import { passThroughScheduler, type Scheduler } from '../seams.ts';
import { perWorker } from '../test-support/workloads.ts';
import { encodedUpdateSize, partitionWorker } from '../update.ts';

const SHAPE = { replicas: 2, processes: 1, workersPerProcess: 2, intervals: 6 } as const;
const PERSIST = { inlineSingleMaxBytes: 64 } as const;
// Two updates of ~200 B per worker and interval: hollow parts (one PUT each), below the threshold.
const updates = perWorker(SHAPE.intervals, 2, [2, 2], 200);
const MAX_BYTES = 1 << 20;

function modelConfig(variant: Variant, faults: boolean): ModelConfig {
  return {
    variant,
    ...SHAPE,
    updates: updates.map((u) => ({ id: u.id, time: u.time, worker: partitionWorker(u.key, 2), size: encodedUpdateSize(u) })),
    persist: resolvePersistConfig(PERSIST),
    maxBytesChoices: [MAX_BYTES],
    ...(faults ? { faults: { aborts: Number.POSITIVE_INFINITY, indeterminate: Number.POSITIVE_INFINITY, cleanup: true } } : {}),
  };
}

function base(variant: Variant, blob: MemBlob, consensus: MemConsensus, trace: TraceEvent[]): Omit<IncarnationConfig, 'replica' | 'restarted'> {
  return { variant, ...SHAPE, updates, maxBytes: MAX_BYTES, persist: PERSIST, blob, consensus, shardId: 'one-replica-each', observer: { event: (e) => trace.push(e) } };
}

/** Passes `n` points, then never resumes another: every task of the incarnation stops, as in a SIGKILL. */
function stopsAfter(n: number): Scheduler & { readonly stopped: () => boolean } {
  let left = n;
  return { point: () => (left-- > 0 ? Promise.resolve() : new Promise<void>(() => {})), stopped: () => left < 0 };
}

const replayed = (cfg: ModelConfig, trace: readonly TraceEvent[]): string => {
  const linear = linearizeByShard(trace);
  if (!linear.ok) return linear.why;
  const p = predictAppends(cfg, linear.trace);
  return !p.ok ? `#${p.at}: ${p.reason}` : p.pending.length > 0 ? `pending ${JSON.stringify(p.pending[0])}` : 'ok';
};

describe('runIncarnation: one replica per process', () => {
  it.each(VARIANTS.map((v) => [v]))('%s: two first incarnations behind a start gate race on one shard; the model predicts every append', async (variant) => {
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const trace: TraceEvent[] = [];
    let claimed = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started: number[] = [];
    const run = (replica: number) =>
      runIncarnation({
        ...base(variant, blob, consensus, trace),
        replica,
        restarted: false,
        beforeStart: async () => {
          if (++claimed === SHAPE.replicas) open();
          await gate;
        },
        onStart: ({ upper }) => started.push(upper),
      });
    const [a, b] = await Promise.all([run(0), run(1)]);
    expect(started).toEqual([0, 0]);
    expect([a.writer.id, b.writer.id].sort()).toEqual(['w0-r0', 'w1-r1']);
    const state = await loadShardState(consensus, 'one-replica-each');
    expect(await auditShard(state, blob, updates)).toMatchObject({ upper: SHAPE.intervals, lost: 0, duplicated: 0, leakedBlobs: 0 });
    expect([...(await readWriters(consensus, 'one-replica-each')).values()].map((w) => w.retired)).toEqual(['finished', 'finished']);
    expect(a.metrics.appends + b.metrics.appends).toBeGreaterThanOrEqual(SHAPE.intervals);
    expect(replayed(modelConfig(variant, false), trace)).toBe('ok');
  });

  it.each(VARIANTS.map((v) => [v]))('%s: incarnations stopped mid-run are succeeded by restarts at the shard upper; cleanup collects their leaks', async (variant) => {
    const blob = new MemBlob();
    const consensus = new MemConsensus();
    const shardId = 'one-replica-each';
    // Both first incarnations start behind the gate and stop for good after 31 and 46 points (each incarnation's append has one point more since the compare-and-set's send became a step of its own).
    const firsts: TraceEvent[] = [];
    const stops = [stopsAfter(31), stopsAfter(46)];
    let claimed = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    for (const replica of [0, 1]) {
      void runIncarnation({
        ...base(variant, blob, consensus, firsts),
        replica,
        restarted: false,
        scheduler: stops[replica] as Scheduler,
        beforeStart: async () => {
          if (++claimed === 2) open();
          await gate;
        },
      });
    }
    // in-memory stores: the incarnations advance by event-loop turns, so wait in turns (a budget in work,
    // not a timer a busy machine could outrun)
    for (let turn = 0; turn < 100_000 && !stops.every((s) => s.stopped()); turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(stops.every((s) => s.stopped()), 'both first incarnations reached their last point').toBe(true);
    const stoppedAt = (await loadShardState(consensus, shardId)).upper;
    expect(stoppedAt).toBeLessThan(SHAPE.intervals);

    const seconds: TraceEvent[] = [];
    const restarted = await Promise.all([0, 1].map((replica) => runIncarnation({ ...base(variant, blob, consensus, seconds), replica, restarted: true })));
    expect(restarted.map((r) => r.startUpper)).toEqual([stoppedAt, stoppedAt]);
    expect(seconds.filter((e) => e.kind === 'restart')).toEqual([0, 1].map((replica) => ({ kind: 'restart', replica, lower: stoppedAt })));
    const writers = [...(await readWriters(consensus, shardId)).values()];
    expect(writers.map((w) => `r${w.replica}:${w.retired}`)).toEqual(['r0:expired', 'r1:expired', 'r0:finished', 'r1:finished']);

    // Cleanup after each restart and once at the end: only the first finds anything.
    const metrics = new MetricsRecorder();
    const cleanups: TraceEvent[] = [];
    const cleanupTrace = new Trace({ event: (e) => cleanups.push(e) });
    const before = await auditShard(await loadShardState(consensus, shardId), blob, updates);
    expect(before.leakedBlobs, 'the stopped incarnations left PUTs nothing references').toBeGreaterThan(0);
    for (const replica of [0, 1, 0]) {
      await collectLeakedBlobs({
        shardId,
        consensus,
        blob: new BlobClient(blob, passThroughScheduler, metrics, 'cleanup', cleanupTrace),
        scheduler: passThroughScheduler,
        metrics,
        trace: cleanupTrace,
        bugs: new BugSwitches([]),
        where: { replica },
      });
    }
    const after = await auditShard(await loadShardState(consensus, shardId), blob, updates);
    expect(after).toMatchObject({ upper: SHAPE.intervals, lost: 0, duplicated: 0, leakedBlobs: 0 });
    expect(before.leakedKeys.every((k) => /^w[01]-r[01]\//.test(k)), 'only the stopped incarnations leak').toBe(true);
    expect(cleanups.map((e) => (e.kind === 'cleanup' ? e.deleted : -1))).toEqual([before.leakedBlobs, 0, 0]);

    // Joined as the crash test joins it: the stopped prefixes, an abort each, the restarts' traces, the cleanups.
    const aborts: TraceEvent[] = [0, 1].map((replica) => ({ kind: 'abort', replica, reason: 'stopped' }));
    expect(replayed(modelConfig(variant, true), [...firsts, ...aborts, ...seconds, ...cleanups])).toBe('ok');
    // Without the aborts the restarts are not enabled: the check can fail.
    expect(replayed(modelConfig(variant, true), [...firsts, ...seconds, ...cleanups])).toMatch(/restart/);
  });

  it('refuses a replica outside the run, and a fault plan or cleanup (its faults are real, cleanup is the supervisor\'s)', async () => {
    const cfg = { ...base('off', new MemBlob(), new MemConsensus(), []), restarted: false };
    await expect(runIncarnation({ ...cfg, replica: 2 })).rejects.toMatchObject({ code: 'invalid-config', message: expect.stringMatching(/replica must be below replicas \(2\), got 2/) });
    await expect(runIncarnation({ ...cfg, replica: 0, cleanup: true })).rejects.toMatchObject({ code: 'invalid-config' });
    await expect(runIncarnation({ ...cfg, replica: 0, faults: { decide: () => 'ok' } })).rejects.toMatchObject({ code: 'invalid-config' });
  });

  it('a shard id is 1 to 100 letters, digits, _ . -: runs on one database keep apart by it', async () => {
    const cfg = { ...base('off', new MemBlob(), new MemConsensus(), []), replica: 0, restarted: false };
    for (const shardId of ['', 'a/b', 'x'.repeat(101), 7 as unknown as string]) {
      await expect(runIncarnation({ ...cfg, shardId })).rejects.toMatchObject({ code: 'invalid-config', message: expect.stringMatching(/^shardId must be 1 to 100 letters/) });
    }
    await expect(runIncarnation({ ...cfg, shardId: 'compare-s1-off-x.y_z' })).resolves.toMatchObject({ startUpper: 0 });
  });
});
