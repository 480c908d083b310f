/** The variant `off`: sharing disabled, the baseline. Its behaviour: impl/variants/off.ts, model/variants/off.ts. */
import type { VariantMeta } from '../variant.ts';

export const offMeta: VariantMeta = {
  name: 'off',
  meaning: 'sharing disabled: every worker writes its own batch and the append commits one batch per worker (the baseline).',
  options: [],
  defaultNoData: 'skip',
  galleryBugs: [
    'append-keeps-batches-on-mismatch',
    'indeterminate-cas-deletes-batches',
    'restart-rewrites-appended-interval',
    'cleanup-deletes-in-flight-part',
    'mismatch-delete-error-swallowed',
    'stale-hand-appended',
    // Own batches: every worker's with sharing off, fallbacks with it on.
    'own-batch-ignores-max-runs',
  ],
};
