/**
 * Every default of RunConfig is the implementation's own in most runs, judged against the model's
 * (run-defaults.ts): a default changed in impl/run-config.ts fails the check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonDefaults } from './run-defaults.ts';
import { plant } from './test-support/plant.ts';
import { DEFAULT_BOUNDS, workloadArb } from './workload.ts';

/** `sbkit check` (one variant, or all) on a copy of the kit with impl/run-config.ts changed: it fails. */
function fails(from: string, to: string, args: readonly string[]): string {
  const p = plant({ file: 'impl/run-config.ts', from, to });
  try {
    const r = p.sbkit(['check', '--seed', '1', '--no-shrink', '--runs', '100', ...args]);
    expect(r.code, r.output.slice(0, 3000)).toBe(1);
    return r.output;
  } finally {
    p.dispose();
  }
}

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

  it.each([
    ['the no-data policy', 'const noData = config.noData ?? policy.meta.defaultNoData;', "const noData = config.noData ?? 'skip';", ['--variant', 'barrier']],
    ['the sink', "const sink = config.sink ?? 'v2';", "const sink = config.sink ?? 'v1';", ['--variant', 'best-effort']],
    ['the barrier flag', 'const barrier = config.barrier ?? policy.barrierByDefault;', 'const barrier = config.barrier ?? !policy.barrierByDefault;', ['--variant', 'best-effort']],
    ['the as-of', "const asOf = requireInteger(config.asOf ?? 0, 0, 'asOf');", "const asOf = requireInteger(config.asOf ?? (config.intervals > 1 ? 1 : 0), 0, 'asOf');", ['--variant', 'off']],
    ['the push chunk', 'config.pushChunkUpdates ?? DEFAULT_PUSH_CHUNK_UPDATES', 'config.pushChunkUpdates ?? 1', ['--variant', 'best-effort']],
    ['the pacing', "const pacing = config.pacing ?? 'lockstep';", "const pacing = config.pacing ?? 'free';", ['--variant', 'off']],
    ['cleanup in the fault world', 'cleanup: config.cleanup ?? config.faults !== undefined,', 'cleanup: config.cleanup ?? false,', ['--variant', 'off', '--faults']],
  ])('%s: another default fails the check', (_, from, to, args) => {
    const out = fails(from, to, args);
    expect(out).toMatch(/^ {2}- \[(refinement|impl-error|property|liveness)\] /m);
  });
});
