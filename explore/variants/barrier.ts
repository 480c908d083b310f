/** `barrier` (#37617) in explore/. */
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { offMeta } from '../../vocab/variants/off.ts';
import { fixed, percent } from '../format.ts';
import type { ExploreVariant } from './presentation.ts';

/** Barrier PUTs may be at most this share of off's. */
const MAX_BARRIER_PUT_SHARE = 0.2;

export const barrier: ExploreVariant = {
  meta: barrierMeta,
  style: { color: '#0072b2', dash: '6 4', width: 2, marker: 'diamond' },
  criteria: ({ row }) => {
    const r = row(barrierMeta.name);
    const off = row(offMeta.name);
    return [
      {
        name: 'barrier: exactly one part per append',
        ok: r.partsPerAppend === 1,
        detail: `barrier parts/append = ${fixed(r.partsPerAppend, 3)}`,
      },
      {
        name: 'barrier blob PUTs at most 20% of off',
        ok: r.blobPuts <= MAX_BARRIER_PUT_SHARE * off.blobPuts,
        detail: `${r.blobPuts} of ${off.blobPuts} = ${percent(r.blobPuts, off.blobPuts)}`,
      },
    ];
  },
  unwitnessed: { 'sometimes-several-batches-for-one-id': 'the barrier builds one batch per id' },
  neverReached: {
    'builder|live --> notLive_dead : SWEEP_RELEASE [holdsLastRef]':
      "under the barrier every handle keeps its reference until its finish returns, so a sweep's release is never the last one while the builder is live",
  },
};
