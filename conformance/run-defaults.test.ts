/**
 * Every default of RunConfig is the implementation's own in most runs, judged against the model's
 * (run-defaults.ts); run-defaults.deep.test.ts shows a default changed in impl/run-config.ts failing the check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonDefaults } from './run-defaults.ts';
import { DEFAULT_BOUNDS, workloadArb } from './workload.ts';

describe("the run configuration's defaults are the implementation's, judged by the model's", () => {
  it('most runs leave every field at its default out', () => {
    for (const variant of ['off', 'best-effort', 'barrier'] as const) {
      const ws = fc.sample(workloadArb(variant, DEFAULT_BOUNDS), { numRuns: 200, seed: 4 });
      const none = ws.filter((w) => Object.keys(nonDefaults(w)).length === 0).length;
      expect(none, variant).toBeGreaterThan(0);
      for (const field of ['asOf', 'barrier', 'pushChunkUpdates', 'noData', 'sink', 'pacing']) {
        expect(ws.filter((w) => !(field in nonDefaults(w))).length, `${variant}: ${field} left out`).toBeGreaterThan(40);
      }
    }
  });

});
