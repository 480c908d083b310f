/** `off` in explore/: the baseline every sharing variant is measured against. */
import { offMeta } from '../../vocab/variants/off.ts';
import { fixed } from '../format.ts';
import type { ExploreVariant } from './presentation.ts';

/** Off counts as "about one part per worker" within this relative distance. */
const OFF_TOLERANCE = 0.1;

export const off: ExploreVariant = {
  meta: offMeta,
  style: { color: '#8c8c8c', dash: '', width: 5, marker: 'circle' },
  criteria: ({ row, workers }) => {
    const r = row(offMeta.name);
    return [
      {
        name: 'off: about one part per worker',
        ok: Math.abs(r.partsPerAppend - workers) <= OFF_TOLERANCE * workers,
        detail: `off parts/append = ${fixed(r.partsPerAppend, 3)} at ${workers} workers`,
      },
    ];
  },
  unwitnessed: {
    'sometimes-several-batches-for-one-id': 'off never shares',
    'sometimes-fallback-and-shared-in-one-append': 'off never shares',
  },
  neverReached: {},
};
