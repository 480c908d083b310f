/** `barrier-timeout` in the model: the barrier (flag on unless the workload sets it) with a deadline
 * when its `timeout` option is finite (the model has no clock: the timer may fire at any moment after the
 * first report); judged by barrier-one-shared-batch-per-group instead of barrier-one-shared-batch-per-process. */
import { barrierTimeoutMeta } from '../../vocab/variants/barrier-timeout.ts';
import { flaggedSharing, withDeadline } from './policy.ts';

export const barrierTimeout = withDeadline(flaggedSharing(barrierTimeoutMeta, true), (options) => options['timeout'] ?? Number.POSITIVE_INFINITY);
