/** Which runs a scenario consists of, and which of a comparison's rows is a variant's headline figure. */
import { NO_DATA_POLICIES, type NoDataPolicy, type Variant } from '../vocab/index.ts';
import { UNLIMITED } from './args.ts';
import { sharesAtAll, variantMeta } from './variants/index.ts';
import type { Case, Comparison, Figures, Scenario, Setup } from './types.ts';

/**
 * The cases of a scenario. Hydration adds, for each sharing variant, a run with an unlimited threshold.
 * With `--no-data both` every sharing case runs twice, under `skip` and under `finish` (off never shares:
 * the policy cannot matter there).
 */
export function casesFor(scenario: Scenario, variants: readonly Variant[], threshold: number, noData?: Setup['noData']): Case[] {
  const base = variants.map((variant) => ({ variant, threshold }));
  const cases = scenario === 'hydration' ? [...base, ...variants.filter((v) => sharesAtAll(v) && threshold !== UNLIMITED).map((variant) => ({ variant, threshold: UNLIMITED }))] : base;
  if (noData !== 'both') return cases;
  return cases.flatMap((c): Case[] => (sharesAtAll(c.variant) ? NO_DATA_POLICIES.map((policy) => ({ ...c, noData: policy })) : [c]));
}

/** The no-data policy a case runs under: its own (`--no-data both`), the setup's, or (undefined) the variant's default. */
export function noDataOf(setup: Setup, c: Case): NoDataPolicy | undefined {
  return c.noData ?? (setup.noData === 'both' ? undefined : setup.noData);
}

/** Whether the comparison shows the empty-finish columns: a policy of `finish` was asked for. */
export const showsEmptyFinishes = (setup: Setup): boolean => setup.noData === 'finish' || setup.noData === 'both';

/** A variant's row at the comparison's own threshold (hydration runs the sharing variants at UNLIMITED too). */
export function headlineRow(c: Comparison, variant: Variant): Figures | undefined {
  return c.rows.find((r) => r.variant === variant && r.threshold === c.setup.threshold && (r.noData === undefined || r.noData === variantMeta(variant).defaultNoData));
}
