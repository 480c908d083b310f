/**
 * The variant registry of explore/: every variant's presentation, in the registry order of
 * impl/variants/index.ts (the same names: registry.test.ts; how to add a variant is written in
 * impl/variants/index.ts). The command line's `--variant(s)` choices, compare's default variants, the
 * report, the criteria, the model check's and coverage's notes ask it.
 */
import type { Variant } from '../../vocab/index.ts';
import { offMeta } from '../../vocab/variants/off.ts';
import { barrier } from './barrier.ts';
import { barrierTimeout } from './barrier-timeout.ts';
import { bestEffort } from './best-effort.ts';
import { off } from './off.ts';
import type { ExploreVariant } from './presentation.ts';

export type { CriteriaInput, ExploreVariant, ReportSection, SectionBody, SectionContext, SeriesStyle, VariantSection } from './presentation.ts';
export { lazySection, sectionOf } from './presentation.ts';
/** What the variant does, as compare runs it (impl/variants/). */
export { barrierByDefault, sharesAtAll, variantMeta } from '../../impl/variants/index.ts';

export const EXPLORE_VARIANTS: readonly ExploreVariant[] = [off, bestEffort, barrier, barrierTimeout];

/** The registered variants' names, in registry order. */
export const VARIANTS: readonly Variant[] = EXPLORE_VARIANTS.map((v) => v.meta.name);

/** The variant the others are measured against (`% off`, "relative to off"): the one that never shares. */
export const BASELINE: Variant = offMeta.name;

/** A registered variant's presentation, or undefined. */
export const presentationOf = (name: string): ExploreVariant | undefined => EXPLORE_VARIANTS.find((v) => v.meta.name === name);
