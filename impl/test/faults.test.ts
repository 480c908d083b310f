/**
 * The fault world in impl/: failing and indeterminate storage calls, retries, idempotent
 * compare-and-append, aborts and restarts of replicas, and leaked-blob cleanup.
 */
import { describe, expect, it } from 'vitest';
import type { StorageFault, TraceEvent, Variant } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import { BugSwitches } from '../bugs.ts';
import { isSbkitError } from '../errors.ts';
import { MetricsRecorder } from '../metrics.ts';
import { BatchBuilder } from '../persist/batch-builder.ts';
import { BlobClient } from '../persist/blob-client.ts';
import { MemBlob } from '../persist/blob.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { FaultyBlob, FaultyConsensus, injectedFault } from '../persist/faulty.ts';
import { collectLeakedBlobs } from '../persist/gc.ts';
import { retryExternal } from '../persist/retry.ts';
import { ShardWriter } from '../persist/shard-writer.ts';
import { claimWriter, retireWriter } from '../persist/writer-registry.ts';
import { Trace } from '../runtime/trace.ts';
import { runSink, type RunConfig } from '../run.ts';
import { passThroughScheduler, type FaultPlan, type PointSite, type Scheduler } from '../seams.ts';
import { ListPlan, onlyFor, randomPlan } from '../test-support/fault-plan.ts';
import { ofKind } from '../test-support/harness.ts';
import { seeded, StepScheduler } from '../test-support/step-scheduler.ts';
import { perWorker, upd } from '../test-support/workloads.ts';

/** A scheduler that records every point it passes (and lets it through). */
function recording(): Scheduler & { sites: PointSite[] } {
  const sites: PointSite[] = [];
  return { sites, point: (site) => (sites.push(site), Promise.resolve()) };
}

function writerOn(consensus: FaultyConsensus | MemConsensus, blob: FaultyBlob | MemBlob, opts: { id?: string; bugs?: BugSwitches; scheduler?: Scheduler } = {}) {
  const metrics = new MetricsRecorder();
  const events: TraceEvent[] = [];
  const trace = new Trace({ event: (e) => events.push(e) });
  const scheduler = opts.scheduler ?? passThroughScheduler;
  const client = new BlobClient(blob, scheduler, metrics, opts.id ?? 'w0-r0', trace);
  const config = resolvePersistConfig({ inlineSingleMaxBytes: 0 });
  const shard = new ShardWriter({ shardId: 's', consensus, blob: client, scheduler, metrics, config, where: { replica: 0 }, trace, bugs: opts.bugs ?? BugSwitches.none });
  const batch = async (lower: number, upper: number) => {
    const b = new BatchBuilder({ config, blob: client, metrics, shardId: 's' }, lower, upper, { replica: 0 });
    await b.add([upd(lower, lower)]);
    return b.finish();
  };
  return { metrics, events, client, shard, batch };
}

describe('fault-injecting blob and consensus', () => {
  it.each<[StorageFault, boolean, string]>([
    ['transient', false, 'storage-transient'],
    ['indeterminate-applied', true, 'storage-indeterminate'],
    ['indeterminate-lost', false, 'storage-indeterminate'],
    ['permanent', false, 'storage-permanent'],
  ])('a %s compare-and-set throws and %s applies', async (fault, applies, code) => {
    const inner = new MemConsensus();
    const c = new FaultyConsensus(inner, new ListPlan([fault]));
    const err = await c.compareAndSet('k', null, { seqNo: 0, data: new Uint8Array([1]) }).catch((e: unknown) => e);
    expect(isSbkitError(err, code as 'storage-transient')).toBe(true);
    expect(injectedFault(err)).toEqual({ op: 'consensus.cas', fault });
    expect((await inner.head('k')) !== undefined).toBe(applies);
    expect(c.stats).toEqual({ [`consensus.cas/${fault}`]: 1 });
  });

  it('lets calls through unchanged when the plan says ok, and reads never apply an indeterminate outcome', async () => {
    const inner = new MemBlob();
    const b = new FaultyBlob(inner, new ListPlan(['ok', 'indeterminate-applied']));
    await b.set('k', new Uint8Array([7]));
    await expect(b.get('k')).rejects.toMatchObject({ code: 'storage-indeterminate' });
    expect([...((await b.get('k')) ?? [])]).toEqual([7]);
  });
});

