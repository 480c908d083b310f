/** The variant `barrier-timeout`: #37617's barrier, bounded by a deadline. Its behaviour: impl/variants/barrier-timeout.ts, model/variants/barrier-timeout.ts. */
import type { VariantMeta } from '../variant.ts';
import { barrierMeta } from './barrier.ts';

export const barrierTimeoutMeta: VariantMeta = {
  name: 'barrier-timeout',
  meaning:
    "#37617's barrier with a deadline: it waits at most T after its first report, then completes with the workers that joined; later workers share among themselves best-effort (vocab/PROTOCOL.md \"Barrier with a deadline\").",
  options: [
    {
      name: 'timeout',
      flag: '--barrier-timeout',
      help: "how long the barrier waits after its first report before it completes with the workers that joined (inf: it waits for every worker, as barrier does)",
      type: 'duration',
      inf: true,
      default: 20,
    },
  ],
  // A barrier: a worker with nothing to write reports by finishing an empty handle (barrier.ts).
  defaultNoData: 'finish',
  // Every bug of the barrier can show under it (before its deadline it is that barrier).
  galleryBugs: [...barrierMeta.galleryBugs, 'timer-seals-pushing-handle', 'late-worker-joins-completed-barrier'],
};
