/** Hydration: huge intervals, each sharing variant at the threshold and unlimited — why the threshold exists. */
import { bytes, millis, percent } from '../format.ts';
import { comparisonGrid, describeSetup } from '../render.ts';
import { barChart } from '../svg.ts';
import type { Comparison } from '../types.ts';
import { barsOf, trimPct } from './charts.ts';
import { bytesPerWorker, chartSubtitle, compareCommand } from './context.ts';
import { esc, leadWith, transposedTable } from './html.ts';

function hydrationCharts(c: Comparison): string {
  const bars = barsOf(c);
  const sub = chartSubtitle(c.scenario, c.setup);
  const workers = c.setup.workers;
  return (
    `<div class="charts">` +
    barChart({
      title: 'Largest share of an append through one builder',
      subtitle: sub,
      xLabel: 'variant @ threshold',
      yLabel: "share of one append's bytes (%)",
      bars: bars((r) => r.maxBuilderShare * 100),
      format: (v) => percent(v, 100),
      tickFormat: (v) => `${trimPct(v)}%`,
      refs: workers > 1 ? [{ value: 100 / workers, label: `1/${workers} workers` }] : [],
    }) +
    barChart({
      title: 'Mint → append latency per interval',
      subtitle: sub,
      xLabel: 'variant @ threshold',
      yLabel: 'mean mint → append (virtual ms)',
      bars: bars((r) => r.meanAppendLatencyMs),
      format: millis,
    }) +
    `</div>`
  );
}

export function hydrationSection(h: Comparison): string {
  return `<p class="note">${esc(describeSetup(h.scenario, h.setup))}. Reproduce: <code>${esc(compareCommand(h.scenario, h.setup))}</code></p>
<p>Each worker stages far more than the threshold (≈${esc(bytes(bytesPerWorker(h.setup)))} per worker per interval), so at the threshold every worker falls back to its own batch and the work spreads like <code>off</code>; with an unlimited threshold every worker pushes into one shared builder per process, which serializes encoding and upload.</p>
${hydrationCharts(h)}
${transposedTable(leadWith(comparisonGrid(h), ['max builder share', 'mint→append']))}`;
}
