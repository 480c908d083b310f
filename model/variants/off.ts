/** `off` in the model: no description is shared, the barrier flag is off on every one. */
import { offMeta } from '../../vocab/variants/off.ts';
import { allProperties, everyWorker, type ModelVariant } from './policy.ts';

export const off: ModelVariant = {
  meta: offMeta,
  policy: (options) => ({ meta: offMeta, options, sharing: false, barrierByDefault: false, barrier: everyWorker, properties: allProperties }),
};
