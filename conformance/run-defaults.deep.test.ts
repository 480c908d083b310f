/**
 * A default changed in impl/run-config.ts fails the check (run-defaults.ts: conformance leaves each field
 * out in most runs, so the implementation's own default runs against the model's). Deep: each case copies
 * the kit with the change and runs `sbkit check` in a process of its own (seconds each).
 */
import { describe, expect, it } from 'vitest';
import { plant } from './test-support/plant.ts';

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

describe("a default of the run configuration changed in the implementation fails the check", () => {
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