describe('retryExternal', () => {
  it('retries transient failures, each retry a scheduling point, and reports every fault', async () => {
    const sched = recording();
    const metrics = new MetricsRecorder();
    const events: TraceEvent[] = [];
    const plan = new ListPlan(['transient', 'indeterminate-lost', 'ok']);
    const blob = new FaultyBlob(new MemBlob(), plan);
    const keys = await retryExternal({ scheduler: sched, where: { replica: 2 }, trace: new Trace({ event: (e) => events.push(e) }), metrics }, 'blob.list', () => blob.list());
    expect(keys).toEqual([]);
    expect(sched.sites.map((s) => s.label)).toEqual(['retry.blob.list', 'retry.blob.list']);
    expect(events).toEqual([
      { kind: 'fault', replica: 2, op: 'blob.list', fault: 'transient' },
      { kind: 'fault', replica: 2, op: 'blob.list', fault: 'indeterminate-lost' },
    ]);
    expect(metrics.c).toMatchObject({ retries: 2, faultsTransient: 1, faultsIndeterminate: 1 });
  });

  it('gives up on a permanent failure (and on anything that is not a storage failure)', async () => {
    const ctx = { scheduler: passThroughScheduler, where: { replica: 0 }, trace: new Trace(), metrics: new MetricsRecorder() };
    const blob = new FaultyBlob(new MemBlob(), new ListPlan(['permanent']));
    await expect(retryExternal(ctx, 'blob.list', () => blob.list())).rejects.toMatchObject({ code: 'storage-permanent' });
    await expect(retryExternal(ctx, 'blob.list', () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');
    expect(ctx.metrics.c.faultsPermanent).toBe(1);
  });

  it('does not retry an indeterminate call that is not idempotent', async () => {
    const ctx = { scheduler: passThroughScheduler, where: { replica: 0 }, trace: new Trace(), metrics: new MetricsRecorder() };
    const c = new FaultyConsensus(new MemConsensus(), new ListPlan(['indeterminate-lost']));
    await expect(retryExternal(ctx, 'consensus.cas', () => c.compareAndSet('k', null, { seqNo: 0, data: new Uint8Array() }), { idempotent: false })).rejects.toMatchObject({ code: 'storage-indeterminate' });
  });
});

describe('compare-and-append under indeterminate compare-and-set', () => {
  it('applied but reported as an error: the retry finds its own token and succeeds (never a mismatch for its own write)', async () => {
    const inner = new MemConsensus();
    const w = writerOn(new FaultyConsensus(inner, onlyFor('consensus.cas', ['indeterminate-applied'])), new MemBlob());
    const b = await w.batch(0, 1);
    expect(await w.shard.compareAndAppend([b], 0, 1)).toMatchObject({ kind: 'ok' });
    expect(b.status).toBe('consumed');
    expect((await w.shard.fetchState()).upper).toBe(1);
    expect(ofKind(w.events, 'fault')).toEqual([{ kind: 'fault', replica: 0, op: 'consensus.cas', fault: 'indeterminate-applied' }]);
    expect(w.metrics.c.consensusCommands).toBe(1); // one CaS: the retry found the write and sent none
  });

  it('not applied and reported as an error: the retry applies it', async () => {
    const w = writerOn(new FaultyConsensus(new MemConsensus(), onlyFor('consensus.cas', ['indeterminate-lost'])), new MemBlob());
    const b = await w.batch(0, 1);
    expect(await w.shard.compareAndAppend([b], 0, 1)).toMatchObject({ kind: 'ok' });
    expect(w.metrics.c.consensusCommands).toBe(2);
  });

  it('not applied, and another writer appended meanwhile: an honest upper mismatch', async () => {
    const inner = new MemConsensus();
    const other = writerOn(inner, new MemBlob(), { id: 'w1-r1' });
    const plan: FaultPlan = {
      decide: (op) => (op === 'consensus.cas' && !raced ? ((raced = true), 'indeterminate-lost') : 'ok'),
    };
    let raced = false;
    const sched: Scheduler = {
      point: async (site) => {
        if (site.label === 'retry.consensus.cas') await other.shard.compareAndAppend([], 0, 1);
      },
    };
    const w = writerOn(new FaultyConsensus(inner, plan), new MemBlob(), { scheduler: sched });
    const b = await w.batch(0, 2);
    expect(await w.shard.compareAndAppend([b], 0, 2)).toEqual({ kind: 'upper-mismatch', current: 1, expected: 0 });
    expect(b.status).toBe('owned');
  });

  it('bug indeterminate-cas-deletes-batches: the own write reads as a mismatch', async () => {
    const w = writerOn(new FaultyConsensus(new MemConsensus(), onlyFor('consensus.cas', ['indeterminate-applied'])), new MemBlob(), {
      bugs: new BugSwitches(['indeterminate-cas-deletes-batches']),
    });
    const b = await w.batch(0, 1);
    expect(await w.shard.compareAndAppend([b], 0, 1)).toEqual({ kind: 'upper-mismatch', current: 1, expected: 0 });
  });

  it('a blob PUT whose answer was lost after it applied is retried without refusing its own key', async () => {
    const inner = new MemBlob();
    const w = writerOn(new MemConsensus(), new FaultyBlob(inner, onlyFor('blob.set', ['indeterminate-applied'])));
    await w.batch(0, 1);
    expect(await inner.list()).toEqual(['w0-r0/part-0']);
    expect(w.metrics.c.blobPuts).toBe(1);
  });
});

describe('leaked-blob cleanup', () => {
  async function setup(bugs: BugSwitches = BugSwitches.none) {
    const consensus = new MemConsensus();
    const blob = new MemBlob();
    const metrics = new MetricsRecorder();
    const dead = await claimWriter(consensus, 's', 0, metrics);
    const live = await claimWriter(consensus, 's', 1, metrics);
    await claimWriter(consensus, 's', 0, metrics); // expires `dead`
    await blob.set(`${dead.id}/part-0`, new Uint8Array([1]));
    await blob.set(`${live.id}/part-0`, new Uint8Array([2]));
    await blob.set('stray', new Uint8Array([3]));
    const events: TraceEvent[] = [];
    const run = () =>
      collectLeakedBlobs({
        shardId: 's',
        consensus,
        blob: new BlobClient(blob, passThroughScheduler, metrics, 'gc', new Trace()),
        scheduler: passThroughScheduler,
        metrics,
        trace: new Trace({ event: (e) => events.push(e) }),
        bugs,
        where: { replica: 1 },
      });
    return { consensus, blob, metrics, dead, live, run, events };
  }

  it("deletes an expired writer's unreferenced blobs, never a live writer's in-flight part or a key no writer minted", async () => {
    const x = await setup();
    expect(await x.run()).toEqual([{ key: `${x.dead.id}/part-0`, writer: 'expired' }]);
    expect(await x.blob.list()).toEqual(['stray', `${x.live.id}/part-0`].sort());
    expect(x.events).toEqual([{ kind: 'cleanup', replica: 1, deleted: 1 }]);
    await retireWriter(x.consensus, 's', x.live, 'finished', x.metrics);
    expect(await x.run()).toEqual([{ key: `${x.live.id}/part-0`, writer: 'finished' }]);
  });

  it('bug cleanup-deletes-in-flight-part: deletes the live writer’s part too', async () => {
    const x = await setup(new BugSwitches(['cleanup-deletes-in-flight-part']));
    const deleted = await x.run();
    expect(deleted.map((d) => d.key)).toContain(`${x.live.id}/part-0`);
    expect(deleted.find((d) => d.key === `${x.live.id}/part-0`)?.writer).toBeNull();
  });
});

const small = (variant: Variant, extra: Partial<RunConfig> = {}): RunConfig => ({
  variant,
  replicas: 2,
  processes: 1,
  workersPerProcess: 3,
  intervals: 4,
  updates: perWorker(4, 3, [1, 2, 1], 600),
  maxBytes: 1 << 20,
  persist: { inlineSingleMaxBytes: 0 },
  ...extra,
});

describe('runs with faults, aborts and restarts', () => {
  for (const variant of VARIANTS) {
    it(`${variant}: random storage faults at 15% are survived: nothing lost, duplicated or leaked`, async () => {
      for (let seed = 1; seed <= 6; seed++) {
        const plan = randomPlan(seed, 0.15);
        const sched = new StepScheduler();
        const out = await sched.run(() => runSink(small(variant, { faults: plan, scheduler: sched })), { pick: seeded(seed) });
        expect(out.kind, `seed ${seed}`).toBe('settled');
        if (out.kind !== 'settled') return;
        expect(plan.injected).toBeGreaterThan(0);
        expect(out.value.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, danglingKeys: [] });
        expect(out.value.leaks.fromLive).toBe(0);
        expect(out.value.metrics.retries).toBeGreaterThan(0);
      }
    });

    it(`${variant}: a replica aborted mid-run restarts as a new incarnation at the shard's upper and the shard converges`, async () => {
      for (const step of [5, 20, 40, 70]) {
        const events: TraceEvent[] = [];
        const sched = new StepScheduler();
        const out = await sched.run(() => runSink(small(variant, { cleanup: true, scheduler: sched, observer: { event: (e) => events.push(e) } })), {
          pick: seeded(step),
          aborts: [{ step, replica: 1 }],
        });
        expect(out.kind, `abort at ${step}`).toBe('settled');
        if (out.kind !== 'settled') return;
        const r = out.value;
        expect(r.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
        expect(r.leaks.fromLive).toBe(0);
        // Every abort step lies inside the run (which takes more steps than that), so replica 1 was aborted.
        expect(ofKind(events, 'abort'), `abort at ${step}`).toHaveLength(1);
        expect(ofKind(events, 'restart')).toHaveLength(1);
        expect(r.metrics).toMatchObject({ aborts: 1, restarts: 1 });
        expect(ofKind(events, 'cleanup').length).toBeGreaterThanOrEqual(2); // after the restart, and at the end
      }
    });
  }

  it('a permanent storage failure takes the replica down like a crash; it restarts and the run converges', async () => {
    const events: TraceEvent[] = [];
    const plan = new ListPlan([...Array<'ok'>(12).fill('ok'), 'permanent']);
    const sched = new StepScheduler();
    const out = await sched.run(() => runSink(small('best-effort', { faults: plan, scheduler: sched, observer: { event: (e) => events.push(e) } })), { pick: seeded(3) });
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    expect(ofKind(events, 'abort')[0]?.reason).toMatch(/permanent storage failure/);
    expect(ofKind(events, 'restart')).toHaveLength(1);
    expect(out.value.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
  });

  it("a permanent failure of the mint's poll read finds the sink unsealed: the append waits for the read, the replica goes down and restarts", async () => {
    // One replica, one worker, two intervals, free pacing: the mint's description [0, 2) has room for a
    // newer lower, so the mint polls the shard while the append collects its hand.
    const events: TraceEvent[] = [];
    const isMintRead = (site: PointSite): boolean => site.label === 'consensus.head' && site.worker === undefined;
    let polled = false;
    let mintReading = false;
    let failed = false;
    // The read right after the mint's first `consensus.head` point fails permanently.
    const plan: FaultPlan = {
      decide: (op) => {
        if (op !== 'consensus.head' || !mintReading || failed) return 'ok';
        failed = true;
        return 'permanent';
      },
    };
    // Hold the mint's read back while anything else can run: the append would end the description (and
    // seal the sink, at K) before the read fails, unless it waits for the read.
    const pick = (parked: readonly { readonly site: PointSite }[]): number => {
      const other = parked.findIndex((p) => !(polled && isMintRead(p.site)));
      const i = other < 0 ? 0 : other;
      if (polled && isMintRead((parked[i] as { site: PointSite }).site)) {
        mintReading = true;
        polled = false;
      }
      return i;
    };
    const sched = new StepScheduler();
    const out = await sched.run(
      () =>
        runSink({
          variant: 'off', replicas: 1, processes: 1, workersPerProcess: 1, intervals: 2, updates: perWorker(2, 1, [1], 8), maxBytes: 0, pacing: 'free',
          faults: plan, scheduler: sched,
          observer: { event: (e) => (events.push(e), e.kind === 'poll' && (polled = true)) },
        }),
      { pick, maxSteps: 2000 },
    );
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    const kinds = events.map((e) => (e.kind === 'fault' ? `fault ${e.op} ${e.fault}` : e.kind));
    const poll = kinds.indexOf('poll');
    const fault = kinds.indexOf('fault consensus.head permanent');
    expect(poll).toBeGreaterThanOrEqual(0);
    expect(fault).toBeGreaterThan(poll);
    // no append between the poll and its read's failure: the replica was still unsealed, and went down
    expect(kinds.slice(poll, fault)).not.toContain('append');
    expect(kinds[fault + 1]).toBe('abort');
    expect(ofKind(events, 'restart')).toHaveLength(1);
    expect(out.value.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
  });

  it('a task that fails after every sink of its incarnation sealed fails the run with a typed error (never a hang)', async () => {
    // Only a bug leaves storage work behind a sealed sink: under drop-without-finish the append worker
    // drops the last reference, and the orphaned builder still writes its batch after the append sealed
    // the sink. Its blob write then fails permanently: there is nothing left to abort.
    const events: TraceEvent[] = [];
    const seen = (kind: TraceEvent['kind'], worker?: number): boolean => events.some((e) => e.kind === kind && (worker === undefined || ('worker' in e && e.worker === worker)));
    let failed = false;
    const plan: FaultPlan = { decide: (op) => (op === 'blob.set' && seen('append') && !failed ? ((failed = true), 'permanent') : 'ok') };
    const isBuilder = (site: PointSite): boolean => site.process !== undefined && site.worker === undefined;
    // Worker 0 (the append worker) opens first, worker 1 finishes while worker 0 still holds its
    // reference (so it receives nothing), then worker 0 drops the last one; the builder runs last.
    const pick = (parked: readonly { readonly site: PointSite }[]): number => {
      const first = !seen('open', 0) ? 0 : !seen('finish-end', 1) ? 1 : undefined;
      const ok = (site: PointSite, worker?: number): boolean => seen('append') || (!isBuilder(site) && (worker === undefined || site.worker === worker));
      const i = parked.findIndex((p) => ok(p.site, first));
      return i >= 0 ? i : Math.max(0, parked.findIndex((p) => ok(p.site)));
    };
    const sched = new StepScheduler();
    const out = await sched.run(
      () =>
        runSink({
          variant: 'best-effort', replicas: 1, processes: 1, workersPerProcess: 2, intervals: 1, updates: perWorker(1, 2, [2, 2], 600), maxBytes: 1 << 20,
          persist: { inlineSingleMaxBytes: 0, blobTargetSize: 1 }, bugs: ['drop-without-finish'], faults: plan, scheduler: sched,
          observer: { event: (e) => events.push(e) },
        }),
      { pick, maxSteps: 2000 },
    );
    expect(out.kind).toBe('rejected');
    if (out.kind !== 'rejected') return;
    expect(isSbkitError(out.error, 'incarnation-failed')).toBe(true);
    expect(String(out.error)).toMatch(/replica 0's incarnation failed after every sink it hosts had sealed \(nothing left to abort\): injected fault: blob.set/);
    expect(ofKind(events, 'abort')).toEqual([]);
  });

  it('gives up with a typed error after maxRestarts', async () => {
    const plan: FaultPlan = { decide: (op) => (op === 'consensus.head' ? 'permanent' : 'ok') };
    await expect(runSink(small('off', { faults: plan, maxRestarts: 2 }))).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'replica-gave-up'));
  });

  it('gives up with a typed error when a restart keeps failing permanently (never spins)', async () => {
    // After the abort every consensus call fails permanently: the restart's claim can never succeed.
    let down = false;
    const plan: FaultPlan = { decide: (op) => (down && op.startsWith('consensus.') ? 'permanent' : 'ok') };
    const sched = new StepScheduler();
    const out = await sched.run(() => runSink(small('off', { faults: plan, maxRestarts: 3, scheduler: sched, observer: { event: (e) => e.kind === 'abort' && (down = true) } })), {
      aborts: [{ step: 5, replica: 0 }],
      maxSteps: 10_000,
    });
    expect(out.kind).toBe('rejected');
    if (out.kind !== 'rejected') return;
    expect(isSbkitError(out.error, 'replica-gave-up')).toBe(true);
    expect(String(out.error)).toMatch(/replica 0 could not be restarted: its start failed 4 times; maxRestarts is 3/);
  });

  it('bug restart-rewrites-appended-interval: the restarted incarnation duplicates what the shard holds', async () => {
    let found = false;
    for (const step of [20, 40, 70, 90]) {
      const sched = new StepScheduler();
      const out = await sched.run(() => runSink(small('off', { bugs: ['restart-rewrites-appended-interval'], scheduler: sched })), { pick: seeded(step), aborts: [{ step, replica: 1 }] });
      if (out.kind === 'settled' && out.value.audit.duplicated > 0) found = true;
    }
    expect(found).toBe(true);
  });
});
