/** The headline comparison: its charts, its table (every column) and the done-criteria evaluated on it. */
import type { Criterion } from '../criteria.ts';
import { fixed, plural, thousands } from '../format.ts';
import { caseLabels, comparisonGrid, describeSetup } from '../render.ts';
import { barChart } from '../svg.ts';
import type { Comparison } from '../types.ts';
import { barsOf, byteBars, partsDistribution } from './charts.ts';
import { chartSubtitle } from './context.ts';
import { esc, transposedTable } from './html.ts';

function comparisonCharts(c: Comparison): string {
  const labels = caseLabels(c.rows);
  const bars = barsOf(c);
  const sub = chartSubtitle(c.scenario, c.setup);
  const workers = c.setup.workers * c.setup.processes * c.setup.replicas;
  return (
    `<div class="charts">` +
    barChart({
      title: 'Parts per append (lower is better)',
      subtitle: sub,
      xLabel: 'variant',
      yLabel: 'parts per append',
      bars: bars((r) => r.partsPerAppend),
      format: (v) => fixed(v, 2),
      refs: [{ value: 1, label: 'ideal: 1 part' }, ...(workers > 1 ? [{ value: workers, label: `${workers} workers` }] : [])],
    }) +
    barChart({ title: `Blob PUTs over ${plural(c.setup.intervals, 'interval')}`, subtitle: sub, xLabel: 'variant', yLabel: 'blob PUTs (count)', bars: bars((r) => r.blobPuts), format: thousands }) +
    byteBars(`Consensus state-diff bytes over ${plural(c.setup.intervals, 'interval')}`, 'state-diff bytes', sub, labels, c.rows.map((r) => r.stateDiffBytes), 'variant') +
    (c.rows.some((r) => r.partsHistogram !== undefined) ? partsDistribution(c, 'Parts per append, distribution', sub) : '') +
    `</div>`
  );
}

function criteriaList(cs: readonly Criterion[]): string {
  return `<ul class="crit">${cs
    .map((c) => `<li><span class="${c.ok ? 'ok' : 'miss'}">${c.ok ? '✔ ok' : '✘ miss'}</span> ${esc(c.name)} <span class="note">(${esc(c.detail)})</span></li>`)
    .join('\n')}</ul>`;
}

export function comparisonSection(c: Comparison, criteria: readonly Criterion[]): string {
  return `<p class="note">${esc(describeSetup(c.scenario, c.setup))}. Every figure of the run, one column per variant; hover a figure's name for its meaning (all are listed under <a href="#columns">Columns</a>). <code>sbkit compare</code> prints the most asked-for of them; <code>--wide</code> all.</p>
${comparisonCharts(c)}
${transposedTable(comparisonGrid(c))}
<h3 id="criteria">Done criteria</h3>
${criteriaList(criteria)}`;
}
