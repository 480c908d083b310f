/**
 * Variants' options on the command line and in an experiment: one flag per option of every registered
 * variant (vocab VariantOptionSpec `flag`, e.g. `--barrier-timeout T`), parsed as the option's type says,
 * carried by variant in `Setup.variantOptions` (and `ModelCheckRequest.variantOptions`) into each run's
 * RunConfig and model configuration, and written back into the setup line, the JSON config and the
 * reproduce line. A variant without options adds nothing anywhere (no flag, no field).
 */
import type { Variant, VariantMeta, VariantOptionSpec, VariantOptionValues } from '../vocab/index.ts';
import { type Flag, type FlagSpec, type Parsed, bad, good, optional } from './args.ts';
import { EXPLORE_VARIANTS } from './variants/index.ts';

/** Options by variant, as given on the command line (an option not given is absent: its default applies). */
export type OptionsByVariant = Readonly<Record<Variant, VariantOptionValues>>;

export interface OptionFlag {
  readonly variant: Variant;
  readonly spec: VariantOptionSpec;
  /** The flag's key in a FlagSpec (its name without the dashes). */
  readonly key: string;
}

/** The options of `metas` as command-line flags, in their order. */
export const optionFlagsOfVariants = (metas: readonly VariantMeta[]): readonly OptionFlag[] =>
  metas.flatMap((m) => m.options.map((spec) => ({ variant: m.name, spec, key: spec.flag.replace(/^--/, '') })));

/** Every registered variant's options as flags, in registry order. */
export const OPTION_FLAGS = optionFlagsOfVariants(EXPLORE_VARIANTS.map((v) => v.meta));

/** A duration: milliseconds as a number with an optional unit (`0`, `1ms`, `2.5ms`, `1s`), or `inf` where the option allows it. */
export function parseDuration(raw: string, inf: boolean): Parsed<number> {
  const t = raw.trim();
  if (inf && t === 'inf') return good(Number.POSITIVE_INFINITY);
  const m = /^(\d*\.?\d+)(ms|s)?$/.exec(t);
  const n = m === null ? Number.NaN : Number(m[1]) * (m[2] === 's' ? 1000 : 1);
  if (!Number.isFinite(n)) return bad(`expected a duration (0, 1ms, 2.5ms, 1s${inf ? ' or inf' : ''}), got ${JSON.stringify(raw)}`);
  return good(n);
}

/** A duration as the command line takes it back: `inf`, `0`, `5ms`, `2.5ms`. */
export function formatDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'inf';
  return ms === 0 ? '0' : `${Number(ms.toPrecision(12))}ms`;
}

export function optionFlag({ variant, spec }: OptionFlag): Flag<number | undefined> {
  return optional(
    {
      help: `${spec.help} (variant ${variant})`,
      placeholder: spec.inf ? 'T|inf' : 'T',
      takesValue: true,
      repeatable: false,
      defaultValue: spec.default,
      parse: (raw) => parseDuration(raw, spec.inf),
    },
    formatDuration(spec.default),
  );
}

/** Every registered variant's options as flags, keyed by flag name (none while no variant has options). */
export const VARIANT_OPTION_FLAGS: FlagSpec = Object.fromEntries(OPTION_FLAGS.map((o) => [o.key, optionFlag(o)]));

/** The options the parsed flags set, by variant; undefined when none was given. */
export function optionsFromFlags(values: object, flags: readonly OptionFlag[] = OPTION_FLAGS): OptionsByVariant | undefined {
  const given = values as Readonly<Record<string, unknown>>;
  const out: Record<Variant, Record<string, number>> = {};
  for (const o of flags) {
    const v = given[o.key];
    if (typeof v !== 'number') continue;
    out[o.variant] = { ...out[o.variant], [o.spec.name]: v };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A run's `variantOptions` field for `variant` under `setup` (spread into RunConfig / ModelConfig):
 * nothing when the setup gives it none. */
export function variantOptionsOf(setup: { readonly variantOptions?: OptionsByVariant | undefined }, variant: Variant): { variantOptions?: VariantOptionValues } {
  const o = setup.variantOptions?.[variant];
  return o === undefined ? {} : { variantOptions: o };
}

/** What the options say in words and flags, in registry order: `['--barrier-timeout 5ms']`. */
export function optionFlagsOf(options: OptionsByVariant | undefined, flags: readonly OptionFlag[] = OPTION_FLAGS): string[] {
  if (options === undefined) return [];
  return flags.flatMap((o) => {
    const v = options[o.variant]?.[o.spec.name];
    return v === undefined ? [] : [`${o.spec.flag} ${formatDuration(v)}`];
  });
}

/** The options as JSON-safe text, by variant (`inf` is not a JSON number). */
export function optionsJson(options: OptionsByVariant): Record<Variant, Record<string, string>> {
  return Object.fromEntries(Object.entries(options).map(([v, o]) => [v, Object.fromEntries(Object.entries(o).flatMap(([k, x]) => (x === undefined ? [] : [[k, formatDuration(x)]])))]));
}
