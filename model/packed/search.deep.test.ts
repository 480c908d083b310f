/**
 * Deep: the packed search without reductions held to the plain search on the large worlds, where the
 * plain search (model/search.ts, a JSON string per state) takes seconds each: the fault world's
 * best-effort and barrier at their pinned counts, two replicas with faults, and the barrier's supersede.
 * search.test.ts holds the small worlds in `npm test`.
 */
import { describe, it } from 'vitest';
import type { ModelConfig } from '../config.ts';
import { config, tiny, u } from '../test-support/driver.ts';
import { FAULTS, expectAsPlain, expectPinnedAsPlain, supersede } from './test-support/plain.ts';

describe('the packed search without reductions equals the plain search, on the large worlds', () => {
  it.each<[string, number, ModelConfig]>([
    ['tiny best-effort, faults', 22_053, { ...tiny('best-effort'), faults: FAULTS }],
    ['tiny barrier, faults', 7_563, { ...tiny('barrier'), faults: FAULTS }],
  ])('%s: %i states, the same finals, verdicts and traces', (_name, states, cfg) => {
    expectPinnedAsPlain(cfg, states);
  });

  it.each<[string, ModelConfig]>([
    ['two replicas with faults', { ...config({ variant: 'best-effort', replicas: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 5)] }), faults: FAULTS }],
    ['supersede, barrier', supersede('barrier')],
  ])('%s', (_name, cfg) => {
    expectAsPlain(cfg);
  });
});
