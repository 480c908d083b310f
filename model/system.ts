/**
 * The system: R replicas × P processes × W workers over K intervals, composed from the machines of this
 * folder, as a pure step function over `TraceEvent`s (vocab/index.ts) — the contract of vocab/PROTOCOL.md.
 *
 * Source: Materialize PRs #37591 (shared batches, best-effort, threshold/fallback, the sweep and its review
 * bug) and #37617 (the barrier). Abstracted away: see each machine's header; here additionally the shard
 * is an upper and an inline byte count (consensus), and every event is one atomic scheduling point.
 *
 * Shape of one step (Stateright's "actions, enabledness, next state"):
 *   `predict(cfg, state, event)` decides whether the event's *actor* can take that kind of step now
 *   (guards, in the machines), and if so computes the model's own version of the event — every predicted
 *   field — and the next state (effects, in the machines). `step` then compares the model's version with
 *   the given event field by field. `enabledActions` proposes one event per actor and choice, and keeps
 *   those `predict` accepts, so every event it lists is accepted by `step`.
 */
import { match } from 'ts-pattern';
import type { AppendResult, Description, PartsSummary, Route, SharedId, SweepBy, TraceEvent, WorkerRef } from '../vocab/index.ts';
import type { AppendView, BuilderView } from '../spec/view.ts';
import { ascending } from '../spec/view.ts';
import { append, type AppendContext } from './append.ts';
import { builder, isEntry, isLive, type BuilderContext } from './builder.ts';
import { knobValue, mintChoices, processOf, sizeIndex, validateConfig, workersPerReplica, type ModelConfig } from './config.ts';
import { policyOf, sharingOn } from './variants/index.ts';
import { handle, type HandleContext } from './handle.ts';
import { isIn, pathOf, type Local } from './local.ts';
import { mint } from './mint.ts';
import { buildBatch, inlineBytesOf, inlineParts, partsNow, runsOf, summarize, takeBatch, type Batch } from './parts.ts';
import type { History, Registry, ReplicaState, Superseded, SystemState } from './state.ts';
import { ENVIRONMENT, sweep } from './sweep.ts';
import { worker, type WorkerContext } from './worker.ts';

export type { SystemState } from './state.ts';

export type StepResult =
  | { readonly ok: true; readonly state: SystemState }
  | { readonly ok: false; readonly reason: string; readonly expected?: TraceEvent };

/** The model's version of an event and the state after it, or why the event is not enabled. */
export type Prediction =
  | { readonly ok: true; readonly expected: TraceEvent; readonly next: SystemState }
  | { readonly ok: false; readonly reason: string };

// ---------------------------------------------------------------------------------------------------
// Initial state

export function initialState(cfg: ModelConfig): SystemState {
  validateConfig(cfg);
  const replica = freshReplica(cfg, cfg.asOf ?? 0, 0);
  return {
    shard: { upper: 0, inlineBytes: 0 },
    replicas: Array.from({ length: cfg.replicas }, () => replica),
    history: {
      appends: [],
      shardUppers: [0],
      finishesBegun: 0,
      finishesEnded: 0,
      ownBatches: 0,
      deleted: 0,
      faults: {
        aborts: 0,
        indeterminate: 0,
        retiredBuilders: [],
        pendingCleanups: 0,
        finalCleanup: false,
        leakingByReplica: Array.from({ length: cfg.replicas }, () => 0),
        leaksExpired: 0,
        leaksCollected: 0,
        referencedDeleted: 0,
        finishesAbandoned: 0,
        batchesAbandoned: 0,
      },
    },
  };
}

/** A replica incarnation as it starts: its sink at `start` (0, or the shard's upper after a restart). */
function freshReplica(cfg: ModelConfig, start: number, incarnation: number): ReplicaState {
  const workers = workersPerReplica(cfg);
  const m = mint.start({ intervals: cfg.intervals, workers, start });
  return {
    up: true,
    incarnation,
    mint: mint.fire(m, { type: 'RESUME' }) ?? m,
    append: null,
    superseded: null,
    workers: Array.from({ length: workers }, () => worker.start(undefined)),
    handles: Array.from({ length: workers }, () => null),
    registries: Array.from({ length: cfg.processes }, () => ({
      sweep: sweep.start({ upgradeRace: cfg.bugs?.sweepUpgradeRace === true, shared: cfg.sharedRegistry === true }),
      builders: [],
    })),
  };
}

// ---------------------------------------------------------------------------------------------------
// Small immutable helpers

const fail = (reason: string): Prediction => ({ ok: false, reason });
const ok = (expected: TraceEvent, next: SystemState): Prediction => ({ ok: true, expected, next });
const set = <T>(xs: readonly T[], i: number, x: T): readonly T[] => {
  // A copy with one slot replaced (not `map`: a closure call per element, for every event).
  const next = xs.slice();
  if (i >= 0 && i < next.length) next[i] = x;
  return next;
};

function withReplica(s: SystemState, r: number, change: Partial<ReplicaState>, history?: Partial<History>): SystemState {
  const rep = s.replicas[r] as ReplicaState;
  // Fields spelled out (an object spread costs ~50 ns; this runs for every event), in ReplicaState's
  // and History's declaration order, so serialization stays canonical.
  const next: ReplicaState = {
    up: change.up ?? rep.up,
    incarnation: change.incarnation ?? rep.incarnation,
    mint: change.mint ?? rep.mint,
    append: change.append !== undefined ? change.append : rep.append,
    superseded: change.superseded !== undefined ? change.superseded : rep.superseded,
    workers: change.workers ?? rep.workers,
    handles: change.handles ?? rep.handles,
    registries: change.registries ?? rep.registries,
  };
  const h = s.history;
  return {
    shard: s.shard,
    replicas: set(s.replicas, r, next),
    history:
      history === undefined
        ? h
        : {
            appends: history.appends ?? h.appends,
            shardUppers: history.shardUppers ?? h.shardUppers,
            finishesBegun: history.finishesBegun ?? h.finishesBegun,
            finishesEnded: history.finishesEnded ?? h.finishesEnded,
            ownBatches: history.ownBatches ?? h.ownBatches,
            deleted: history.deleted ?? h.deleted,
            faults: history.faults ?? h.faults,
          },
  };
}

const withRegistry = (rep: ReplicaState, p: number, reg: Registry): Partial<ReplicaState> => ({
  registries: set(rep.registries, p, reg),
});

function withBuilder(reg: Registry, id: SharedId, b: Local<BuilderContext>): Registry {
  const builders = [...reg.builders];
  while (builders.length <= id) builders.push(null);
  builders[id] = b;
  return { sweep: reg.sweep, builders };
}

/**
 * What a step derives from its config alone, computed once for the config in use. One entry (the last
 * config), not a WeakMap: a replay uses one config for all its events, and V8 keeps a WeakMap's entries
 * through every minor GC (only a full one clears them), so a cache per run's config promoted each run's
 * config and indexes to the old generation (a conformance check replays a fresh config per run).
 */
interface Derived {
  readonly cfg: ModelConfig;
  sizes?: ReadonlyMap<number, number>;
  byWorker?: ReadonlyMap<string, readonly ModelConfig['updates'][number][]>;
}
let derived: Derived | undefined;
function derivedOf(cfg: ModelConfig): Derived {
  if (derived === undefined || derived.cfg !== cfg) derived = { cfg };
  return derived;
}

