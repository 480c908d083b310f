/**
 * The self-contained HTML report: inline CSS, inline SVG charts, tables and the model's Mermaid sources
 * as text. No scripts, no network. Deterministic for the same inputs (no timestamps).
 */
import type { Variant } from '../vocab/index.ts';
import { type Grid, caseLabel, comparisonGrid, describeSetup, describeSweep, formatParam, sweepGrid } from './render.ts';
import type { Comparison, SweepResult } from './types.ts';
import { COLUMN_DOCS } from './columns.ts';
import type { Criterion } from './criteria.ts';
import { bytes, fixed, millis, percent } from './format.ts';
import { barChart, escapeXml, lineChart } from './svg.ts';

export type CheckSection =
  | { readonly kind: 'ran'; readonly exitCode: number; readonly summary: string; readonly output: string }
  | { readonly kind: 'skipped'; readonly reason: string };

export type DiagramSection =
  | { readonly kind: 'ok'; readonly diagrams: readonly { readonly name: string; readonly mermaid: string }[] }
  | { readonly kind: 'unavailable'; readonly reason: string };

export interface ReportData {
  /** The command that produced the report, e.g. `npm start`. */
  readonly command: string;
  readonly comparison: Comparison;
  readonly criteria: readonly Criterion[];
  readonly sweeps: readonly SweepResult[];
  readonly hydration?: Comparison | undefined;
  readonly check: CheckSection;
  readonly diagrams: DiagramSection;
}

