/**
 * The packed search without reductions held to the plain search (model/search.ts), shared by
 * search.test.ts (small configurations, `npm test`) and search.deep.test.ts (the large ones).
 */
import { expect } from 'vitest';
import { properties } from '../../../spec/properties.ts';
import type { ModelConfig } from '../../config.ts';
import { search } from '../../search.ts';
import { config, u } from '../../test-support/driver.ts';
import { Engine } from '../engine.ts';
import { searchPacked } from '../search.ts';

/** The defaults of `sbkit model --check` (explore/model-check.ts checkConfig) without importing explore/. */
export const check = (variant: ModelConfig['variant'], over: Partial<ModelConfig> = {}): ModelConfig =>
  config({
    variant,
    updates: [u(0, 0, 0, 10), u(1, 0, 1, 100)],
    maxBytesChoices: [0, 50, 1000],
    ...over,
  });

/** Two replicas × 1 worker over 2 intervals (the knobs computed): the smallest world with supersede. */
export const supersede = (variant: ModelConfig['variant']): ModelConfig =>
  config({ variant, replicas: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 5), u(1, 1, 0, 5)], knobs: { maxBytesByLower: [1000], barrierByDesired: [variant === 'barrier'] } });

/** The fault world the pinned counts use: aborts, restarts, an indeterminate compare-and-set, cleanup (model/search.test.ts). */
export const FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/** The plain search and the packed one without reductions, side by side. */
function both(cfg: ModelConfig) {
  const plain = search(cfg, { maxStates: 1_000_000, properties });
  // (the fault history as the model keeps it: the summary merges states the plain search tells apart)
  const packed = searchPacked(cfg, { maxStates: 1_000_000, properties }, new Engine(cfg, properties, { historySummary: false }));
  return { plain, packed };
}

/** Both searches visit the pinned number of states, with the same finals, verdicts and (same BFS order) the very same shortest witnesses. */
export function expectPinnedAsPlain(cfg: ModelConfig, states: number): void {
  const { plain, packed } = both(cfg);
  expect(packed.states).toBe(states);
  expect(plain.states).toBe(states);
  expect(packed.complete).toBe(true);
  expect(packed.finals).toBe(plain.finals);
  expect(packed.violations).toEqual(plain.violations);
  // the same BFS order: the very same shortest witnesses
  expect(packed.witnesses).toEqual(plain.witnesses);
  expect(packed.unreached).toEqual(plain.unreached);
}

/** The packed search visits the states the plain search visits, with the same finals, verdicts and witnesses. */
export function expectAsPlain(cfg: ModelConfig): void {
  const { plain, packed } = both(cfg);
  expect(packed.states).toBe(plain.states);
  expect(packed.finals).toBe(plain.finals);
  expect(packed.violations).toEqual(plain.violations);
  expect(packed.witnesses).toEqual(plain.witnesses);
}