/** Update sizes by id, computed once per config (the model's only lookup into the workload). */
function sizesOf(cfg: ModelConfig): ReadonlyMap<number, number> {
  const d = derivedOf(cfg);
  d.sizes ??= sizeIndex(cfg);
  return d.sizes;
}

// ---------------------------------------------------------------------------------------------------
// Where an event happens

interface ReplicaSite {
  readonly rep: ReplicaState;
  readonly r: number;
}

/** A replica whatever its state (fault-world events); `replicaSite` requires it to be up. */
function anyReplicaSite(cfg: ModelConfig, s: SystemState, r: number): ReplicaSite | string {
  const rep = Number.isInteger(r) ? s.replicas[r] : undefined;
  if (rep === undefined) return `there is no replica ${r} (replicas: ${cfg.replicas})`;
  return { rep, r };
}

function replicaSite(cfg: ModelConfig, s: SystemState, r: number): ReplicaSite | string {
  const site = anyReplicaSite(cfg, s, r);
  if (typeof site !== 'string' && !site.rep.up) return `replica ${r} is down (aborted, not restarted yet)`;
  return site;
}

interface WorkerSite extends ReplicaSite {
  readonly w: number;
  readonly p: number;
  /** The worker's description: the superseded one while it has not handed it, else the live one. */
  readonly desc: Description;
  /** `desc` is superseded (rep.superseded's). */
  readonly lagging: boolean;
  readonly wk: Local<WorkerContext>;
  readonly reg: Registry;
}

function workerSite(cfg: ModelConfig, s: SystemState, e: WorkerRef): WorkerSite | string {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return site;
  const wk = Number.isInteger(e.worker) ? site.rep.workers[e.worker] : undefined;
  if (wk === undefined) return `replica ${e.replica} has no worker ${e.worker}`;
  const p = processOf(cfg, e.worker);
  if (e.process !== p) return `worker ${e.worker} lives in process ${p}, not ${e.process}`;
  const sup = site.rep.superseded;
  const lagging = sup !== null && sup.append.context.handed[e.worker] === null;
  const desc = lagging ? sup.desc : site.rep.mint.context.live;
  if (desc === null) return `replica ${e.replica} has no live description`;
  return { rep: site.rep, r: site.r, w: e.worker, p, desc, lagging, wk, reg: site.rep.registries[p] as Registry };
}

/** What a worker does next, for messages: "worker 1 has not staged", "… expects push". */
function workerPhase(site: WorkerSite): string {
  const path = pathOf(site.wk.value);
  const next = match(path)
    .with('idle', () => 'has not staged')
    .with('shared.opening', () => 'must open its handle next')
    .with('shared.holdingHandle', () => `holds an open handle (${pathOf(site.rep.handles[site.w]?.value ?? 'none')})`)
    .with('fallback.reportingSkip', 'noData.reportingSkip', () => 'must report a skip next')
    .with('fallback.writing', () => 'must write its own batch next')
    .with('handing', () => 'must hand its batches next')
    .otherwise(() => 'is done with the description');
  return `worker ${site.w} ${next}`;
}

/** The participants a barrier of `cfg`'s variant waits for. */
const barrierParticipants = (cfg: ModelConfig): number => policyOf(cfg).barrier(cfg.workersPerProcess).participants;

/** Whether a barrier of `cfg`'s variant has a deadline (a finite one: it may time out). */
export function barrierTimesOut(cfg: ModelConfig): boolean {
  const deadline = policyOf(cfg).barrier(cfg.workersPerProcess).deadline;
  return deadline !== undefined && Number.isFinite(deadline);
}

/** The registry entry for a description: the live or dead one, or a fresh one in the description's mode. */
function builderOf(cfg: ModelConfig, reg: Registry, desc: Description): Local<BuilderContext> {
  return (
    reg.builders[desc.sharedId] ??
    builder.start({ barrier: desc.barrier, participants: barrierParticipants(cfg), timesOut: desc.barrier && barrierTimesOut(cfg), blobTargetSize: cfg.persist.blobTargetSize })
  );
}

/** The entry waits at a barrier that has not completed at its deadline (a late worker's is best-effort). */
const atBarrier = (b: Local<BuilderContext>): boolean => b.context.barrier && !b.context.late;

const ids = (reg: Registry, keep: (path: string) => boolean): readonly SharedId[] =>
  reg.builders.flatMap((b, id) => (b !== null && keep(pathOf(b.value)) ? [id] : []));

/** `ids(reg, keep).length` without building the list (every open that creates an entry counts them). */
function countIds(reg: Registry, keep: (path: string) => boolean): number {
  let n = 0;
  for (const b of reg.builders) if (b !== null && keep(pathOf(b.value))) n += 1;
  return n;
}



// ---------------------------------------------------------------------------------------------------
// Replica events: frontier, mint, append, delete

function frontier(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'frontier' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const next = mint.fire(site.rep.mint, { type: 'FRONTIER' });
  if (next === null) return fail(`replica ${e.replica}'s desired frontier is already ${cfg.intervals}`);
  return ok({ kind: 'frontier', replica: e.replica, upper: next.context.desired }, withReplica(s, e.replica, { mint: next }));
}

function mintEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'mint' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const m = site.rep.mint;
  if (m.context.live !== null) return supersedeMint(cfg, s, e, site.rep);
  const knobs = mintKnobs(cfg, e, m.context.lower, m.context.desired);
  if (typeof knobs === 'string') return fail(knobs);
  const next = mint.fire(m, { type: 'MINT', maxBytes: knobs.maxBytes, barrier: knobs.barrier });
  if (next === null || next.context.live === null) {
    return fail(`replica ${e.replica}'s lower ${m.context.lower} is not below its desired frontier ${m.context.desired}`);
  }
  const desc = next.context.live;
  const workers = workersPerReplica(cfg);
  return ok(
    { kind: 'mint', replica: e.replica, desc },
    withReplica(s, e.replica, {
      mint: next,
      append: append.start({ lower: desc.lower, upper: desc.upper, workers }),
      workers: Array.from({ length: workers }, () => worker.start(undefined)),
      handles: Array.from({ length: workers }, () => null),
    }),
  );
}

/**
 * A poll: the mint reads the shard's state (a consensus head read) to see whether another writer moved
 * it. It may only while a supersede could follow — the live description's append has not begun, no
 * superseded one is pending, and the desired frontier leaves room for a newer lower (`desired > lower + 1`:
 * a supersede needs `lower < shard upper < desired`). A poll outside those is a read whose answer cannot
 * matter: a cost the model refuses, as it would refuse the supersede. The state does not change.
 */
function pollEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'poll' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const { rep } = site;
  const live = rep.mint.context.live;
  if (live === null) return fail(`replica ${e.replica} polls the shard with no live description`);
  if (!appendNotBegun(rep)) return fail(`replica ${e.replica} polls the shard after description ${live.sharedId}'s append began`);
  if (rep.superseded !== null) {
    return fail(`replica ${e.replica} polls the shard with description ${rep.superseded.desc.sharedId} superseded and pending (it may not supersede again)`);
  }
  if (rep.mint.context.desired <= live.lower + 1) {
    return fail(`replica ${e.replica} polls the shard with no room for a newer lower: description ${live.sharedId} is [${live.lower}, ${rep.mint.context.desired})`);
  }
  return ok({ kind: 'poll', replica: e.replica, sharedId: live.sharedId }, s);
}

