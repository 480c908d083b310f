/** `barrier` (#37617) in impl/: shared, the barrier flag on unless the run sets it (off: best-effort
 * for that description). */
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { flaggedSharing } from './policy.ts';

export const barrier = flaggedSharing(barrierMeta, true);
