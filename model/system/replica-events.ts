/** Replica events: frontier, mint, append, delete. */
import type { AppendResult, Description, PartsSummary, TraceEvent } from '../../vocab/index.ts';
import type { AppendView } from '../../spec/view.ts';
import { ascending } from '../../spec/view.ts';
import { append, type AppendContext } from '../append.ts';
import { knobValue, mintChoices, processOf, workersPerReplica, type ModelConfig } from '../config.ts';
import { policyOf } from '../variants/index.ts';
import { isIn, type Local } from '../local.ts';
import { mint } from '../mint.ts';
import { inlineBytesOf, inlineParts, partsNow, runsOf, summarize } from '../parts.ts';
import type { History, ReplicaState, SystemState } from '../state.ts';
import { worker } from '../worker.ts';
import { type Prediction, fail, ok } from './prediction.ts';
import { withReplica } from './helpers.ts';
import { replicaSite } from './sites.ts';
import { pendingStale, staleCount } from './worker-events.ts';

export function frontier(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'frontier' }>): Prediction {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return fail(site);
  const next = mint.fire(site.rep.mint, { type: 'FRONTIER' });
  if (next === null) return fail(`replica ${e.replica}'s desired frontier is already ${cfg.intervals}`);
  return ok({ kind: 'frontier', replica: e.replica, upper: next.context.desired }, withReplica(s, e.replica, { mint: next }));
}

export function mintEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'mint' }>): Prediction {
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
export function pollEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'poll' }>): Prediction {
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
export function appendRecord(
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
    incarnation: rep.incarnation,
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

export function appendEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'append' }>): Prediction {
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

export function backpressureEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'backpressure' }>): Prediction {
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

export function bumpEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'bump' }>): Prediction {
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

export function deleteEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'delete' }>): Prediction {
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