/** The live description's append has not begun: it collects hands or is ready, nothing flushed, bumped
 * or committed (the window in which a supersede, and so a poll, may happen). */
function appendNotBegun(rep: ReplicaState): boolean {
  const a = rep.append;
  return a !== null && (isIn(a, 'collecting') || isIn(a, 'ready')) && !a.context.flushed && a.context.bumpedFrom === null && !a.context.committed;
}

/**
 * Supersede: the mint follows the persist frontier. While the live description's append has not begun
 * (its append collects hands or is ready, nothing flushed, bumped or committed) and no superseded one is
 * pending, a shard upper past the live lower and below the desired frontier makes the mint mint a newer
 * description from that upper. The old one is superseded: the workers that handed it go on with the new
 * one, the others finish it (or, not staged yet, skip it) and hand it to its append, which deletes it.
 */
function supersedeMint(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'mint' }>, rep: ReplicaState): Prediction {
  const m = rep.mint;
  const old = m.context.live as Description;
  const a = rep.append;
  const notBegun = appendNotBegun(rep);
  const lower = s.shard.upper;
  const knobs = mintKnobs(cfg, e, lower, m.context.desired);
  if (typeof knobs === 'string') return fail(knobs);
  const next = mint.fire(m, { type: 'SUPERSEDE', lower, allowed: notBegun && rep.superseded === null, maxBytes: knobs.maxBytes, barrier: knobs.barrier });
  if (next === null || next.context.live === null || a === null) {
    return fail(
      rep.superseded !== null
        ? `replica ${e.replica} already has a live description (sharedId ${old.sharedId}) and a superseded one (sharedId ${rep.superseded.desc.sharedId}) pending`
        : !notBegun
          ? `replica ${e.replica} already has a live description (sharedId ${old.sharedId}) whose append began`
          : `replica ${e.replica} already has a live description (sharedId ${old.sharedId}); the shard's upper ${lower} is not past its lower ${old.lower} and below the desired frontier ${m.context.desired}`,
    );
  }
  const desc = next.context.live;
  const workers = workersPerReplica(cfg);
  const handed = a.context.handed;
  return ok(
    { kind: 'mint', replica: e.replica, desc },
    withReplica(s, e.replica, {
      mint: next,
      append: append.start({ lower: desc.lower, upper: desc.upper, workers }),
      superseded: pendingStale(old, a),
      workers: rep.workers.map((w, i) => (handed[i] === null ? w : worker.start(undefined))),
      handles: rep.handles.map((h, i) => (handed[i] === null ? h : null)),
    }),
  );
}

/**
 * What the mint reads: computed from the workload's knobs (the event's values are then compared like
 * any predicted field), or, without knobs, the event's values as inputs (exploring: one of the choices).
 */
function mintKnobs(
  cfg: ModelConfig,
  e: Extract<TraceEvent, { kind: 'mint' }>,
  lower: number,
  desired: number,
): { maxBytes: number; barrier: boolean } | string {
  const { knobs } = cfg;
  if (knobs !== undefined) {
    return {
      maxBytes: knobValue(knobs.maxBytesByLower, lower),
      barrier: policyOf(cfg).sharing && knobValue(knobs.barrierByDesired, desired),
    };
  }
  // Without knobs the knob value is the event's input (any valid value; exploring, one of the choices).
  const choices = mintChoices(cfg);
  const { maxBytes } = e.desc;
  if (!Number.isInteger(maxBytes) || maxBytes < 0) return `mint.desc.maxBytes must be a non-negative integer, got ${JSON.stringify(maxBytes)}`;
  // A single choice is no choice: the model computes it (and compares the event's).
  const only = choices.barrier.length === 1 ? choices.barrier[0] : undefined;
  const barrier = only ?? e.desc.barrier;
  if (!choices.barrier.includes(barrier)) return `mint.desc.barrier ${JSON.stringify(barrier)} is none of the config's choices [${choices.barrier.join(', ')}]`;
  return { maxBytes, barrier };
}

/** The view of an append as the history keeps it (spec/view.ts AppendView). */
function appendRecord(
  cfg: ModelConfig,
  r: number,
  rep: ReplicaState,
  a: Local<AppendContext>,
  parts: PartsSummary,
  result: AppendResult,
  shardUpper: number,
): AppendView {
  const desc = rep.mint.context.live as Description;
  const handed = a.context.handed.map((h) => h as NonNullable<typeof h>);
  const batches = handed.flatMap((h) => h.batches);
  return {
    replica: r,
    sharedId: desc.sharedId,
    lower: desc.lower,
    upper: desc.upper,
    maxBytes: desc.maxBytes,
    barrier: desc.barrier,
    routes: rep.workers.map((w) => w.context.route),
    batches: handed.flatMap((h, w) =>
      h.batches.map((b) => ({
        worker: w,
        process: processOf(cfg, w),
        // An `empty` worker's finish can return the shared batch (it was the receiver or deliverer).
        route: h.route === 'shared' || h.route === 'empty' ? ('shared' as const) : ('own' as const),
        ...summarize(b, cfg.persist),
      })),
    ),
    updates: ascending(batches.flatMap((b) => b.updates)),
    parts,
    result,
    shardUpper,
    deleted: null,
  };
}

function appendEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'append' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const { rep } = site;
  const a = rep.append;
  const desc = rep.mint.context.live;
  if (a === null || desc === null) return fail(`replica ${e.replica} has no live description`);
  if (isIn(a, 'committed')) return learnCommitted(cfg, s, e.replica, rep, a, desc);
  if (!isIn(a, 'ready')) {
    if (!isIn(a, 'collecting')) return fail(`replica ${e.replica} already appended description ${desc.sharedId}`);
    const waiting = a.context.handed.flatMap((h, w) => (h === null ? [w] : []));
    return fail(`replica ${e.replica}'s append waits for workers ${waiting.join(', ')} to hand`);
  }
  const next = append.fire(a, {
    type: 'APPEND',
    shardUpper: s.shard.upper,
    shardInlineBytes: s.shard.inlineBytes,
    persist: cfg.persist,
  });
  if (next === null) {
    return fail(
      a.context.bumpedFrom !== null || s.shard.upper < a.context.lower
        ? `replica ${e.replica}'s append must first bump the shard from ${a.context.bumpedFrom ?? s.shard.upper} to its lower ${a.context.lower}`
        : `replica ${e.replica}'s append is refused by inline backpressure first (the shard holds ${s.shard.inlineBytes} inline bytes; the limit is ${cfg.persist.inlineTotalMaxBytes})`,
    );
  }
  const result = next.context.result ?? { ok: true };
  const record = appendRecord(cfg, e.replica, rep, next, next.context.parts ?? NO_PARTS, result, s.shard.upper);
  const expected = appendEventOf(cfg, record);
  const history: Partial<History> = { appends: [...s.history.appends, record] };
  if (result.ok) {
    const after = withReplica(
      s,
      e.replica,
      { mint: mint.fire(rep.mint, { type: 'END', lower: desc.upper }) ?? rep.mint, append: null },
      { ...history, shardUppers: [...s.history.shardUppers, desc.upper] },
    );
    return ok(expected, {
      ...after,
      shard: { upper: desc.upper, inlineBytes: s.shard.inlineBytes + next.context.inlineBytesAdded },
    });
  }
  if (isIn(next, 'mismatched')) return ok(expected, withReplica(s, e.replica, { append: next }, history));
  // A refused append with nothing to delete: the description ends at once, at the shard's upper.
  const lower = s.shard.upper;
  return ok(
    expected,
    withReplica(s, e.replica, { mint: mint.fire(rep.mint, { type: 'END', lower }) ?? rep.mint, append: null }, history),
  );
}

