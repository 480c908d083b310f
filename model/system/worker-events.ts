/** Worker events: stage, open, push, finish-begin, finish-end, skip, own-batch, hand. */
import type { Description, Route, TraceEvent, WorkerRef } from '../../vocab/index.ts';
import { append, type AppendContext } from '../append.ts';
import { builder, isEntry, isLive, type BuilderContext } from '../builder.ts';
import type { ModelConfig } from '../config.ts';
import { policyOf, sharingOn } from '../variants/index.ts';
import { handle, type HandleContext } from '../handle.ts';
import { isIn, pathOf, type Local } from '../local.ts';
import { buildBatch, summarize, takeBatch, type Batch } from '../parts.ts';
import type { History, ReplicaState, Superseded, SystemState } from '../state.ts';
import { ENVIRONMENT, sweep } from '../sweep.ts';
import { worker, type WorkerContext } from '../worker.ts';
import { type Prediction, fail, ok } from './prediction.ts';
import { set, withReplica, withRegistry, withBuilder, sizesOf, updatesAt } from './helpers.ts';
import { replicaSite, type WorkerSite, workerSite, workerPhase, barrierParticipants, builderOf, atBarrier, countIds } from './sites.ts';

export function stage(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'stage' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { desc } = site;
  if (site.lagging && isIn(site.wk, 'idle')) {
    return fail(`worker ${site.w}'s description ${desc.sharedId} was superseded before it staged it: it skips it (superseded), it does not stage it`);
  }
  const mine: ModelConfig['updates'][number][] = [];
  for (let t = desc.lower; t < desc.upper; t++) mine.push(...updatesAt(cfg, site.w, t));
  mine.sort((a, b) => a.id - b.id);
  const updates = mine.map((u) => u.id);
  const bytes = mine.reduce((n, u) => n + u.size, 0);
  const sharing = sharingOn(cfg, desc.maxBytes);
  const next = worker.fire(site.wk, {
    type: 'STAGE',
    updates,
    bytes,
    maxBytes: desc.maxBytes,
    sharing,
    reportsSkips: sharing && desc.barrier,
    finishesEmpty: sharing && (cfg.noData ?? policyOf(cfg).meta.defaultNoData) === 'finish',
  });
  if (next === null) return fail(`${workerPhase(site)}; it stages once per description`);
  const route = next.context.route as Route;
  return ok(
    { kind: 'stage', replica: site.r, process: site.p, worker: site.w, sharedId: desc.sharedId, updates, bytes, route },
    withReplica(s, site.r, { workers: set(site.rep.workers, site.w, next) }),
  );
}

export function open(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'open' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const wk = worker.fire(site.wk, { type: 'OPEN' });
  if (wk === null) return fail(`${workerPhase(site)}, it cannot open a handle`);
  const id = site.desc.sharedId;
  // The lookup of the worker's builder() call: under the registry's lock, after the sweep its call owed.
  const sw = sweep.fire(site.reg.sweep, { type: 'OPEN', by: site.w, size: countIds(site.reg, isEntry) });
  if (sw === null) return fail(lockedOrOwed(site));
  const before = builderOf(cfg, site.reg, site.desc);
  const b = builder.fire(before, { type: 'OPEN' });
  if (b === null) return fail(`builder ${id} of process ${site.p} is finalized: no participant may join it`);
  // A new instance: the entry was dead or absent, or its barrier completed at its deadline (a late worker).
  const created = b.context.instances.length > before.context.instances.length;
  const reg = { ...withBuilder(site.reg, id, b), sweep: sw };
  const h = handle.start({ staged: site.wk.context.staged, instance: b.context.instances.length - 1 });
  return ok(
    { kind: 'open', replica: site.r, process: site.p, worker: site.w, sharedId: id, created, participants: site.desc.barrier && !before.context.late ? barrierParticipants(cfg) : null },
    withReplica(s, site.r, {
      workers: set(site.rep.workers, site.w, wk),
      handles: set(site.rep.handles, site.w, h),
      ...withRegistry(site.rep, site.p, reg),
    }),
  );
}

