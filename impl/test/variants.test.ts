/** impl/variants/: the registry, each variant's policy, and a variant's options resolved or refused. */
import { describe, expect, it } from 'vitest';
import { finiteProbeMeta, probeMeta } from '../../vocab/test-support/probe-variant.ts';
import { SbkitError } from '../errors.ts';
import { resolveRunConfig } from '../run-config.ts';
import { ASYNC_SINK_POLICY, IMPL_VARIANTS, VARIANTS, implVariant, sharingPolicy } from '../variants/index.ts';
import { resolveVariantOptions } from '../variants/options.ts';

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof SbkitError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'accepted';
};

describe('the impl variant registry', () => {
  it('looks a variant up by name, and refuses another name with a typed error listing the registered ones', () => {
    expect(VARIANTS).toEqual(IMPL_VARIANTS.map((v) => v.meta.name));
    for (const name of VARIANTS) expect(implVariant(name).meta.name).toBe(name);
    expect(refusal(() => implVariant('fast'))).toBe(`invalid-config: variant must be one of ${VARIANTS.join(', ')}, got "fast"`);
    expect(refusal(() => resolveRunConfig({ variant: 'fast', replicas: 1, processes: 1, workersPerProcess: 1, intervals: 1, updates: [], maxBytes: 1 }))).toMatch(/^invalid-config: variant must be one of/);
  });

  it('gives each variant its policy: whether it shares, the barrier flag by default, the barrier of a flagged description', () => {
    const policies = VARIANTS.map((v) => {
      const p = sharingPolicy(v);
      return [v, p.sharing, p.barrierByDefault, p.barrier(3).participants];
    });
    expect(policies).toEqual([
      ['off', false, false, 3],
      ['best-effort', true, false, 3],
      ['barrier', true, true, 3],
      ['barrier-timeout', true, true, 3],
    ]);
    expect(ASYNC_SINK_POLICY.sharing).toBe(false);
  });

  it('reads the flag default from the policy when a run sets none, and the run\'s own flag otherwise', () => {
    const base = { replicas: 1, processes: 1, workersPerProcess: 1, intervals: 1, updates: [], maxBytes: 1 } as const;
    expect(VARIANTS.map((variant) => resolveRunConfig({ ...base, variant }).barrier)).toEqual([false, false, true, true]);
    expect(resolveRunConfig({ ...base, variant: 'best-effort', barrier: true }).barrier).toBe(true);
  });
});

describe("a variant's options", () => {
  it('default what is not given and keep what is', () => {
    expect(resolveVariantOptions(probeMeta, undefined)).toEqual({ timeout: Number.POSITIVE_INFINITY });
    expect(resolveVariantOptions(probeMeta, { timeout: 5 })).toEqual({ timeout: 5 });
    expect(resolveVariantOptions(probeMeta, { timeout: 0 })).toEqual({ timeout: 0 });
    expect(resolveVariantOptions(finiteProbeMeta, {})).toEqual({ timeout: 5 });
    expect(resolveVariantOptions(implVariant('barrier').meta, undefined)).toEqual({});
  });

  it('refuse a bad value, an option the variant does not take and a non-object with a typed error naming the option', () => {
    expect(refusal(() => resolveVariantOptions(probeMeta, { timeout: -1 }))).toBe('invalid-config: variantOptions.timeout of variant probe must be a duration in ms ≥ 0, or Infinity (inf), got -1');
    expect(refusal(() => resolveVariantOptions(probeMeta, { timeout: '5ms' }))).toMatch(/^invalid-config: variantOptions\.timeout of variant probe .* got "5ms"$/);
    expect(refusal(() => resolveVariantOptions(probeMeta, { timeout: Number.NaN }))).toMatch(/variantOptions\.timeout/);
    expect(refusal(() => resolveVariantOptions(finiteProbeMeta, { timeout: Number.POSITIVE_INFINITY }))).toMatch(/^invalid-config: variantOptions\.timeout of variant finite-probe must be a finite duration/);
    expect(refusal(() => resolveVariantOptions(probeMeta, { wait: 1 }))).toBe('invalid-config: variantOptions.wait: variant probe has no option "wait" (it takes timeout)');
    expect(refusal(() => resolveVariantOptions(probeMeta, 'inf'))).toBe('invalid-config: variantOptions must be an object, got "inf"');
  });

  it('are refused by a run of a variant that takes none, before the run starts', () => {
    const config = { variant: 'barrier', variantOptions: { timeout: 1 }, replicas: 1, processes: 1, workersPerProcess: 1, intervals: 1, updates: [], maxBytes: 1 } as const;
    expect(refusal(() => resolveRunConfig(config))).toBe('invalid-config: variantOptions.timeout: variant barrier has no option "timeout" (it takes none)');
  });
});
