/** model/variants/: the registry, each variant's policy as system.ts and config.ts consult it, options. */
import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import { finiteProbeMeta, probeMeta } from '../../vocab/test-support/probe-variant.ts';
import { ConfigError, mintChoices, validateConfig, validateVariantOptions } from '../config.ts';
import { config } from '../test-support/driver.ts';
import { MODEL_VARIANT_NAMES, policyOf, sharingOn } from './index.ts';

const configError = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return `${e.field}: ${e.problem}`;
    throw e;
  }
  return 'accepted';
};

describe('the model variant registry', () => {
  it('refuses a configuration of a variant it does not list, naming the field', () => {
    expect(configError(() => validateConfig(config({ variant: 'fast' })))).toBe(`variant: must be one of ${MODEL_VARIANT_NAMES.join(', ')}`);
  });

  it('gives system.ts what each variant does: sharing, the flag a mint reads, the barrier, the properties', () => {
    const rows = MODEL_VARIANT_NAMES.map((variant) => {
      const cfg = config({ variant });
      const p = policyOf(cfg);
      return [variant, sharingOn(cfg, 100), sharingOn(cfg, 0), mintChoices(cfg).barrier, p.barrier(cfg.workersPerProcess).participants, p.properties(properties).length];
    });
    expect(rows).toEqual([
      ['off', false, false, [false], 2, properties.length],
      ['best-effort', true, false, [false], 2, properties.length],
      ['barrier', true, false, [true], 2, properties.length],
      // the same count: barrier-one-shared-batch-per-process gives way to the per-group property
      ['barrier-timeout', true, false, [true], 2, properties.length],
    ]);
    // a flag that flips is explored where the variant shares, never where it does not
    expect(MODEL_VARIANT_NAMES.map((variant) => mintChoices(config({ variant, barrierChoices: [false, true] })).barrier)).toEqual([[false], [false, true], [false, true], [false, true]]);
  });

  it("refuses an option the variant does not take, and a bad value of one it takes, naming the option", () => {
    expect(configError(() => validateConfig(config({ variant: 'barrier', variantOptions: { timeout: 1 } })))).toBe('variantOptions.timeout: is no option of variant barrier');
    expect(configError(() => validateVariantOptions(probeMeta, { timeout: -1 }))).toBe('variantOptions.timeout: must be a duration in ms ≥ 0 or Infinity');
    expect(configError(() => validateVariantOptions(finiteProbeMeta, { timeout: Number.POSITIVE_INFINITY }))).toBe('variantOptions.timeout: must be a duration in ms ≥ 0');
    expect(configError(() => validateVariantOptions(probeMeta, [1]))).toBe('variantOptions: must be an object');
    expect(configError(() => validateVariantOptions(probeMeta, { timeout: Number.POSITIVE_INFINITY }))).toBe('accepted');
    expect(configError(() => validateVariantOptions(probeMeta, { timeout: 0 }))).toBe('accepted');
  });
});