const esc = escapeXml;

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1d;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.4rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{margin-top:1.6rem}
.sub{color:#555;margin-top:0}
table{border-collapse:collapse;font-size:.86rem;margin:.6rem 0 1rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:.25rem .5rem;white-space:nowrap}th{background:#f4f4f4}
td.r,th.r{text-align:right}td.l,th.l{text-align:left}
.scroll{overflow-x:auto}
.charts{display:flex;flex-wrap:wrap;gap:1rem}
.charts svg{border:1px solid #eee;background:#fff}
ul.crit{list-style:none;padding-left:0}ul.crit li{margin:.2rem 0}
.ok{color:#0a7a2f;font-weight:600}.miss{color:#b00020;font-weight:600}
pre{background:#f7f7f7;border:1px solid #e5e5e5;padding:.7rem;overflow-x:auto;font-size:.8rem;line-height:1.3}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
.note{color:#555;font-size:.9rem}
`;

export function htmlTable(g: Grid): string {
  const cls = (a: 'left' | 'right') => (a === 'left' ? 'l' : 'r');
  const head = g.columns.map((c) => `<th class="${cls(c.align)}">${esc(c.header)}</th>`).join('');
  const body = g.rows
    .map((r) => `<tr>${g.columns.map((c, i) => `<td class="${cls(c.align)}">${esc(r[i] ?? '')}</td>`).join('')}</tr>`)
    .join('\n');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function comparisonCharts(c: Comparison): string {
  const cases = c.rows.map((r) => ({ variant: r.variant, threshold: r.threshold }));
  const bars = (f: (r: Comparison['rows'][number]) => number) => c.rows.map((r) => ({ label: caseLabel(r, cases), value: f(r) }));
  return (
    `<div class="charts">` +
    barChart({ title: 'Parts per append', yLabel: 'parts / append', bars: bars((r) => r.partsPerAppend), format: (v) => fixed(v, 2) }) +
    barChart({ title: 'Blob PUTs', yLabel: 'PUTs', bars: bars((r) => r.blobPuts) }) +
    barChart({ title: 'Consensus state-diff bytes', yLabel: 'bytes', bars: bars((r) => r.stateDiffBytes), format: bytes }) +
    `</div>`
  );
}

function sweepCharts(s: SweepResult): string {
  const xs = s.points.map((p) => formatParam(s.param, p.value));
  const variants: Variant[] = [];
  for (const p of s.points) for (const r of p.comparison.rows) if (!variants.includes(r.variant)) variants.push(r.variant);
  const series = (f: (r: Comparison['rows'][number]) => number) =>
    variants.map((v) => ({
      name: v,
      values: s.points.map((p) => {
        const r = p.comparison.rows.find((x) => x.variant === v && x.threshold === p.comparison.setup.threshold);
        return r === undefined ? 0 : f(r);
      }),
    }));
  return (
    `<div class="charts">` +
    lineChart({ title: `Parts per append vs ${s.param}`, xLabel: s.param, yLabel: 'parts / append', xs, series: series((r) => r.partsPerAppend) }) +
    lineChart({ title: `Blob PUTs vs ${s.param}`, xLabel: s.param, yLabel: 'PUTs', xs, series: series((r) => r.blobPuts) }) +
    `</div>`
  );
}

function hydrationCharts(c: Comparison): string {
  const cases = c.rows.map((r) => ({ variant: r.variant, threshold: r.threshold }));
  const bars = (f: (r: Comparison['rows'][number]) => number) => c.rows.map((r) => ({ label: caseLabel(r, cases), value: f(r) }));
  return (
    `<div class="charts">` +
    barChart({ title: 'Largest share through one builder', yLabel: 'share of an append', bars: bars((r) => r.maxBuilderShare), format: (v) => percent(v, 1), tickFormat: (v) => percent(v, 1) }) +
    barChart({ title: 'Mint → append per interval', yLabel: 'virtual ms', bars: bars((r) => r.meanAppendLatencyMs), format: millis }) +
    `</div>`
  );
}

function criteriaList(cs: readonly Criterion[]): string {
  return `<ul class="crit">${cs
    .map((c) => `<li><span class="${c.ok ? 'ok' : 'miss'}">${c.ok ? '✔ ok' : '✘ miss'}</span> ${esc(c.name)} <span class="note">(${esc(c.detail)})</span></li>`)
    .join('\n')}</ul>`;
}

function checkSection(c: CheckSection): string {
  switch (c.kind) {
    case 'ran':
      return `<p class="${c.exitCode === 0 ? 'ok' : 'miss'}">${esc(c.summary)}</p><pre>${esc(c.output)}</pre>`;
    case 'skipped':
      return `<p class="note">Not run: ${esc(c.reason)}</p>`;
  }
}

function diagramSection(d: DiagramSection): string {
  switch (d.kind) {
    case 'ok':
      return (
        `<p class="note">Mermaid sources of the model's state machines, as text: this report loads nothing from the network, so they are not drawn here. ` +
        `Paste one into any Mermaid renderer (a Markdown preview, mermaid.live) to see it drawn, or run <code>npx sbkit model</code>.</p>` +
        d.diagrams.map((x) => `<h3>${esc(x.name)}</h3><pre class="mermaid-src">${esc(x.mermaid)}</pre>`).join('\n')
      );
    case 'unavailable':
      return `<p class="note">Not available: ${esc(d.reason)}</p>`;
  }
}

export function renderReport(d: ReportData): string {
  const sweeps = d.sweeps
    .map((s) => `<h3>Sweep: ${esc(s.param)}</h3><p class="note">${esc(describeSweep(s))}</p>${htmlTable(sweepGrid(s))}${sweepCharts(s)}`)
    .join('\n');
  const hydration =
    d.hydration === undefined
      ? ''
      : `<h2>Hydration: the threshold's fallback</h2>
<p>${esc(describeSetup(d.hydration.scenario, d.hydration.setup))}.</p>
<p>Each worker stages far more than the threshold, so with the threshold every worker falls back to its own batch and the work spreads like <code>off</code>; with an unlimited threshold every worker pushes into one shared builder per process, which serializes encoding and upload.</p>
${htmlTable(comparisonGrid(d.hydration))}${hydrationCharts(d.hydration)}`;
  const glossary = `<dl>${COLUMN_DOCS.map(([c, m]) => `<dt>${esc(c)}</dt><dd>${esc(m)}</dd>`).join('')}</dl>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shared-batch-kit report</title>
<style>${CSS}</style>
</head>
<body>
<h1>shared-batch-kit: shared batches in the materialized-view sink</h1>
<p class="sub">Produced by <code>${esc(d.command)}</code> by running the implementation (impl/) on the embedded in-memory backend under a seeded virtual-time schedule; the same seed reproduces every number.</p>

<h2>Comparison</h2>
<p>${esc(describeSetup(d.comparison.scenario, d.comparison.setup))}.</p>
${htmlTable(comparisonGrid(d.comparison))}
${comparisonCharts(d.comparison)}
<h3>Done criteria</h3>
${criteriaList(d.criteria)}
${d.sweeps.length > 0 ? `<h2>Sweeps</h2>\n${sweeps}` : ''}
${hydration}
<h2>Conformance check</h2>
${checkSection(d.check)}
<h2>Model diagrams</h2>
${diagramSection(d.diagrams)}
<h2>Columns</h2>
${glossary}
</body>
</html>
`;
}
