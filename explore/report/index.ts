/**
 * The self-contained HTML report: the list of sections the page shows, in order, over the data the job
 * computed (data.ts `ReportData`). A section is one module of this folder; adding one is a field of
 * `ReportData` and a line in `SECTIONS`.
 */
import type { Comparison } from '../types.ts';
import { type CheckSection, checkSection } from './check.ts';
import { comparisonSection } from './comparison.ts';
import type { ReportData } from './data.ts';
import { columnsSection } from './columns.ts';
import { type CoverageSection, coverageSection } from './coverage.ts';
import { type DiagramSection, diagramSection } from './diagrams.ts';
import { type FaultsSection, faultsSection } from './faults.ts';
import { findingsSection } from './findings.ts';
import { type GalleryEntry, type GallerySection, gallerySection } from './gallery.ts';
import { hydrationSection } from './hydration.ts';
import { type LatencySection, latencySection } from './latency.ts';
import { type ModelCheckSection, modelCheckSection } from './model-check.ts';
import { type Section, renderPage } from './page.ts';
import { setupSection } from './setup.ts';
import { type SmallWritesSection, smallWritesSection } from './small-writes.ts';
import { sweepsSection } from './sweeps.ts';
import { tradeoffSection } from './tradeoff.ts';

export type { CheckSection, CoverageSection, DiagramSection, FaultsSection, GalleryEntry, GallerySection, LatencySection, ModelCheckSection, SmallWritesSection };
export type { RenderedSection, ReportData } from './data.ts';

/** Sections of the page from the report's data (one, several, or undefined: not in this report). */
type SectionOf = (d: ReportData) => Section | readonly Section[] | undefined;

/** Present only when its data is. */
const when = <T>(x: T | undefined, f: (x: T) => Section): Section | undefined => (x === undefined ? undefined : f(x));

/** The page's sections, in order. */
const SECTIONS: readonly SectionOf[] = [
  (d) => ({ id: 'setup', title: 'What ran', toc: 'What ran', body: setupSection(d.comparison) }),
  (d) => ({ id: 'comparison', title: 'Comparison', toc: 'Comparison', body: comparisonSection(d.comparison, d.criteria), more: [['criteria', 'Done criteria']] }),
  (d) => (d.sweeps.length === 0 ? undefined : { id: 'sweeps', title: 'Sweeps', toc: 'Sweeps', body: sweepsSection(d.sweeps) }),
  (d) => when(d.latency, (x) => ({ id: 'latency', title: 'Latency and stragglers', toc: 'Latency & stragglers', body: latencySection(x) })),
  (d) => (d.variantSections ?? []).map((x) => ({ id: x.id, title: x.title, toc: x.title, body: x.html })),
  (d) => when(tradeoffSection([...d.sweeps, ...(d.latency === undefined ? [] : [d.latency.stragglers])]), (body) => ({ id: 'tradeoff', title: 'Cost and benefit across the sweeps', toc: 'Cost & benefit', body })),
  (d) => when(d.smallWrites, (x) => ({ id: 'small-writes', title: 'Small writes and compaction', toc: 'Small writes', body: smallWritesSection(x) })),
  (d) => when(d.hydration, (x) => ({ id: 'hydration', title: 'Hydration: why the threshold exists', toc: 'Hydration', body: hydrationSection(x) })),
  (d) => when(d.modelCheck, (x) => ({ id: 'model-check', title: 'Model check (exhaustive)', toc: 'Model check', body: modelCheckSection(x) })),
  (d) => ({ id: 'check', title: 'Conformance check', toc: 'Conformance check', body: checkSection(d.check) }),
  (d) => when(d.faults, (x) => ({ id: 'faults', title: 'Faults, crashes and recovery', toc: 'Faults & recovery', body: faultsSection(x) })),
  (d) => when(d.gallery, (x) => ({ id: 'gallery', title: 'Counterexample gallery', toc: 'Counterexamples', body: gallerySection(x) })),
  (d) => when(d.coverage, (x) => ({ id: 'coverage', title: 'Model coverage', toc: 'Model coverage', body: coverageSection(x) })),
  (d) => ({ id: 'diagrams', title: 'Model diagrams', toc: 'Model diagrams', body: diagramSection(d.diagrams) }),
  () => ({ id: 'columns', title: 'Columns', toc: 'Columns', body: columnsSection() }),
];

export function renderReport(d: ReportData): string {
  return renderPage({ command: d.command, headline: findingsSection(d), sections: SECTIONS.flatMap((s) => s(d) ?? []) });
}
