/** `off` in impl/: sharing disabled — every worker writes its own batch; no knob is read, no
 * SharedBatches is opened (its barrier, the common one, is never asked for). */
import { offMeta } from '../../vocab/variants/off.ts';
import { everyWorker, type ImplVariant } from './policy.ts';

export const off: ImplVariant = {
  meta: offMeta,
  policy: (options) => ({ meta: offMeta, options, sharing: false, barrierByDefault: false, barrier: everyWorker }),
};
