/** Which runs a scenario consists of. */
import type { Variant } from '../vocab/index.ts';
import { UNLIMITED } from './args.ts';
import type { Case, Scenario } from './types.ts';

/** The cases of a scenario. Hydration adds, for each sharing variant, a run with an unlimited threshold. */
export function casesFor(scenario: Scenario, variants: readonly Variant[], threshold: number): Case[] {
  const base = variants.map((variant) => ({ variant, threshold }));
  switch (scenario) {
    case 'steady':
      return base;
    case 'hydration':
      return [...base, ...variants.filter((v) => v !== 'off' && threshold !== UNLIMITED).map((variant) => ({ variant, threshold: UNLIMITED }))];
  }
}
