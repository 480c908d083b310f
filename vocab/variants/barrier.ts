/** The variant `barrier` (#37617). Its behaviour: impl/variants/barrier.ts, model/variants/barrier.ts. */
import type { VariantMeta } from '../variant.ts';

export const barrierMeta: VariantMeta = {
  name: 'barrier',
  meaning: '#37617: the shared batch waits until every worker of the process has joined (or reported a skip), so each process contributes one batch.',
  options: [],
  // #37617's workers report "a write, or a skip (`note_skip` from the Timely supersede path)": a worker
  // with nothing to write reports by finishing an empty handle (vocab/PROTOCOL.md "No data").
  defaultNoData: 'finish',
  galleryBugs: [
    'drop-without-finish',
    'barrier-lost-wakeup',
    'barrier-skip-double-count',
    'append-keeps-batches-on-mismatch',
    'threshold-inclusive',
    'indeterminate-cas-deletes-batches',
    'restart-rewrites-appended-interval',
    'cleanup-deletes-in-flight-part',
    'mismatch-delete-error-swallowed',
    'barrier-flag-read-per-worker',
    'empty-finish-hands-nothing',
    'stale-hand-appended',
    'batch-ids-collide-across-sinks',
    // Own batches: every worker's with sharing off, fallbacks with it on.
    'own-batch-ignores-max-runs',
  ],
};
