/** Fault-world events: fault, abort, restart, cleanup (vocab/PROTOCOL.md "Faults"). */
import type { Description, TraceEvent } from '../../vocab/index.ts';
import type { BuilderView } from '../../spec/view.ts';
import { append } from '../append.ts';
import type { ModelConfig } from '../config.ts';
import { isIn, pathOf } from '../local.ts';
import { partsNow } from '../parts.ts';
import type { ReplicaState, SystemState } from '../state.ts';
import { type Prediction, fail, ok } from './prediction.ts';
import { freshReplica } from './initial.ts';
import { set, withReplica } from './helpers.ts';
import { anyReplicaSite, replicaSite } from './sites.ts';
import { appendRecord } from './replica-events.ts';
import { staleCount } from './worker-events.ts';

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

export function faultEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'fault' }>): Prediction {
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

export function abortEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'abort' }>): Prediction {
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

export function restartEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'restart' }>): Prediction {
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

/** Replica `replica` is up and sealed (vocab/PROTOCOL.md "Faults", **Sealed**). */
export const isReplicaSealed = (s: SystemState, replica: number): boolean => {
  const rep = s.replicas[replica];
  return rep !== undefined && rep.up && isSealedReplica(rep);
};

/** Every replica is up and sealed (nothing of the sink is left to run). */
export const allSealed = (s: SystemState): boolean => s.replicas.every((rep) => rep.up && isSealedReplica(rep));

export function cleanupEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'cleanup' }>): Prediction {
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
