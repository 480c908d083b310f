/** Sweeps over a variant's options (sweep-params.ts), with test variants' options (no registry needed). */
import { describe, expect, it } from 'vitest';
import { finiteProbeMeta, probeMeta } from '../vocab/test-support/probe-variant.ts';
import { parseSweep } from './setup-flags.ts';
import { atSweepPoint, formatParam, isFixedParam, paramAxis, sweepParamNames, sweptVariant } from './sweep-params.ts';
import type { Setup } from './types.ts';
import { optionFlagsOfVariants } from './variant-options.ts';

const flags = optionFlagsOfVariants([probeMeta, finiteProbeMeta]);
const base: Setup = { replicas: 1, processes: 1, workers: 2, intervals: 1, rows: 1, rowBytes: 1, threshold: 1, seed: 1 };

describe('sweep parameters', () => {
  it("are the fixed ones, then every variant's option by its flag's name", () => {
    expect(sweepParamNames(flags).slice(-3)).toEqual(['stragglers', 'probe-timeout', 'finite-probe-timeout']);
    expect(['threshold', 'probe-timeout'].map((p) => isFixedParam(p))).toEqual([true, false]);
    expect(sweptVariant('probe-timeout', flags)).toBe('probe');
    expect(sweptVariant('workers', flags)).toBeUndefined();
  });

  it("parse an option's values as its flag does (inf only where it allows it), and refuse an unknown parameter naming them all", () => {
    expect(parseSweep('probe-timeout=0,1ms,2.5ms,inf', flags)).toEqual({ ok: true, value: { param: 'probe-timeout', values: [0, 1, 2.5, Number.POSITIVE_INFINITY] } });
    const noInf = parseSweep('finite-probe-timeout=1ms,inf', flags);
    expect(noInf.ok === false && noInf.reason).toMatch(/^finite-probe-timeout=inf: expected a duration/);
    const unknown = parseSweep('timeout=1ms', flags);
    expect(unknown.ok === false && unknown.reason).toMatch(/PARAM one of threshold, .*, stragglers, probe-timeout, finite-probe-timeout, got "timeout=1ms"/);
    const empty = parseSweep('probe-timeout=', flags);
    expect(empty.ok === false && empty.reason).toBe('probe-timeout: give at least one value, e.g. probe-timeout=0,5ms');
    // the fixed parameters parse as before
    expect(parseSweep('threshold=0,1KiB', flags)).toEqual({ ok: true, value: { param: 'threshold', values: [0, 1024] } });
  });

  it("put a point's value into that variant's options, keeping the others, and read it back as the command line writes it", () => {
    const withOther: Setup = { ...base, variantOptions: { 'finite-probe': { timeout: 3 } } };
    expect(atSweepPoint(withOther, 'probe-timeout', 5, flags).variantOptions).toEqual({ 'finite-probe': { timeout: 3 }, probe: { timeout: 5 } });
    expect(atSweepPoint(base, 'probe-timeout', Number.POSITIVE_INFINITY, flags).variantOptions).toEqual({ probe: { timeout: Number.POSITIVE_INFINITY } });
    expect([0, 1, 2.5, Number.POSITIVE_INFINITY].map((v) => formatParam('probe-timeout', v, flags))).toEqual(['0', '1ms', '2.5ms', 'inf']);
    expect([formatParam('threshold', 1024, flags), formatParam('stragglers', 0.05, flags), formatParam('workers', 4, flags)]).toEqual(['1KiB', '5%', '4']);
    expect(paramAxis('probe-timeout', flags)).toBe('timeout of probe (virtual ms)');
    expect(paramAxis('workers', flags)).toBe('workers per process');
    expect(() => atSweepPoint(base, 'nope', 1, flags)).toThrow(/no sweep parameter "nope"/);
  });
});
