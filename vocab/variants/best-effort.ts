/** The variant `best-effort` (#37591). Its behaviour: impl/variants/best-effort.ts, model/variants/best-effort.ts. */
import type { VariantMeta } from '../variant.ts';

export const bestEffortMeta: VariantMeta = {
  name: 'best-effort',
  meaning: '#37591: one shared batch per process, which a worker joins only while an earlier handle to it is still alive; late workers start a new one.',
  options: [],
  defaultNoData: 'skip',
  galleryBugs: [
    'sweep-upgrade-race',
    'drop-without-finish',
    'late-handle-joins-finished-builder',
    'append-keeps-batches-on-mismatch',
    'threshold-inclusive',
    'indeterminate-cas-deletes-batches',
    'restart-rewrites-appended-interval',
    'cleanup-deletes-in-flight-part',
    'mismatch-delete-error-swallowed',
    'barrier-flag-read-per-worker',
    'empty-finish-hands-nothing',
    'stale-hand-appended',
    // Two sinks' workers meet in one registry only where they share.
    'batch-ids-collide-across-sinks',
    // Own batches: every worker's with sharing off, fallbacks with it on.
    'own-batch-ignores-max-runs',
  ],
};