const NO_PARTS: PartsSummary = { hollow: 0, inline: 0 };

/** The append event a history record stands for. Its runs: an own batch's parts as persist_batch_max_runs
 * groups them, a shared batch's one run per part (the shared builder's max_runs is `None`). */
function appendEventOf(cfg: ModelConfig, r: AppendView): TraceEvent {
  let runs = 0;
  for (const b of r.batches) runs += b.route === 'own' ? runsOf(b.partBytes.length, cfg.persist.maxRuns) : b.partBytes.length;
  return { kind: 'append', replica: r.replica, lower: r.lower, upper: r.upper, batches: r.batches.length, parts: r.parts, runs, updates: r.updates, result: r.result };
}

/**
 * The append worker learns the outcome of a compare-and-set that applied but answered with an error:
 * it reads state back and finds its idempotency token — ok (the shard took it at the `fault` step).
 * With the model bug it takes the moved upper for another writer's and refuses its own append.
 */
function learnCommitted(cfg: ModelConfig, s: SystemState, r: number, rep: ReplicaState, a: Local<AppendContext>, desc: Description): Prediction {
  const at = s.history.appends.map((x) => x.replica).lastIndexOf(r);
  const committed = s.history.appends[at] as AppendView;
  if (cfg.bugs?.indeterminateAsMismatch === true) {
    const next = append.fire(a, { type: 'MISREAD', shardUpper: s.shard.upper }) as Local<AppendContext>;
    const refused = { ...committed, shardUpper: s.shard.upper, parts: partsNow(a.context.handed.flatMap((h) => h?.batches ?? []), cfg.persist, a.context.flushed), result: next.context.result ?? { ok: true } };
    const history: Partial<History> = { appends: [...s.history.appends, refused] };
    if (isIn(next, 'mismatched')) return ok(appendEventOf(cfg, refused), withReplica(s, r, { append: next }, history));
    return ok(appendEventOf(cfg, refused), withReplica(s, r, { mint: mint.fire(rep.mint, { type: 'END', lower: s.shard.upper }) ?? rep.mint, append: null }, history));
  }
  // The record kept the handed parts until now (what a trace shows before the answer); the answer
  // reports the parts as committed (after inline backpressure).
  append.fire(a, { type: 'APPEND', shardUpper: s.shard.upper, shardInlineBytes: s.shard.inlineBytes, persist: cfg.persist }); // committed → appended
  const learned = { ...committed, parts: a.context.parts ?? NO_PARTS };
  const appends = [...s.history.appends];
  appends[at] = learned;
  return ok(
    appendEventOf(cfg, learned),
    withReplica(s, r, { mint: mint.fire(rep.mint, { type: 'END', lower: desc.upper }) ?? rep.mint, append: null }, { appends }),
  );
}

function backpressureEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'backpressure' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const a = site.rep.append;
  const next = a === null ? null : append.fire(a, { type: 'BACKPRESSURE', shardUpper: s.shard.upper, shardInlineBytes: s.shard.inlineBytes, persist: cfg.persist });
  if (a === null || next === null) {
    return fail(`replica ${e.replica} has no append that inline backpressure refuses now (shard inline bytes ${s.shard.inlineBytes}, limit ${cfg.persist.inlineTotalMaxBytes})`);
  }
  const batches = a.context.handed.flatMap((h) => h?.batches ?? []);
  return ok(
    {
      kind: 'backpressure',
      replica: e.replica,
      lower: a.context.lower,
      inlineBytes: s.shard.inlineBytes,
      adding: inlineBytesOf(batches, cfg.persist),
      flushed: inlineParts(batches, cfg.persist),
    },
    withReplica(s, e.replica, { append: next }),
  );
}

function bumpEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'bump' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const a = site.rep.append;
  const next = a === null ? null : append.fire(a, { type: 'BUMP', shardUpper: s.shard.upper });
  if (a === null || next === null) return fail(`replica ${e.replica} has no append whose shard is behind its lower (the shard's upper is ${s.shard.upper})`);
  const learned = a.context.bumpedFrom;
  const expected: TraceEvent = { kind: 'bump', replica: e.replica, from: learned ?? s.shard.upper, to: a.context.lower };
  const after = withReplica(s, e.replica, { append: next }, learned === null ? { shardUppers: [...s.history.shardUppers, a.context.lower] } : undefined);
  return ok(expected, learned === null ? { ...after, shard: { upper: a.context.lower, inlineBytes: s.shard.inlineBytes } } : after);
}

function deleteEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'delete' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const { rep } = site;
  if (e.reason === 'stale') return deleteStale(s, e.replica, rep);
  const a = rep.append;
  const next = a === null ? null : append.fire(a, { type: 'DELETE' });
  if (a === null || next === null) return fail(`replica ${e.replica} has no refused append whose batches to delete`);
  const count = a.context.handed.reduce((n, h) => n + (h?.batches.length ?? 0), 0);
  const result = a.context.result;
  const lower = result !== null && !result.ok ? result.current : a.context.upper;
  const appends = [...s.history.appends];
  const at = appends.map((x) => x.replica).lastIndexOf(e.replica);
  const last = appends[at];
  if (last !== undefined) appends[at] = { ...last, deleted: count };
  const f = s.history.faults;
  return ok(
    { kind: 'delete', replica: e.replica, lower: a.context.lower, batches: count, reason: 'mismatch' },
    withReplica(
      s,
      e.replica,
      { mint: mint.fire(rep.mint, { type: 'END', lower }) ?? rep.mint, append: null },
      {
        appends,
        deleted: s.history.deleted + count,
        ...(a.context.committed ? { faults: { ...f, referencedDeleted: f.referencedDeleted + count } } : {}),
      },
    ),
  );
}

/** The superseded description's append worker deletes every batch handed for it (its lower passed). */
function deleteStale(s: SystemState, r: number, rep: ReplicaState): Prediction {
  const sup = rep.superseded;
  if (sup === null) return fail(`replica ${r} has no superseded description whose batches to delete`);
  const waiting = sup.append.context.handed.flatMap((h, w) => (h === null ? [w] : []));
  if (waiting.length > 0) return fail(`replica ${r}'s superseded description ${sup.desc.sharedId} waits for workers ${waiting.join(', ')} to hand`);
  const count = staleCount(sup.append);
  return ok(
    { kind: 'delete', replica: r, lower: sup.desc.lower, batches: count, reason: 'stale' },
    withReplica(s, r, { superseded: null }, { deleted: s.history.deleted + count }),
  );
}

/** Each worker's updates by time, computed once per config (staging reads only its own interval). */
function updatesAt(cfg: ModelConfig, worker: number, time: number): readonly ModelConfig['updates'][number][] {
  const d = derivedOf(cfg);
  let index = d.byWorker;
  if (index === undefined) {
    const built = new Map<string, ModelConfig['updates'][number][]>();
    for (const u of cfg.updates) {
      const key = `${u.worker}/${u.time}`;
      const list = built.get(key);
      if (list === undefined) built.set(key, [u]);
      else list.push(u);
    }
    index = built;
    d.byWorker = index;
  }
  return index.get(`${worker}/${time}`) ?? [];
}

