/** `barrier-timeout` in impl/: the barrier (flag on unless the run sets it) with a deadline, its `timeout`
 * option (shared/barrier-timer.ts; `inf`: no deadline, the barrier as it is). */
import { barrierTimeoutMeta } from '../../vocab/variants/barrier-timeout.ts';
import { flaggedSharing, withDeadline } from './policy.ts';

export const barrierTimeout = withDeadline(flaggedSharing(barrierTimeoutMeta, true), (options) => options['timeout'] ?? Number.POSITIVE_INFINITY);
