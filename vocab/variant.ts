/**
 * A variant as vocabulary: its name, its one-line meaning, the options it takes and the gallery bugs
 * that show under it — data only, like the rest of vocab/ (no logic here).
 *
 * A variant is a definition registered once per layer, each importing this meta from
 * `vocab/variants/<name>.ts`:
 * - impl/variants/: the sharing policy the sink's write path and SharedBatches consult;
 * - model/variants/: the policy the model's machines consult (system.ts asks it);
 * - explore/variants/: presentation (chart style, done-criteria, model-check and coverage notes).
 * Every other module asks a layer's registry (its `index.ts`): it iterates the variants or looks one
 * up by name, and never compares a variant's name. Adding a variant: see impl/variants/index.ts.
 */
import type { BugName, NoDataPolicy } from './index.ts';

/** A registered variant's name. Which names exist is what the layers' registries list (one list, the
 * same in every layer: vocab/variant-registry.test.ts). */
export type Variant = string;

/**
 * An option of a variant: set on the command line (`flag`), carried as `variantOptions[name]` by the
 * implementation's RunConfig, the model's ModelConfig, compare's setup and the check's workload. A bad
 * value is refused by a typed error naming the option (impl: `invalid-config`; model: ConfigError; the
 * command line: a flag error) before any work is done.
 */
export interface VariantOptionSpec {
  /** Its key in `variantOptions` (e.g. `timeout`). */
  readonly name: string;
  /** The command-line flag (e.g. `--barrier-timeout`); unique over every registered variant. */
  readonly flag: string;
  /** One line for `--help`. */
  readonly help: string;
  /** `duration`: milliseconds, a finite number ≥ 0; on the command line a number with a unit
   * (`0`, `1ms`, `2.5ms`, `1s`). */
  readonly type: 'duration';
  /** Whether `inf` (Infinity: never) is a value. */
  readonly inf: boolean;
  /** The value when the option is not given (milliseconds, or Infinity). */
  readonly default: number;
}

/** A variant's options as given (`undefined`: the default), keyed by option name. */
export type VariantOptionValues = Readonly<Record<string, number | undefined>>;

/** A variant's options resolved: every option of the variant, with its value (durations in ms,
 * Infinity for `inf`). Empty for a variant without options. */
export type VariantOptions = Readonly<Record<string, number>>;

export interface VariantMeta {
  readonly name: Variant;
  /** One line: what the variant does (the report's "what ran" block, `--help`). */
  readonly meaning: string;
  readonly options: readonly VariantOptionSpec[];
  /** The gallery bugs that can show under this variant (a barrier bug cannot show without a barrier):
   * `sbkit check --bug B` without `--variant` checks B on every variant listing it, in registry order. */
  readonly galleryBugs: readonly BugName[];
  /** What a worker with no data does when a run sets no policy (vocab NoDataPolicy, PROTOCOL.md "No data"). */
  readonly defaultNoData: NoDataPolicy;
}
