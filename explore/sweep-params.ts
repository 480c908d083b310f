/**
 * What `--sweep PARAM=…` can sweep: the fixed parameters of a setup (types.ts SWEEP_PARAMS) and every
 * registered variant's options, by their flag's name (`--sweep barrier-timeout=0,1ms,inf` sweeps the
 * option behind `--barrier-timeout`). One place that knows both: their names, how a value reads, what a
 * chart's axis says, and where a sweep point puts the value in a Setup.
 */
import type { Variant } from '../vocab/index.ts';
import { formatBytesShort } from './args.ts';
import { DEFAULT_STRAGGLER_SLOWDOWN } from './timing.ts';
import { SWEEP_PARAMS, type FixedSweepParam, type Setup, type SweepParam } from './types.ts';
import { OPTION_FLAGS, formatDuration, type OptionFlag } from './variant-options.ts';

export const isFixedParam = (p: SweepParam): p is FixedSweepParam => (SWEEP_PARAMS as readonly string[]).includes(p);

/** The variant option a sweep parameter names, or undefined (a fixed parameter, or unknown). */
export const optionParam = (p: SweepParam, flags: readonly OptionFlag[] = OPTION_FLAGS): OptionFlag | undefined => (isFixedParam(p) ? undefined : flags.find((o) => o.key === p));

/** Every parameter `--sweep` takes, fixed ones first. */
export const sweepParamNames = (flags: readonly OptionFlag[] = OPTION_FLAGS): readonly SweepParam[] => [...SWEEP_PARAMS, ...flags.map((o) => o.key)];

/** The variant whose option `p` is (undefined for a fixed parameter). */
export const sweptVariant = (p: SweepParam, flags: readonly OptionFlag[] = OPTION_FLAGS): Variant | undefined => optionParam(p, flags)?.variant;

/** A swept value as the command line writes it. */
export function formatParam(param: SweepParam, value: number, flags: readonly OptionFlag[] = OPTION_FLAGS): string {
  if (optionParam(param, flags) !== undefined) return formatDuration(value);
  if (param === 'stragglers') return `${Number((value * 100).toPrecision(6))}%`;
  return param === 'threshold' || param === 'row-bytes' ? formatBytesShort(value) : String(value);
}

const FIXED_AXIS: Readonly<Record<FixedSweepParam, string>> = {
  threshold: 'threshold (shared_batch_max_bytes; 0 = sharing off)',
  workers: 'workers per process',
  processes: 'processes per replica',
  replicas: 'replicas',
  intervals: 'batch intervals',
  rows: 'updates per interval',
  'row-bytes': 'bytes per update',
  stragglers: 'straggler probability per worker and description',
};

/** A chart axis's title for the parameter. */
export function paramAxis(param: SweepParam, flags: readonly OptionFlag[] = OPTION_FLAGS): string {
  if (isFixedParam(param)) return FIXED_AXIS[param];
  const o = optionParam(param, flags);
  return o === undefined ? param : `${o.spec.name} of ${o.variant} (virtual ms)`;
}

/** The field of `Setup` each numeric fixed parameter sets. */
const SWEPT_FIELD = {
  threshold: 'threshold',
  workers: 'workers',
  processes: 'processes',
  replicas: 'replicas',
  intervals: 'intervals',
  rows: 'rows',
  'row-bytes': 'rowBytes',
} as const satisfies Record<Exclude<FixedSweepParam, 'stragglers'>, keyof Setup>;

/** `setup` with the swept parameter at `value`. `stragglers` sweeps the probability; the slowdown stays
 * (default 100). A variant's option goes into `variantOptions` of that variant. */
export function atSweepPoint(setup: Setup, param: SweepParam, value: number, flags: readonly OptionFlag[] = OPTION_FLAGS): Setup {
  const o = optionParam(param, flags);
  if (o !== undefined) {
    const mine = { ...setup.variantOptions?.[o.variant], [o.spec.name]: value };
    return { ...setup, variantOptions: { ...setup.variantOptions, [o.variant]: mine } };
  }
  if (!isFixedParam(param)) throw new RangeError(`no sweep parameter ${JSON.stringify(param)}`);
  if (param !== 'stragglers') return { ...setup, [SWEPT_FIELD[param]]: value };
  const { stragglers: _drop, ...rest } = setup;
  return value === 0 ? rest : { ...rest, stragglers: { probability: value, slowdown: setup.stragglers?.slowdown ?? DEFAULT_STRAGGLER_SLOWDOWN } };
}
