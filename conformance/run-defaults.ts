/**
 * What a run hands the implementation: only the fields whose value differs from the default the model
 * states (model/defaults.ts; persist tunables: workload.ts persistOverrides). A field left out runs on
 * the implementation's own default, while the model computes with its own: a wrong default in
 * impl/run-config.ts shows as a run the model does not accept (Stryker: with every field always set,
 * mutants of those defaults survived every check). Pacing is not the model's (it allows any): the
 * implementation's default is held to lockstep by pacing.ts.
 */
import type { RunConfig } from '../impl/run-config.ts';
import { MODEL_DEFAULTS } from '../model/defaults.ts';
import { defaultBarrier, defaultNoData } from '../model/variants/index.ts';
import { barrierAt, type Workload } from './workload.ts';

/** The kit's default pacing (impl RunConfig.pacing), held by pacing.ts. */
export const DEFAULT_PACING = 'lockstep';

/** The run-configuration fields of `w` that are not at their default. */
export function nonDefaults(w: Workload): Partial<RunConfig> {
  const flags = new Set(w.barrierFlags);
  const barrierIsDefault = flags.size === 1 && flags.has(defaultBarrier(w.variant));
  return {
    ...(w.asOf === MODEL_DEFAULTS.asOf ? {} : { asOf: w.asOf }),
    ...(barrierIsDefault ? {} : { barrier: ({ desired }: { readonly desired: number }) => barrierAt(w, desired) }),
    ...(w.pushChunkUpdates === MODEL_DEFAULTS.pushChunkUpdates ? {} : { pushChunkUpdates: w.pushChunkUpdates }),
    ...(w.noData === defaultNoData(w.variant) ? {} : { noData: w.noData }),
    ...(w.sink === MODEL_DEFAULTS.sink ? {} : { sink: w.sink }),
    ...(w.pacing === DEFAULT_PACING ? {} : { pacing: w.pacing }),
  };
}
