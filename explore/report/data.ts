/** The data a report is rendered from: what the job computed (explore/job.ts), section by section. */
import type { Reason } from '../command.ts';
import type { Criterion } from '../criteria.ts';
import type { Comparison, SweepResult } from '../types.ts';
import type { CheckSection } from './check.ts';
import type { CoverageSection } from './coverage.ts';
import type { DiagramSection } from './diagrams.ts';
import type { FaultsSection } from './faults.ts';
import type { GallerySection } from './gallery.ts';
import type { LatencySection } from './latency.ts';
import type { ModelCheckSection } from './model-check.ts';
import type { SmallWritesSection } from './small-writes.ts';

/** A variant's report section, run and rendered (explore/variants/: a variant's `sections`; its HTML follows its heading). */
export interface RenderedSection {
  readonly id: string;
  readonly title: string;
  readonly html: string;
}

export interface ReportData {
  /** The command that produced the report, e.g. `npm start`. */
  readonly command: string;
  readonly comparison: Comparison;
  readonly criteria: readonly Criterion[];
  readonly sweeps: readonly SweepResult[];
  readonly hydration?: Comparison | undefined;
  readonly check: CheckSection;
  /** Each omitted: not in the report. */
  readonly modelCheck?: ModelCheckSection | undefined;
  readonly diagrams: DiagramSection;
  readonly latency?: LatencySection | undefined;
  readonly smallWrites?: SmallWritesSection | undefined;
  readonly gallery?: GallerySection | undefined;
  readonly coverage?: CoverageSection | undefined;
  readonly faults?: FaultsSection | undefined;
  /** Sections the report's variants add (job.ts runVariantSections), after the latency section. */
  readonly variantSections?: readonly RenderedSection[] | undefined;
  /** Why the job exits non-zero (job.ts jobReasons): the headline says them. Omitted: judged from the sections. */
  readonly reasons?: readonly Reason[] | undefined;
}
