/** Variant options on the command line: durations parsed and written back, flags from each option. */
import { describe, expect, it } from 'vitest';
import { finiteProbeMeta, probeMeta } from '../vocab/test-support/probe-variant.ts';
import { parseArgs } from './args.ts';
import { VARIANT_OPTION_FLAGS, formatDuration, optionFlag, optionFlagsOf, optionFlagsOfVariants, optionsFromFlags, optionsJson, parseDuration, variantOptionsOf } from './variant-options.ts';
import { EXPLORE_VARIANTS } from './variants/index.ts';

describe('durations', () => {
  it('parse with a unit or bare milliseconds, and inf only where the option allows it', () => {
    expect(['0', '1ms', '2.5ms', '1s', ' 20ms ', '.5ms'].map((raw) => parseDuration(raw, false))).toEqual([0, 1, 2.5, 1000, 20, 0.5].map((value) => ({ ok: true, value })));
    expect(parseDuration('inf', true)).toEqual({ ok: true, value: Number.POSITIVE_INFINITY });
    expect(parseDuration('inf', false)).toEqual({ ok: false, reason: 'expected a duration (0, 1ms, 2.5ms, 1s), got "inf"' });
    for (const raw of ['-1ms', '5 ms', 'soon', '1h', '']) expect(parseDuration(raw, true).ok, raw).toBe(false);
  });

  it('are written back as the command line takes them', () => {
    expect([Number.POSITIVE_INFINITY, 0, 5, 2.5, 1000].map(formatDuration)).toEqual(['inf', '0', '5ms', '2.5ms', '1000ms']);
    for (const ms of [0, 0.25, 5, 1000, Number.POSITIVE_INFINITY]) expect(parseDuration(formatDuration(ms), true)).toEqual({ ok: true, value: ms });
  });
});

describe('option flags', () => {
  const flags = optionFlagsOfVariants([probeMeta, finiteProbeMeta]);
  const spec = Object.fromEntries(flags.map((f) => [f.key, optionFlag(f)]));

  it('one per option of every variant, named by its spec, parsed into options by variant', () => {
    expect(flags.map((f) => f.key)).toEqual(['probe-timeout', 'finite-probe-timeout']);
    const parsed = parseArgs(spec, ['--probe-timeout', 'inf', '--finite-probe-timeout', '20ms']);
    if (parsed.kind !== 'values') throw new Error(parsed.kind);
    const options = optionsFromFlags(parsed.values, flags);
    expect(options).toEqual({ probe: { timeout: Number.POSITIVE_INFINITY }, 'finite-probe': { timeout: 20 } });
    expect(optionFlagsOf(options, flags)).toEqual(['--probe-timeout inf', '--finite-probe-timeout 20ms']);
    expect(optionsJson(options ?? {})).toEqual({ probe: { timeout: 'inf' }, 'finite-probe': { timeout: '20ms' } });
    expect(variantOptionsOf({ variantOptions: options }, 'probe')).toEqual({ variantOptions: { timeout: Number.POSITIVE_INFINITY } });
    expect(variantOptionsOf({ variantOptions: options }, 'other')).toEqual({});
  });

  it('refuse a bad value naming the flag, and set nothing when not given', () => {
    const parsed = parseArgs(spec, ['--finite-probe-timeout', 'inf']);
    expect(parsed.kind === 'error' && parsed.message).toMatch(/--finite-probe-timeout.*expected a duration/);
    const none = parseArgs(spec, []);
    if (none.kind !== 'values') throw new Error(none.kind);
    expect(optionsFromFlags(none.values, flags)).toBeUndefined();
    expect(optionFlagsOf(undefined, flags)).toEqual([]);
  });

  it('exist exactly for the registered variants\' options (none today: no flag, no field)', () => {
    const registered = EXPLORE_VARIANTS.flatMap((v) => v.meta.options.map((o) => o.flag.replace(/^--/, '')));
    expect(Object.keys(VARIANT_OPTION_FLAGS)).toEqual(registered);
    expect(optionsFromFlags({})).toBeUndefined();
  });
});
