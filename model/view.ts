/**
 * viewOf: the model state's projection onto spec/view.ts's SystemView — the same view spec/'s
 * `viewFromTrace` derives from a trace, so properties judge model and implementation alike.
 */
import { byBuilder, desiredOf, viewConfig, type BuilderView, type SystemView } from '../spec/view.ts';
import type { ModelConfig } from './config.ts';
import type { SystemState } from './state.ts';
import { isFinal } from './system.ts';

export function viewOf(cfg: ModelConfig, state: SystemState, final: boolean = isFinal(cfg, state)): SystemView {
  const builders: BuilderView[] = [];
  let sharedWritten = 0;
  state.replicas.forEach((rep, replica) =>
    rep.registries.forEach((reg, process) =>
      reg.builders.forEach((b, sharedId) =>
        b?.context.instances.forEach((rec, instance) => {
          const deliveredToNobody = rec.toNobody && rec.pushed.length > 0;
          sharedWritten += rec.receipts + (deliveredToNobody ? 1 : 0);
          builders.push({
            replica,
            process,
            sharedId,
            instance,
            handles: rec.handles,
            receivers: rec.receipts,
            updates: [...rec.pushed].sort((x, y) => x - y),
            deliveredToNobody,
          });
        }),
      ),
    ),
  );
  const { history } = state;
  return {
    config: viewConfig(cfg),
    desired: desiredOf(cfg),
    appends: history.appends,
    builders: builders.sort(byBuilder),
    shardUppers: history.shardUppers,
    finishes: { begun: history.finishesBegun, ended: history.finishesEnded },
    batches: {
      written: history.ownBatches + sharedWritten,
      appended: history.appends.reduce((n, a) => n + (a.result.ok ? a.batches.length : 0), 0),
      deleted: history.deleted,
    },
    final,
  };
}
