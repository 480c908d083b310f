/**
 * A variant's presentation in explore/: how its series are drawn, its done-criteria on a comparison,
 * and why the model check or the coverage never see some things under it. Each variant's definition
 * (`off.ts`, `best-effort.ts`, `barrier.ts`) is one `ExploreVariant`; `index.ts` registers them. Its
 * behaviour comes from impl/variants/ (what compare runs) and model/variants/ (what the model predicts);
 * its name, meaning and options from vocab/variants/.
 */
import type { Variant, VariantMeta } from '../../vocab/index.ts';
import type { Criterion } from '../criteria.ts';
import type { Figures, Setup } from '../types.ts';

/** How a variant's series are drawn (svg.ts): colour, dash pattern, stroke width, marker. */
export interface SeriesStyle {
  readonly color: string;
  readonly dash: string;
  readonly width: number;
  readonly marker: 'circle' | 'square' | 'diamond' | 'triangle';
}

/** A steady comparison of every registered variant, as the criteria read it. */
export interface CriteriaInput {
  /** A variant's headline row (every registered variant was compared). */
  row(variant: Variant): Figures;
  /** Workers of the whole replica (processes × workers per process). */
  readonly workers: number;
}

/** What a variant's report section is given: the report's setup (the headline's) and variants, a
 * progress callback, and how the report writes a reproduce line. */
export interface SectionContext {
  readonly setup: Setup;
  readonly variants: readonly Variant[];
  readonly progress: (fraction: number, label: string) => void;
  /** The `sbkit compare` line that reproduces a comparison on `setup` (report.ts compareCommand). */
  readonly compareCommand: (scenario: string, setup: Setup, extra?: readonly string[]) => string;
  /** The latency section's straggler workload and probabilities (job.ts DEFAULT_STRAGGLER_SWEEP unless the
   * job was given its own), so a section about stragglers runs the same work. */
  readonly stragglers?: { readonly rows: number; readonly rowBytes: number; readonly intervals: number; readonly probabilities: readonly number[] } | undefined;
}

/** A section a variant adds to the report: its own module, a data function and an HTML renderer (joined by
 * `sectionOf`, or by `lazySection` when the module is to be imported only when the report runs it). */
export interface VariantSection<D> {
  /** The anchor and table-of-contents entry. */
  readonly id: string;
  /** The heading. */
  readonly title: string;
  /** Runs what the section shows. */
  data(ctx: SectionContext): Promise<D>;
  /** The section's HTML after its heading (self-contained: inline SVG, no scripts). */
  html(data: D, ctx: SectionContext): string;
}

/** A variant section as the registry holds it: its data and renderer joined (`sectionOf`). */
export interface ReportSection {
  readonly id: string;
  readonly title: string;
  render(ctx: SectionContext): Promise<string>;
}

export const sectionOf = <D>(s: VariantSection<D>): ReportSection => ({
  id: s.id,
  title: s.title,
  render: async (ctx) => s.html(await s.data(ctx), ctx),
});

/** A section's data function and renderer, without its heading. */
export type SectionBody<D> = Pick<VariantSection<D>, 'data' | 'html'>;

/** A section whose module is imported only when the report runs it: a section runs comparisons, and the
 * modules that run them read this registry, so the variant's definition cannot import them statically. */
export const lazySection = <D>(head: Pick<VariantSection<D>, 'id' | 'title'>, load: () => Promise<SectionBody<D>>): ReportSection => ({
  id: head.id,
  title: head.title,
  render: async (ctx) => {
    const body = await load();
    return body.html(await body.data(ctx), ctx);
  },
});

export interface ExploreVariant {
  readonly meta: VariantMeta;
  readonly style: SeriesStyle;
  /** The done-criteria this variant adds (explore/criteria.ts: in registry order, before the
   * criteria every variant shares — nothing lost, duplicated or leaked; the model predicts every append). */
  criteria(input: CriteriaInput): readonly Criterion[];
  /** `sbkit model --check`: why a `sometimes` property is never witnessed under this variant, by
   * property name, when that is structural (the line says so instead of only "NOT witnessed"). */
  readonly unwitnessed: Readonly<Record<string, string>>;
  /** `sbkit model --coverage`: why a transition is never reached under this variant (keyed
   * `machine|transition`, as explore/coverage.ts NEVER_REACHED for every variant). */
  readonly neverReached: Readonly<Record<string, string>>;
  /** Report sections this variant adds (after the latency section), when the report runs it. */
  readonly sections?: readonly ReportSection[];
}
