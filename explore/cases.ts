/** Which runs a scenario consists of, and which of a comparison's rows is a variant's headline figure. */
import type { Variant } from '../vocab/index.ts';
import { UNLIMITED } from './args.ts';
import { sharesAtAll } from './variants/index.ts';
import type { Case, Comparison, Figures, Scenario } from './types.ts';

/** The cases of a scenario. Hydration adds, for each sharing variant, a run with an unlimited threshold. */
export function casesFor(scenario: Scenario, variants: readonly Variant[], threshold: number): Case[] {
  const base = variants.map((variant) => ({ variant, threshold }));
  switch (scenario) {
    case 'steady':
    case 'small-writes':
      return base;
    case 'hydration':
      return [...base, ...variants.filter((v) => sharesAtAll(v) && threshold !== UNLIMITED).map((variant) => ({ variant, threshold: UNLIMITED }))];
  }
}

/** A variant's row at the comparison's own threshold (hydration runs the sharing variants at UNLIMITED too). */
export function headlineRow(c: Comparison, variant: Variant): Figures | undefined {
  return c.rows.find((r) => r.variant === variant && r.threshold === c.setup.threshold);
}
