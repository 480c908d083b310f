/** The sweeps: per swept parameter, line charts per variant, the sweep pivoted (one row per value), the full table folded away. */
import type { Variant } from '../../vocab/index.ts';
import { headlineRow } from '../cases.ts';
import { bytes, fixed, percent, plural, thousands } from '../format.ts';
import { type Grid, formatParam, sweepGrid } from '../render.ts';
import { lineChart } from '../svg.ts';
import type { Figures, SweepParam, SweepResult } from '../types.ts';
import { BASELINE } from '../variants/index.ts';
import { paramAxis } from '../sweep-params.ts';
import { compareCommand, systemShort } from './context.ts';
import { esc, htmlTable } from './html.ts';

/** The variants a sweep ran, in the order they first appear. */
export function sweepVariants(s: SweepResult): Variant[] {
  const variants: Variant[] = [];
  for (const p of s.points) for (const r of p.comparison.rows) if (!variants.includes(r.variant)) variants.push(r.variant);
  return variants;
}

function sweepCharts(s: SweepResult): string {
  const xs = s.points.map((p) => formatParam(s.param, p.value));
  const variants = sweepVariants(s);
  const series = (f: (r: Figures) => number) => variants.map((v) => ({ name: v, values: s.points.map((p) => { const r = headlineRow(p.comparison, v); return r === undefined ? 0 : f(r); }) }));
  const b = s.base;
  const sub = [
    `sweep of ${s.param}`,
    ...(['workers', 'processes', 'replicas'].includes(s.param) ? [] : [systemShort(b)]),
    ...(s.param === 'intervals' ? [] : [plural(b.intervals, 'interval')]),
    ...(s.param === 'rows' || s.param === 'row-bytes' ? [] : [`${thousands(b.rows)} updates of ~${b.rowBytes} B`]),
    `seed ${b.seed}`,
  ].join(' · ');
  const xLabel = paramAxis(s.param);
  return (
    `<div class="charts">` +
    lineChart({ title: `Parts per append vs ${s.param}`, subtitle: sub, xLabel, yLabel: 'parts per append', xs, series: series((r) => r.partsPerAppend), format: (v) => fixed(v, 2) }) +
    lineChart({ title: `Blob PUTs vs ${s.param} (${plural(s.base.intervals, 'interval')})`, subtitle: sub, xLabel, yLabel: 'blob PUTs (count)', xs, series: series((r) => r.blobPuts), format: thousands }) +
    `</div>`
  );
}

/** The sweep pivoted: one row per value, the key figures per variant side by side. */
export function sweepPivot(s: SweepResult): { grid: Grid; groups: { label: string; span: number }[] } {
  const variants = sweepVariants(s);
  const hasOff = variants.includes(BASELINE);
  const columns: Grid['columns'] = [
    { header: s.param, align: 'left' },
    ...variants.map((v) => ({ header: v, align: 'right' as const })),
    ...variants.map((v) => ({ header: v, align: 'right' as const })),
    ...variants.map((v) => ({ header: v, align: 'right' as const })),
    { header: 'lost+dup+leaked', align: 'right' },
    { header: 'model', align: 'left' },
  ];
  const rows = s.points.map((p) => {
    const off = headlineRow(p.comparison, BASELINE);
    const rel = (r: Figures, f: (x: Figures) => number, show: (n: number) => string) =>
      hasOff && off !== undefined && r.variant !== BASELINE ? `${show(f(r))} (${percent(f(r), f(off))})` : show(f(r));
    const rs = variants.map((v) => headlineRow(p.comparison, v));
    const audit = rs.reduce((a, r) => a + (r === undefined ? 0 : r.lost + r.duplicated + r.leakedBlobs), 0);
    const diverged = p.comparison.rows.filter((r) => !r.modelAgrees);
    return [
      formatParam(s.param, p.value),
      ...rs.map((r) => (r === undefined ? '—' : fixed(r.partsPerAppend, 2))),
      ...rs.map((r) => (r === undefined ? '—' : rel(r, (x) => x.blobPuts, thousands))),
      ...rs.map((r) => (r === undefined ? '—' : rel(r, (x) => x.stateDiffBytes, bytes))),
      thousands(audit),
      diverged.length === 0 ? 'agrees' : `DIVERGES (${diverged.map((r) => r.variant).join(', ')})`,
    ];
  });
  const n = variants.length;
  const groups = [
    { label: '', span: 1 },
    { label: 'parts per append', span: n },
    { label: hasOff ? 'blob PUTs (% of off)' : 'blob PUTs', span: n },
    { label: hasOff ? 'state-diff bytes (% of off)' : 'state-diff bytes', span: n },
    { label: 'audit', span: 1 },
    { label: 'model', span: 1 },
  ];
  return { grid: { columns, rows }, groups };
}

function sweepSection(s: SweepResult): string {
  const values = s.points.map((p) => formatParam(s.param, p.value)).join(', ');
  const pivot = sweepPivot(s);
  return (
    `<h3 id="sweep-${esc(s.param)}">Sweep: ${esc(s.param)} over ${esc(values)}</h3>` +
    `<p class="note">Everything else as in the comparison except ${esc(plural(s.base.intervals, 'interval'))} per run (ratios settle long before 100). ` +
    `Reproduce: <code>${esc(compareCommand(s.scenario, s.base, [`--sweep ${s.param}=${s.points.map((p) => formatParam(s.param, p.value)).join(',')}`]))}</code></p>` +
    sweepCharts(s) +
    `<p class="note">The x axis spaces the swept values evenly (not to scale). Where lines coincide the variants measured the same value: the thick grey line underneath is off, the dashed blue one barrier.</p>` +
    htmlTable(pivot.grid, { groups: pivot.groups, cls: 'pivot' }) +
    `<details><summary>All figures per ${esc(s.param)} and variant <span class="note">(${s.points.length * sweepVariants(s).length} rows)</span></summary>${htmlTable(sweepGrid(s), { firstColumnBreaks: true })}</details>`
  );
}

export function sweepsSection(sweeps: readonly SweepResult[]): string {
  return sweeps.map(sweepSection).join('\n');
}
