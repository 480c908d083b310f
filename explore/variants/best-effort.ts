/** `best-effort` (#37591) in explore/. */
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { offMeta } from '../../vocab/variants/off.ts';
import { fixed } from '../format.ts';
import type { ExploreVariant } from './presentation.ts';

export const bestEffort: ExploreVariant = {
  meta: bestEffortMeta,
  style: { color: '#e69f00', dash: '', width: 3, marker: 'square' },
  criteria: ({ row }) => {
    const be = row(bestEffortMeta.name);
    const off = row(offMeta.name);
    return [
      {
        name: 'best-effort strictly between barrier (1.0) and off',
        ok: be.partsPerAppend > 1 && be.partsPerAppend < off.partsPerAppend,
        detail: `1.0 < ${fixed(be.partsPerAppend, 3)} < ${fixed(off.partsPerAppend, 3)}`,
      },
    ];
  },
  unwitnessed: {},
  neverReached: {},
};
