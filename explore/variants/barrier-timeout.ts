/** `barrier-timeout` in explore/: drawn green and dotted, judged between the barrier and best-effort, with
 * the report section "Bounding the barrier's wait" (barrier-timeout-report.ts). */
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { barrierTimeoutMeta } from '../../vocab/variants/barrier-timeout.ts';
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { fixed, millis } from '../format.ts';
import { lazySection, type ExploreVariant } from './presentation.ts';

export const barrierTimeout: ExploreVariant = {
  meta: barrierTimeoutMeta,
  style: { color: '#009e73', dash: '2 3', width: 2, marker: 'triangle' },
  criteria: ({ row }) => {
    const r = row(barrierTimeoutMeta.name);
    const barrier = row(barrierMeta.name);
    const be = row(bestEffortMeta.name);
    return [
      {
        name: `${barrierTimeoutMeta.name}: parts per append from the barrier's to best-effort's`,
        ok: r.partsPerAppend >= barrier.partsPerAppend && r.partsPerAppend <= be.partsPerAppend,
        detail: `${fixed(barrier.partsPerAppend, 3)} ≤ ${fixed(r.partsPerAppend, 3)} ≤ ${fixed(be.partsPerAppend, 3)}`,
      },
      {
        name: `${barrierTimeoutMeta.name}: p99 commit latency no higher than the barrier's`,
        ok: r.latencyP99Ms <= barrier.latencyP99Ms,
        detail: `${millis(r.latencyP99Ms)} against ${millis(barrier.latencyP99Ms)}`,
      },
    ];
  },
  unwitnessed: {},
  neverReached: {},
  // Its module runs comparisons (whose modules read this registry): imported when the report runs it.
  sections: [lazySection({ id: 'bounding-the-wait', title: "Bounding the barrier's wait" }, async () => (await import('./barrier-timeout-report.ts')).boundingTheWait)],
};