/** Why a worker's builder() call cannot look its id up now: another call holds the lock, its own sweep
 * is not done, or its call owes a sweep first. */
function lockedOrOwed(site: WorkerSite): string {
  const sw = site.reg.sweep;
  const { lock, retained } = sw.context;
  if (lock !== null && lock !== site.w) return lockHeld(site.p, lock);
  if (lock === site.w) return `worker ${site.w}'s sweep is still visiting live entries of process ${site.p}`;
  return `worker ${site.w}'s builder() call must sweep first: process ${site.p}'s registry holds ${countIds(site.reg, isEntry)} entries, more than 2 × ${retained}`;
}

export const lockHeld = (p: number, lock: number): string =>
  `the registry of process ${p} is locked by ${lock === ENVIRONMENT ? "another sink's" : `worker ${lock}'s`} builder() call`;

const NO_CHANGE: Partial<ReplicaState> = {};

interface HandleSite extends WorkerSite {
  readonly h: Local<HandleContext>;
  readonly b: Local<BuilderContext>;
}

function handleSite(cfg: ModelConfig, s: SystemState, e: WorkerRef): HandleSite | string {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return site;
  const h = site.rep.handles[site.w];
  if (h === null || h === undefined || !isIn(site.wk, 'shared.holdingHandle')) {
    return `${workerPhase(site)}; it holds no handle`;
  }
  const { rep, r, w, p, desc, lagging, wk, reg } = site;
  return { rep, r, w, p, desc, lagging, wk, reg, h, b: builderOf(cfg, reg, desc) };
}

function withHandleAndBuilder(
  s: SystemState,
  site: HandleSite,
  h: Local<HandleContext>,
  b: Local<BuilderContext>,
  change: Partial<ReplicaState> = NO_CHANGE,
  history?: Partial<History>,
): SystemState {
  const registries = set(site.rep.registries, site.p, withBuilder(site.reg, site.desc.sharedId, b));
  const handles = set(site.rep.handles, site.w, h);
  // (the change's fields win, as a spread after these would make them)
  return withReplica(s, site.r, change === NO_CHANGE ? { handles, registries } : { handles, registries, ...change }, history);
}

export function push(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'push' }>): Prediction {
  const site = handleSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  // With a configured chunk size the model cuts the chunk itself: the event's chunk is then compared.
  const chunk = cfg.pushChunkUpdates;
  const { staged, pushed } = site.h.context;
  const updates = chunk === undefined || isIn(site.h, 'finishing') ? e.updates : staged.slice(pushed, pushed + chunk);
  const h = handle.fire(site.h, { type: 'PUSH', updates });
  if (h === null) {
    const { staged, pushed } = site.h.context;
    if (isIn(site.h, 'finishing')) return fail(`worker ${site.w} is finishing; it pushes no more`);
    return fail(
      `worker ${site.w}'s push [${e.updates.join(', ')}] does not continue its staged updates ` +
        `[${staged.join(', ')}] after ${pushed} pushed`,
    );
  }
  const b = builder.fire(site.b, { type: 'PUSH', updates, sizes: sizesOf(cfg) });
  if (b === null) return fail(`builder ${site.desc.sharedId} of process ${site.p} is not live`);
  return ok(
    { kind: 'push', replica: site.r, process: site.p, worker: site.w, sharedId: site.desc.sharedId, updates },
    withHandleAndBuilder(s, site, h, b),
  );
}