// ---------------------------------------------------------------------------------------------------
// Worker events: stage, open, push, finish-begin, finish-end, skip, own-batch, hand

function stage(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'stage' }>): Prediction {
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

function open(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'open' }>): Prediction {
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

const lockHeld = (p: number, lock: number): string =>
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

function push(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'push' }>): Prediction {
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

function finishBegin(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'finish-begin' }>): Prediction {
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

function finishEnd(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'finish-end' }>): Prediction {
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

function skip(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'skip' }>): Prediction {
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
function timeoutEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'timeout' }>): Prediction {
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
function supersededEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'superseded' }>): Prediction {
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

function ownBatch(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'own-batch' }>): Prediction {
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

function hand(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'hand' }>): Prediction {
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
function pendingStale(desc: Description, a: Local<AppendContext>): Superseded | null {
  const done = a.context.handed.every((h) => h !== null) && staleCount(a) === 0;
  return done ? null : { desc, append: a };
}

const staleCount = (a: Local<AppendContext>): number => a.context.handed.reduce((n, h) => n + (h?.batches.length ?? 0), 0);

// ---------------------------------------------------------------------------------------------------
// Registry events: sweep, and with the review bug sweep-hold / sweep-release

interface RegistrySite extends ReplicaSite {
  readonly p: number;
  readonly reg: Registry;
  /** The worker whose builder() call sweeps (ENVIRONMENT: another sink's, sharedRegistry only). */
  readonly by: number;
}

/**
 * Where a sweep event happens: the registry of `e.process`, and the worker whose builder() call it is
 * (about to open its handle). Without `worker` the sweep is another sink's (sharedRegistry only).
 */
function registrySite(cfg: ModelConfig, s: SystemState, e: SweepBy): RegistrySite | string {
  if (e.worker === undefined) {
    if (cfg.sharedRegistry !== true) return `a sweep names the worker whose builder() call ran it`;
    const site = replicaSite(cfg, s, e.replica);
    if (typeof site === 'string') return site;
    const reg = Number.isInteger(e.process) ? site.rep.registries[e.process] : undefined;
    if (reg === undefined) return `replica ${e.replica} has no process ${e.process}`;
    return { rep: site.rep, r: site.r, p: e.process, reg, by: ENVIRONMENT };
  }
  const site = workerSite(cfg, s, { replica: e.replica, process: e.process, worker: e.worker });
  if (typeof site === 'string') return site;
  if (!isIn(site.wk, 'shared.opening')) return `${workerPhase(site)}: it is in no builder() call that could sweep`;
  return { rep: site.rep, r: site.r, p: site.p, reg: site.reg, by: site.w };
}

const sweepBy = (site: RegistrySite): { worker?: number } => (site.by === ENVIRONMENT ? {} : { worker: site.by });

function sweepEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep' }>): Prediction {
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const removed = ids(reg, (path) => path === 'notLive.dead');
  const liveIds = ids(reg, isLive);
  const size = countIds(reg, isEntry);
  const sw = sweep.fire(reg.sweep, { type: 'SWEEP', by: site.by, size, left: size - removed.length, liveIds });
  if (sw === null) {
    const { lock, retained, visited } = reg.sweep.context;
    if (lock !== null && lock !== site.by) return fail(lockHeld(site.p, lock));
    if (lock === null && !cfg.sharedRegistry && size <= 2 * retained) {
      return fail(`process ${site.p}'s registry holds ${size} entries, not more than 2 × ${retained}: no sweep is due`);
    }
    if (isIn(reg.sweep, 'swept')) return fail(`worker ${site.by}'s builder() call already swept; it looks its id up next`);
    return fail(`the sweep must first visit live entries ${liveIds.filter((id) => id > visited).join(', ')}`);
  }
  const builders = reg.builders.map((b) => (b !== null && pathOf(b.value) === 'notLive.dead' ? builder.fire(b, { type: 'SWEEP' }) : b));
  return ok(
    { kind: 'sweep', replica: e.replica, process: e.process, ...sweepBy(site), removed },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { sweep: sw, builders })),
  );
}

function sweepHold(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep-hold' }>): Prediction {
  if (cfg.bugs?.sweepUpgradeRace !== true) {
    return fail('sweep-hold happens only with the sweep-upgrade-race bug (bugs.sweepUpgradeRace)');
  }
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const liveIds = ids(reg, isLive);
  // The visit is predicted: the next live entry above the last one visited.
  const next = liveIds.find((id) => id > reg.sweep.context.visited);
  const sw = next === undefined ? null : sweep.fire(reg.sweep, { type: 'SWEEP_HOLD', by: site.by, sharedId: next, size: countIds(reg, isEntry), liveIds });
  const before = next === undefined ? undefined : reg.builders[next];
  const b = sw === null || before === null || before === undefined ? null : builder.fire(before, { type: 'SWEEP_HOLD' });
  if (sw === null || b === null || next === undefined) {
    const { lock } = reg.sweep.context;
    if (lock !== null && lock !== site.by) return fail(lockHeld(site.p, lock));
    return fail(next === undefined ? `process ${site.p}'s sweep has no live entry left to visit` : `process ${site.p}'s registry owes no sweep that could visit entry ${next} now`);
  }
  return ok(
    { kind: 'sweep-hold', replica: e.replica, process: e.process, ...sweepBy(site), sharedId: next },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { ...withBuilder(reg, next, b), sweep: sw })),
  );
}

function sweepRelease(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep-release' }>): Prediction {
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const held = reg.sweep.context.holding;
  const before = held === null ? undefined : reg.builders[held];
  if (held === null || reg.sweep.context.lock !== site.by || before === null || before === undefined) {
    return fail(`${site.by === ENVIRONMENT ? "another sink's sweep" : `worker ${site.by}'s sweep`} holds no entry of process ${site.p}`);
  }
  const sw = sweep.fire(reg.sweep, { type: 'SWEEP_RELEASE' }) ?? reg.sweep;
  const b = builder.fire(before, { type: 'SWEEP_RELEASE' }) ?? before;
  return ok(
    {
      kind: 'sweep-release',
      replica: e.replica,
      process: e.process,
      ...sweepBy(site),
      sharedId: held,
      closed: pathOf(b.value) === 'notLive.dead',
    },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { ...withBuilder(reg, held, b), sweep: sw })),
  );
}

// ---------------------------------------------------------------------------------------------------
// Fault-world events: fault, abort, restart, cleanup (vocab/PROTOCOL.md "Faults")

/** The builder instances of one incarnation's registries, as the view shows them. */
export function builderViewsOf(rep: ReplicaState, replica: number): BuilderView[] {
  const out: BuilderView[] = [];
  rep.registries.forEach((reg, process) =>
    reg.builders.forEach((b, sharedId) =>
      b?.context.instances.forEach((rec, instance) =>
        out.push({
          replica,
          incarnation: rep.incarnation,
          process,
          sharedId,
          instance,
          handles: rec.handles,
          // a finish returns a batch only if something was pushed (an empty instance's receiver gets null)
          receivers: rec.cut.updates.length > 0 ? rec.receipts : 0,
          updates: rec.cut.updates,
          deliveredToNobody: rec.toNobody && rec.cut.updates.length > 0,
        }),
      ),
    ),
  );
  return out;
}

