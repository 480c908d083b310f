/** `best-effort` (#37591) in the model: shared; the barrier flag off unless the workload sets it. */
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { flaggedSharing } from './policy.ts';

export const bestEffort = flaggedSharing(bestEffortMeta, false);