export function finishBegin(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'finish-begin' }>): Prediction {
  const site = handleSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  if (handle.fire(site.h, { type: 'FINISH_BEGIN', last: false }) === null) {
    const { staged, pushed } = site.h.context;
    return fail(
      isIn(site.h, 'finishing')
        ? `worker ${site.w} already began its finish`
        : `worker ${site.w} has pushed ${pushed} of its ${staged.length} staged updates`,
    );
  }
  const b = builder.fire(site.b, { type: 'FINISH_BEGIN', worker: site.w });
  if (b === null) return fail(`builder ${site.desc.sharedId} of process ${site.p} is not live`);
  const last = pathOf(b.value) === (atBarrier(site.b) ? 'finalized' : 'notLive.dead');
  const h = handle.fire(site.h, { type: 'FINISH_BEGIN', last }) as Local<HandleContext>;
  return ok(
    { kind: 'finish-begin', replica: site.r, process: site.p, worker: site.w, sharedId: site.desc.sharedId, last },
    withHandleAndBuilder(s, site, h, b, {}, { finishesBegun: s.history.finishesBegun + 1 }),
  );
}

export function finishEnd(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'finish-end' }>): Prediction {
  const site = handleSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  if (!isIn(site.h, 'finishing')) return fail(`worker ${site.w} has not begun its finish`);
  const { instance } = site.h.context;
  const b = builder.fire(site.b, { type: 'FINISH_END', worker: site.w, instance });
  if (b === null) {
    const c = site.b.context;
    return fail(`worker ${site.w} waits at the barrier of builder ${site.desc.sharedId} (pending ${c.pending})`);
  }
  const record = b.context.instances[instance];
  const batch: Batch | null =
    record !== undefined && record.receiver === site.w ? takeBatch(record.cut) : null;
  const h = handle.fire(site.h, { type: 'FINISH_END', released: true, batch }) as Local<HandleContext>;
  const wk = worker.fire(site.wk, { type: 'FINISH_END', batch }) as Local<WorkerContext>;
  return ok(
    {
      kind: 'finish-end',
      replica: site.r, process: site.p, worker: site.w,
      sharedId: site.desc.sharedId,
      received: batch === null ? null : summarize(batch, cfg.persist),
    },
    withHandleAndBuilder(
      s,
      site,
      h,
      b,
      { workers: set(site.rep.workers, site.w, wk) },
      { finishesEnded: s.history.finishesEnded + 1 },
    ),
  );
}

export function skip(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'skip' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const wk = worker.fire(site.wk, { type: 'SKIP' });
  if (wk === null) return fail(`${workerPhase(site)}; it reports no skip`);
  const id = site.desc.sharedId;
  // note_skip takes the registry's lock: not while a builder() call holds it.
  const { lock } = site.reg.sweep.context;
  if (lock !== null) return fail(lockHeld(site.p, lock));
  const before = builderOf(cfg, site.reg, site.desc);
  // Recorded for an entry yet to exist; a late worker's skip (the barrier completed at its deadline) is not.
  const early = !isLive(pathOf(before.value)) && !before.context.late;
  const b = builder.fire(before, { type: 'SKIP' });
  if (b === null) return fail(`builder ${id} of process ${site.p} is finalized: a skip would over-report`);
  return ok(
    { kind: 'skip', replica: site.r, process: site.p, worker: site.w, sharedId: id, early },
    withReplica(s, site.r, {
      workers: set(site.rep.workers, site.w, wk),
      ...withRegistry(site.rep, site.p, withBuilder(site.reg, id, b)),
    }),
  );
}

/**
 * A barrier's timer fires (an environment event: the model has no clock). Enabled once per barrier with
 * a deadline, after its first report, while it waits for a participant; `completes` when no handle that
 * joined is still pushing.
 */