/**
 * What an abort leaves behind: batches written and not appended — handed to the append (unless it
 * committed), held by workers that have not handed yet, in the making by a worker writing its own
 * batch, or in a builder instance nobody received. Counted in units (one per batch), not blobs: how
 * many of their parts reached blob storage depends on how far each builder got.
 */
function leakUnits(rep: ReplicaState): number {
  let n = abandonedBatches(rep);
  for (const w of rep.workers) {
    const path = pathOf(w.value);
    if (path === 'fallback.writing' || path === 'fallback.reportingSkip') n += 1;
  }
  for (const reg of rep.registries) {
    for (const b of reg.builders) {
      for (const rec of b?.context.instances ?? []) if (rec.cut.updates.length > 0 && rec.receipts === 0 && !rec.toNobody) n += 1;
    }
  }
  return n;
}

/** Batches written and neither appended nor deleted (handed to the append, or held to be handed). */
function abandonedBatches(rep: ReplicaState): number {
  let n = 0;
  const a = rep.append;
  if (a !== null && !a.context.committed && !isIn(a, 'appended') && !isIn(a, 'deleted')) {
    n += a.context.handed.reduce((k, h) => k + (h?.batches.length ?? 0), 0);
  }
  if (rep.superseded !== null) n += staleCount(rep.superseded.append);
  for (const w of rep.workers) if (pathOf(w.value) === 'handing' && w.context.batch !== null) n += 1;
  return n;
}

/** Finishes begun and not returned: handles waiting in their finish. */
const openFinishes = (rep: ReplicaState): number => rep.handles.filter((h) => h !== null && isIn(h, 'finishing')).length;

function requireFaults(cfg: ModelConfig, kind: string): string | null {
  return cfg.faults === undefined ? `${kind} happens only in the fault world (the model config has no faults)` : null;
}

function faultEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'fault' }>): Prediction {
  const no = requireFaults(cfg, 'a storage fault');
  if (no !== null) return fail(no);
  const site = anyReplicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const expected: TraceEvent = { kind: 'fault', replica: e.replica, op: e.op, fault: e.fault };
  const { rep } = site;
  const a = rep.append;
  // Only the append's compare-and-set changes the protocol when it fails; every other fault (and this
  // one when it did not apply) is retried and changes nothing: a stuttering step.
  if (!(e.op === 'consensus.cas' && e.fault === 'indeterminate-applied' && rep.up && a !== null && isIn(a, 'ready'))) return ok(expected, s);
  const f = s.history.faults;
  if (s.shard.upper < a.context.lower) {
    // The bump's empty compare-and-append applied: the shard moved now; its `bump` step learns it.
    if (f.indeterminate >= (cfg.faults?.indeterminate ?? 0)) return fail(`the run already had ${f.indeterminate} indeterminate compare-and-set(s), the most the config explores`);
    const bumped = append.fire(a, { type: 'BUMP_UNANSWERED', shardUpper: s.shard.upper });
    if (bumped === null) return ok(expected, s); // a retried bump whose first try already applied
    const after = withReplica(s, e.replica, { append: bumped }, { shardUppers: [...s.history.shardUppers, a.context.lower], faults: { ...f, indeterminate: f.indeterminate + 1 } });
    return ok(expected, { ...after, shard: { upper: a.context.lower, inlineBytes: s.shard.inlineBytes } });
  }
  if (f.indeterminate >= (cfg.faults?.indeterminate ?? 0)) return fail(`the run already had ${f.indeterminate} indeterminate compare-and-set(s), the most the config explores`);
  const next = append.fire(a, { type: 'INDETERMINATE_APPLIED', shardUpper: s.shard.upper, shardInlineBytes: s.shard.inlineBytes, persist: cfg.persist });
  if (next === null) {
    return fail(`replica ${e.replica}'s compare-and-set cannot have applied: the shard's upper is ${s.shard.upper}, not its lower ${a.context.lower}`);
  }
  const desc = rep.mint.context.live as Description;
  // Until the append worker learns the answer, the record shows the parts it handed (what a trace shows).
  const record = appendRecord(cfg, e.replica, rep, next, partsNow(next.context.handed.flatMap((h) => h?.batches ?? []), cfg.persist, next.context.flushed), { ok: true }, s.shard.upper);
  const after = withReplica(
    s,
    e.replica,
    { append: next },
    { appends: [...s.history.appends, record], shardUppers: [...s.history.shardUppers, desc.upper], faults: { ...f, indeterminate: f.indeterminate + 1 } },
  );
  return ok(expected, { ...after, shard: { upper: desc.upper, inlineBytes: s.shard.inlineBytes + next.context.inlineBytesAdded } });
}

function abortEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'abort' }>): Prediction {
  const no = requireFaults(cfg, 'an abort');
  if (no !== null) return fail(no);
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const { rep } = site;
  // Sealed: the mint reached K (no description live: a refused append's delete ran) and no superseded
  // description waits for its stale delete. Until that delete ran the replica still writes (deletes)
  // and can fail; an abort leaves the stale batches behind (abandonedBatches).
  if (isSealedReplica(rep)) return fail(`replica ${e.replica} finished: there is nothing left to abort`);
  const f = s.history.faults;
  if (f.aborts >= (cfg.faults?.aborts ?? 0)) return fail(`the run already had ${f.aborts} abort(s), the most the config explores`);
  const leaking = f.leakingByReplica.map((n, r) => (r === e.replica ? n + leakUnits(rep) : n));
  return ok(
    { kind: 'abort', replica: e.replica, reason: e.reason },
    withReplica(s, e.replica, { up: false }, {
      faults: {
        ...f,
        aborts: f.aborts + 1,
        retiredBuilders: [...f.retiredBuilders, ...builderViewsOf(rep, e.replica)],
        leakingByReplica: leaking,
        finishesAbandoned: f.finishesAbandoned + openFinishes(rep),
        batchesAbandoned: f.batchesAbandoned + abandonedBatches(rep),
      },
    }),
  );
}

function restartEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'restart' }>): Prediction {
  const no = requireFaults(cfg, 'a restart');
  if (no !== null) return fail(no);
  const site = anyReplicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  if (site.rep.up) return fail(`replica ${e.replica} is up: only an aborted replica restarts`);
  const f = s.history.faults;
  // The new incarnation's claim expires the old one: what it leaked becomes collectable.
  const expired = f.leakingByReplica[e.replica] ?? 0;
  const lower = Math.max(cfg.asOf ?? 0, s.shard.upper);
  const replicas = set(s.replicas, e.replica, freshReplica(cfg, lower, site.rep.incarnation + 1));
  return ok(
    { kind: 'restart', replica: e.replica, lower },
    {
      shard: s.shard,
      replicas,
      history: {
        ...s.history,
        faults: {
          ...f,
          leakingByReplica: f.leakingByReplica.map((n, r) => (r === e.replica ? 0 : n)),
          leaksExpired: f.leaksExpired + expired,
          pendingCleanups: f.pendingCleanups + (cfg.faults?.cleanup === true ? 1 : 0),
        },
      },
    },
  );
}

/** The replica's sink has nothing left to write: its mint sealed K and no superseded description waits
 * for its stale delete (vocab/PROTOCOL.md "Faults"). */
const isSealedReplica = (rep: ReplicaState): boolean => isIn(rep.mint, 'sealed') && rep.superseded === null;

/** Every replica is up and sealed (nothing of the sink is left to run). */
const allSealed = (s: SystemState): boolean => s.replicas.every((rep) => rep.up && isSealedReplica(rep));

function cleanupEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'cleanup' }>): Prediction {
  const no = requireFaults(cfg, 'a cleanup');
  if (no !== null) return fail(no);
  const site = anyReplicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const f = s.history.faults;
  const final = f.pendingCleanups === 0;
  if (cfg.faults?.cleanup !== true) return fail('cleanup is off in this config');
  if (final && (!allSealed(s) || f.finalCleanup)) {
    return fail(f.finalCleanup ? 'the final cleanup already ran' : 'no cleanup is due: none follows a restart, and the run is not over');
  }
  return ok(
    { kind: 'cleanup', replica: e.replica, deleted: e.deleted },
    {
      shard: s.shard,
      replicas: s.replicas,
      history: {
        ...s.history,
        faults: {
          ...f,
          pendingCleanups: final ? 0 : f.pendingCleanups - 1,
          finalCleanup: f.finalCleanup || final,
          leaksCollected: f.leaksCollected + f.leaksExpired,
          leaksExpired: 0,
        },
      },
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// The step function

/** The model's version of `event` and the next state, or why the event's actor cannot take it now. */
export function predict(cfg: ModelConfig, s: SystemState, event: TraceEvent): Prediction {
  // A switch rather than ts-pattern's `match`: this runs for every replayed event, and matching object
  // patterns one after the other cost ~6% of a conformance run. `never` keeps it exhaustive.
  switch (event.kind) {
    case 'frontier':
      return frontier(cfg, s, event);
    case 'mint':
      return mintEvent(cfg, s, event);
    case 'poll':
      return pollEvent(cfg, s, event);
    case 'stage':
      return stage(cfg, s, event);
    case 'open':
      return open(cfg, s, event);
    case 'push':
      return push(cfg, s, event);
    case 'finish-begin':
      return finishBegin(cfg, s, event);
    case 'finish-end':
      return finishEnd(cfg, s, event);
    case 'skip':
      return skip(cfg, s, event);
    case 'timeout':
      return timeoutEvent(cfg, s, event);
    case 'superseded':
      return supersededEvent(cfg, s, event);
    case 'own-batch':
      return ownBatch(cfg, s, event);
    case 'hand':
      return hand(cfg, s, event);
    case 'append':
      return appendEvent(cfg, s, event);
    case 'delete':
      return deleteEvent(cfg, s, event);
    case 'backpressure':
      return backpressureEvent(cfg, s, event);
    case 'bump':
      return bumpEvent(cfg, s, event);
    case 'sweep':
      return sweepEvent(cfg, s, event);
    case 'sweep-hold':
      return sweepHold(cfg, s, event);
    case 'sweep-release':
      return sweepRelease(cfg, s, event);
    case 'drop':
      return fail('drop (a handle dropped without finish) is the drop-without-finish bug; every model handle finishes');
    case 'fault':
      return faultEvent(cfg, s, event);
    case 'abort':
      return abortEvent(cfg, s, event);
    case 'restart':
      return restartEvent(cfg, s, event);
    case 'cleanup':
      return cleanupEvent(cfg, s, event);
    default:
      return unknownEvent(event);
  }
}

function unknownEvent(event: never): Prediction {
  return fail(`unknown event kind ${JSON.stringify((event as { kind?: unknown }).kind)}`);
}

/**
 * First field (depth-first, in the model's field order) where `actual` differs from `expected`, as
 * `path expected X, got Y`. Arrays of plain values are reported whole (`stage.updates expected [1,2] …`).
 */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | null {
  return covers(expected, actual) ? null : differenceAt(expected, actual, path);
}

/** `actual` has every field of `expected` with an equal value: the allocation-free common case. */
function covers(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return Object.is(expected, actual);
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (!covers(expected[i], actual[i])) return false;
    return true;
  }
  if (Array.isArray(actual)) return false;
  const act = actual as Record<string, unknown>;
  const exp = expected as Record<string, unknown>;
  for (const key in exp) if (!covers(exp[key], act[key])) return false;
  return true;
}

function differenceAt(expected: unknown, actual: unknown, path: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return describeDiff(path, expected, actual);
    for (let i = 0; i < expected.length; i++) {
      const d = differenceAt(expected[i], actual[i], `${path}[${i}]`);
      if (d !== null) return isPlain(expected[i]) ? describeDiff(path, expected, actual) : d;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      return describeDiff(path, expected, actual);
    }
    const act = actual as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      const d = differenceAt(value, act[key], `${path}.${key}`);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : describeDiff(path, expected, actual);
}

const isPlain = (x: unknown): boolean => typeof x !== 'object' || x === null;
const describeDiff = (path: string, expected: unknown, actual: unknown): string =>
  `${path} expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;

export function step(cfg: ModelConfig, state: SystemState, event: TraceEvent): StepResult {
  const p = predict(cfg, state, event);
  if (!p.ok) {
    const expected = enabledActions(cfg, state).find((x) => sameActor(x, event));
    return { ok: false, reason: `not enabled: ${event.kind}: ${p.reason}`, ...(expected === undefined ? {} : { expected }) };
  }
  const diff = firstDifference(p.expected, event, event.kind);
  if (diff !== null) return { ok: false, reason: `predicted field differs: ${diff}`, expected: p.expected };
  return { ok: true, state: p.next };
}

/** Same actor: the same worker, or the same registry, or the same replica for replica-level events. */
function sameActor(a: TraceEvent, b: TraceEvent): boolean {
  const actor = (e: TraceEvent): string =>
    'worker' in e
      ? `w${e.replica}/${e.worker}`
      : 'process' in e
        ? `p${e.replica}/${e.process}`
        : `r${e.replica}`;
  return actor(a) === actor(b);
}

// ---------------------------------------------------------------------------------------------------
// Enabled actions

/**
 * Who proposes events. In the fault world (cfg.faults) first each replica's faults (abort a running
 * replica, restart a down one, let the append's compare-and-set apply and answer with an error) and the
 * cleanup; then, replica by replica, the mint (frontier, mint), each worker, the append operator (append,
 * delete) and each process's registry (sweep). `candidates` asks them in this order; a down replica's
 * sink proposes nothing. The packed search (model/packed/) memoizes each actor's proposals by what it
 * reads. Faults that are retried and change nothing are not explored (they are stuttering steps);
 * `predict` enforces the config's bounds.
 */
export type Actor =
  | { readonly kind: 'faults'; readonly replica: number }
  | { readonly kind: 'cleanup'; readonly replica: number }
  | { readonly kind: 'mint'; readonly replica: number }
  | { readonly kind: 'worker'; readonly replica: number; readonly worker: number }
  | { readonly kind: 'append'; readonly replica: number };

/** Every actor of the configuration, in the order `candidates` asks them. */
export function actorsOf(cfg: ModelConfig): Actor[] {
  const out: Actor[] = [];
  if (cfg.faults !== undefined) {
    for (let replica = 0; replica < cfg.replicas; replica++) out.push({ kind: 'faults', replica });
    out.push({ kind: 'cleanup', replica: 0 });
  }
  for (let replica = 0; replica < cfg.replicas; replica++) {
    out.push({ kind: 'mint', replica });
    for (let worker = 0; worker < workersPerReplica(cfg); worker++) out.push({ kind: 'worker', replica, worker });
    out.push({ kind: 'append', replica });
  }
  return out;
}

/** One candidate per choice of this actor; predicted fields are placeholders (predict ignores them). */
export function actorCandidates(cfg: ModelConfig, s: SystemState, actor: Actor): TraceEvent[] {
  const r = actor.replica;
  const rep = s.replicas[r] as ReplicaState;
  if (actor.kind === 'faults') {
    if (!rep.up) return [{ kind: 'restart', replica: r, lower: 0 }];
    const out: TraceEvent[] = [{ kind: 'abort', replica: r, reason: 'explored' }];
    if (rep.append !== null && isIn(rep.append, 'ready')) out.push({ kind: 'fault', replica: r, op: 'consensus.cas', fault: 'indeterminate-applied' });
    return out;
  }
  if (actor.kind === 'cleanup') return [{ kind: 'cleanup', replica: 0, deleted: 0 }];
  if (!rep.up) return [];
  switch (actor.kind) {
    case 'mint': {
      const desc = rep.mint.context.live;
      const out: TraceEvent[] = [{ kind: 'frontier', replica: r, upper: 0 }];
      // With a description live, a mint is a supersede: only with another replica to move the shard.
      if (desc !== null && (rep.superseded !== null || cfg.replicas < 2)) return out;
      if (cfg.knobs !== undefined) {
        // The workload's knobs decide what the mint reads: one candidate, its values computed.
        out.push({ kind: 'mint', replica: r, desc: { lower: 0, upper: 0, appendWorker: 0, sharedId: 0, maxBytes: 0, barrier: false } });
        return out;
      }
      const choices = mintChoices(cfg);
      for (const maxBytes of choices.maxBytes) {
        for (const barrier of choices.barrier) {
          out.push({ kind: 'mint', replica: r, desc: { lower: 0, upper: 0, appendWorker: 0, sharedId: 0, maxBytes, barrier } });
        }
      }
      return out;
    }
    case 'worker': {
      const own = workerCandidates(cfg, rep, r, actor.worker);
      // A barrier's timer has no actor of its own (as the registry's sweep has none): the first worker
      // of its process proposes it.
      if (actor.worker % cfg.workersPerProcess !== 0 || !barrierTimesOut(cfg)) return own;
      return [...own, ...timerCandidates(rep, r, processOf(cfg, actor.worker))];
    }
    case 'append': {
      const stale: TraceEvent[] = rep.superseded === null ? [] : [{ kind: 'delete', replica: r, lower: 0, batches: 0, reason: 'stale' }];
      if (rep.mint.context.live === null || rep.append === null) return stale;
      if (isIn(rep.append, 'ready') || isIn(rep.append, 'committed')) {
        const none = { hollow: 0, inline: 0 };
        return [
          ...stale,
          { kind: 'append', replica: r, lower: 0, upper: 0, batches: 0, parts: none, runs: 0, updates: [], result: { ok: true } },
          { kind: 'backpressure', replica: r, lower: 0, inlineBytes: 0, adding: 0, flushed: 0 },
          { kind: 'bump', replica: r, from: 0, to: 0 },
        ];
      }
      if (isIn(rep.append, 'mismatched')) return [...stale, { kind: 'delete', replica: r, lower: 0, batches: 0, reason: 'mismatch' }];
      return stale;
    }
  }
}

/** A worker's own candidates: the next step of its description (in a builder() call: its open, and the
 * sweep the call may owe). */
function workerCandidates(cfg: ModelConfig, rep: ReplicaState, r: number, w: number): TraceEvent[] {
  const sup = rep.superseded;
  const lagging = sup !== null && sup.append.context.handed[w] === null;
  const desc = lagging ? sup.desc : rep.mint.context.live;
  if (desc === null) return [];
  const ref = { replica: r, process: processOf(cfg, w), worker: w, sharedId: desc.sharedId };
  const path = pathOf((rep.workers[w] as Local<WorkerContext>).value);
  const h = rep.handles[w];
  if (path === 'idle') return [lagging ? { kind: 'superseded', ...ref } : { kind: 'stage', ...ref, updates: [], bytes: 0, route: 'none' }];
  if (path === 'shared.opening') {
    // The builder() call: its lookup, or first the sweep it owes (with the bug: visit by visit).
    const at = { replica: r, process: ref.process, worker: w };
    const open: TraceEvent[] = [{ kind: 'open', ...ref, created: false, participants: null }, { kind: 'sweep', ...at, removed: [] }];
    if (cfg.bugs?.sweepUpgradeRace !== true) return open;
    return [...open, { kind: 'sweep-hold', ...at, sharedId: 0 }, { kind: 'sweep-release', ...at, sharedId: 0, closed: false }];
  }
  if (path === 'shared.holdingHandle' && h !== null && h !== undefined) {
    const rest = h.context.staged.slice(h.context.pushed, h.context.pushed + (cfg.pushChunkUpdates ?? h.context.staged.length));
    if (isIn(h, 'finishing')) return [{ kind: 'finish-end', ...ref, received: null }];
    if (rest.length > 0) return [{ kind: 'push', ...ref, updates: rest }];
    return [{ kind: 'finish-begin', ...ref, last: false }];
  }
  if (path.endsWith('reportingSkip')) return [{ kind: 'skip', ...ref, early: false }];
  if (path === 'fallback.writing') {
    return [{ kind: 'own-batch', ...ref, batch: { updates: [], parts: { hollow: 0, inline: 0 }, partBytes: [] } }];
  }
  if (path === 'handing') return [{ kind: 'hand', ...ref, batches: [] }];
  return [];
}

/** The timers of a process's barriers, for the live and the superseded description (an older one's
 * barrier completed: every worker handed it); predict decides whether one may fire now. */
function timerCandidates(rep: ReplicaState, r: number, process: number): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const desc of [rep.mint.context.live, rep.superseded?.desc ?? null]) {
    if (desc !== null && desc.barrier) out.push({ kind: 'timeout', replica: r, process, sharedId: desc.sharedId, completes: false });
  }
  return out;
}

/** One candidate per actor and choice, actor by actor (`actorsOf`). */
function candidates(cfg: ModelConfig, s: SystemState): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const actor of actorsOf(cfg)) out.push(...actorCandidates(cfg, s, actor));
  return out;
}

export interface Successor {
  readonly event: TraceEvent;
  readonly next: SystemState;
}

/** Every enabled action with the state it leads to (exploration: one push per shared worker). */
export function successors(cfg: ModelConfig, state: SystemState): Successor[] {
  const out: Successor[] = [];
  for (const c of candidates(cfg, state)) {
    const p = predict(cfg, state, c);
    if (p.ok) out.push({ event: p.expected, next: p.next });
  }
  return out;
}

export function enabledActions(cfg: ModelConfig, state: SystemState): TraceEvent[] {
  return successors(cfg, state).map((x) => x.event);
}

/** Final: no action is enabled — the run is over (in the clean model: every interval sealed). */
export function isFinal(cfg: ModelConfig, state: SystemState): boolean {
  return successors(cfg, state).length === 0;
}

/** Every replica (up, after any restart) sealed all K intervals and nothing is in flight. */
export function isSealed(state: SystemState): boolean {
  return allSealed(state);
}

/**
 * Canonical serialization. SUBTLE: relies on every object of the state being built by fixed code paths
 * (object literals, XState's `assign` merging into the previous context), so equal states list their
 * keys in the same order; system.test.ts checks this against a key-sorting serializer.
 */
export function serialize(state: SystemState): string {
  return JSON.stringify(state);
}
