/** `barrier` (#37617) in the model: shared; the barrier flag on unless the workload sets it. */
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { flaggedSharing } from './policy.ts';

export const barrier = flaggedSharing(barrierMeta, true);
