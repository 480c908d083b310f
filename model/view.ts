/**
 * viewOf: the model state's projection onto spec/view.ts's SystemView — the same view spec/'s
 * `viewFromTrace` derives from a trace, so properties judge model and implementation alike. Both end in
 * `assembleView`, which fixes the view's config, desired updates and builder order.
 */
import { assembleView, type BuilderView, type StorageFacts, type SystemView } from '../spec/view.ts';
import type { ModelConfig } from './config.ts';
import type { SystemState } from './state.ts';
import { builderViewsOf, isFinal } from './system.ts';

export function viewOf(cfg: ModelConfig, state: SystemState, final: boolean = isFinal(cfg, state)): SystemView {
  // Builders of aborted incarnations live on in the history; the current ones in the registries.
  const builders: BuilderView[] = [...state.history.faults.retiredBuilders];
  state.replicas.forEach((rep, replica) => {
    if (rep.up) builders.push(...builderViewsOf(rep, replica));
  });
  const { history } = state;
  const f = history.faults;
  // A shared batch is written when a finish returns it, or when it is closed for nobody.
  const sharedWritten = builders.reduce((n, b) => n + b.receivers + (b.deliveredToNobody ? 1 : 0), 0);
  return assembleView(cfg, {
    appends: history.appends,
    builders,
    shardUppers: history.shardUppers,
    finishes: { begun: history.finishesBegun, ended: history.finishesEnded, abandoned: f.finishesAbandoned },
    batches: {
      written: history.ownBatches + sharedWritten,
      appended: history.appends.reduce((n, a) => n + (a.result.ok ? a.batches.length : 0), 0),
      deleted: history.deleted,
      abandoned: f.batchesAbandoned,
    },
    faults: { aborts: f.aborts, restarts: state.replicas.reduce((n, r) => n + r.incarnation, 0), indeterminateCommits: f.indeterminate },
    final,
    ...(cfg.faults === undefined ? {} : { storage: storageOf(cfg, state) }),
  });
}

/**
 * The model's storage facts, in leak units (batches and builder instances in the making): leaks come
 * only from aborts in the model, and a cleanup collects those of expired incarnations.
 */
function storageOf(cfg: ModelConfig, state: SystemState): StorageFacts {
  const f = state.history.faults;
  const leaking = f.leakingByReplica.reduce((a, b) => a + b, 0) + f.leaksExpired;
  return {
    leakedFromAborted: leaking + f.leaksCollected,
    leakedFromLive: 0,
    leakedAfterCleanup: cfg.faults?.cleanup === true && (f.finalCleanup || f.leaksCollected > 0) ? leaking : null,
    referencedDeleted: f.referencedDeleted,
    lost: 0,
    duplicated: 0,
  };
}