export function timeoutEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'timeout' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const reg = Number.isInteger(e.process) ? site.rep.registries[e.process] : undefined;
  if (reg === undefined) return fail(`replica ${e.replica} has no process ${e.process}`);
  const before = Number.isInteger(e.sharedId) ? reg.builders[e.sharedId] : undefined;
  if (before === null || before === undefined) return fail(`process ${e.process} has no builder ${e.sharedId}: no barrier of it waits`);
  const b = builder.fire(before, { type: 'TIMEOUT' });
  if (b === null) {
    const c = before.context;
    const why = !c.barrier || !c.timesOut
      ? 'has no deadline'
      : c.late || !isIn(before, 'live')
        ? 'has completed'
        : c.expired
          ? 'timed out already'
          : 'has had no report yet';
    return fail(`the barrier of builder ${e.sharedId} of process ${e.process} ${why}: no timer fires`);
  }
  return ok(
    { kind: 'timeout', replica: e.replica, process: e.process, sharedId: e.sharedId, completes: isIn(b, 'finalized') },
    withReplica(s, e.replica, withRegistry(site.rep, e.process, withBuilder(reg, e.sharedId, b))),
  );
}

/** A worker that had not staged its description when a newer one was minted: it writes nothing. */
export function supersededEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'superseded' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { desc } = site;
  const wk = site.lagging ? worker.fire(site.wk, { type: 'SUPERSEDED', reportsSkips: sharingOn(cfg, desc.maxBytes) && desc.barrier }) : null;
  if (wk === null) {
    return fail(site.lagging ? `${workerPhase(site)}; it is past skipping its superseded description` : `worker ${site.w}'s description ${desc.sharedId} is live: it was not superseded`);
  }
  return ok(
    { kind: 'superseded', replica: site.r, process: site.p, worker: site.w, sharedId: desc.sharedId },
    withReplica(s, site.r, { workers: set(site.rep.workers, site.w, wk) }),
  );
}

export function ownBatch(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'own-batch' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const batch = buildBatch(site.wk.context.staged, sizesOf(cfg), cfg.persist);
  const wk = batch === null ? null : worker.fire(site.wk, { type: 'OWN_BATCH', batch });
  if (wk === null || batch === null) return fail(`${workerPhase(site)}; it writes no own batch now`);
  return ok(
    { kind: 'own-batch', replica: site.r, process: site.p, worker: site.w, sharedId: site.desc.sharedId, batch: summarize(batch, cfg.persist) },
    withReplica(
      s,
      site.r,
      { workers: set(site.rep.workers, site.w, wk) },
      { ownBatches: s.history.ownBatches + 1 },
    ),
  );
}

export function hand(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'hand' }>): Prediction {
  const site = workerSite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const wk = worker.fire(site.wk, { type: 'HAND' });
  const sup = site.lagging ? site.rep.superseded : null;
  const a = sup !== null ? sup.append : site.rep.append;
  const { batch, route } = site.wk.context;
  const batches = batch === null ? [] : [batch];
  const next =
    wk === null || a === null
      ? null
      : append.fire(a, { type: 'HAND', worker: site.w, hand: { route: route ?? 'none', batches } });
  if (wk === null || next === null) return fail(`${workerPhase(site)}; it cannot hand now`);
  const expected: TraceEvent = {
    kind: 'hand',
    replica: site.r, process: site.p, worker: site.w,
    sharedId: site.desc.sharedId,
    batches: batches.map((b) => summarize(b, cfg.persist)),
  };
  if (sup === null) return ok(expected, withReplica(s, site.r, { workers: set(site.rep.workers, site.w, wk), append: next }));
  // Handed its superseded description: the worker goes on with the live one (fresh, no handle).
  return ok(
    expected,
    withReplica(s, site.r, {
      workers: set(site.rep.workers, site.w, worker.start(undefined)),
      handles: set(site.rep.handles, site.w, null),
      superseded: pendingStale(sup.desc, next),
    }),
  );
}

/** A superseded description stays pending until every worker handed and what they handed is deleted:
 * with nothing handed, it is done at its last hand (its append worker has nothing to delete). */
export function pendingStale(desc: Description, a: Local<AppendContext>): Superseded | null {
  const done = a.context.handed.every((h) => h !== null) && staleCount(a) === 0;
  return done ? null : { desc, append: a };
}

export const staleCount = (a: Local<AppendContext>): number => a.context.handed.reduce((n, h) => n + (h?.batches.length ?? 0), 0);
