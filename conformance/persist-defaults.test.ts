import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PERSIST_CONFIG } from '../impl/persist/config.ts';
import type { PersistConfig } from '../vocab/index.ts';
import { runCheck } from './check.ts';
import { DEFAULT_BLOB_TARGET, DEFAULT_INLINE_TOTAL, INLINE_SINGLE_MAX, persistOverrides } from './workload.ts';
import fc from 'fast-check';
import { workloadArb } from './workload.ts';

const saved: PersistConfig = { ...DEFAULT_PERSIST_CONFIG };
const defaults = DEFAULT_PERSIST_CONFIG as { -readonly [K in keyof PersistConfig]: PersistConfig[K] };

describe("the implementation's persist defaults are checked, not bypassed", () => {
  afterEach(() => {
    Object.assign(defaults, saved);
  });

  it("agree with the kit's own statement of Materialize's, and most runs use them", () => {
    expect(saved).toEqual({ blobTargetSize: DEFAULT_BLOB_TARGET, inlineSingleMaxBytes: INLINE_SINGLE_MAX, inlineTotalMaxBytes: DEFAULT_INLINE_TOTAL, maxRuns: 1 });
    const ws = fc.sample(workloadArb('best-effort'), { numRuns: 200, seed: 3 });
    const onDefaults = ws.filter((w) => Object.keys(persistOverrides(w)).length === 0).length;
    expect(onDefaults).toBeGreaterThan(20);
  });

  it('sbkit check fails an implementation whose default inline_writes_total_max_bytes is 1 byte (MiB = 1024 / 1024)', async () => {
    defaults.inlineTotalMaxBytes = 1;
    const broken = await runCheck({ variant: 'off', runs: 200, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/backpressure/);
  });
});
