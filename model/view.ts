/**
 * viewOf: the model state's projection onto spec/view.ts's SystemView — the same view spec/'s
 * `viewFromTrace` derives from a trace, so properties judge model and implementation alike. Both end in
 * `assembleView`, which fixes the view's config, desired updates and builder order.
 */
import { assembleView, type BuilderView, type SystemView } from '../spec/view.ts';
import type { ModelConfig } from './config.ts';
import type { SystemState } from './state.ts';
import { isFinal } from './system.ts';

export function viewOf(cfg: ModelConfig, state: SystemState, final: boolean = isFinal(cfg, state)): SystemView {
  const builders: BuilderView[] = [];
  state.replicas.forEach((rep, replica) =>
    rep.registries.forEach((reg, process) =>
      reg.builders.forEach((b, sharedId) =>
        b?.context.instances.forEach((rec, instance) =>
          builders.push({
            replica,
            process,
            sharedId,
            instance,
            handles: rec.handles,
            receivers: rec.receipts,
            updates: rec.pushed,
            deliveredToNobody: rec.toNobody && rec.pushed.length > 0,
          }),
        ),
      ),
    ),
  );
  const { history } = state;
  // A shared batch is written when a finish returns it, or when it is closed for nobody.
  const sharedWritten = builders.reduce((n, b) => n + b.receivers + (b.deliveredToNobody ? 1 : 0), 0);
  return assembleView(cfg, {
    appends: history.appends,
    builders,
    shardUppers: history.shardUppers,
    finishes: { begun: history.finishesBegun, ended: history.finishesEnded },
    batches: {
      written: history.ownBatches + sharedWritten,
      appended: history.appends.reduce((n, a) => n + (a.result.ok ? a.batches.length : 0), 0),
      deleted: history.deleted,
    },
    final,
  });
}
