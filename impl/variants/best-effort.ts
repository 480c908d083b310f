/** `best-effort` (#37591) in impl/: shared, the barrier flag off unless the run sets it (then the
 * description's shared batch waits at the barrier: the flag flips per description). */
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { flaggedSharing } from './policy.ts';

export const bestEffort = flaggedSharing(bestEffortMeta, false);
