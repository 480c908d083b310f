/** Cost against benefit across the sweeps: what each sharing variant saves in blob PUTs against what it adds to the p99, per sweep point. */
import { type ScatterPoint, scatterChart } from '../charts/scatter.ts';
import { headlineRow } from '../cases.ts';
import { fixed, millis, plural } from '../format.ts';
import { formatParam } from '../render.ts';
import type { SweepResult } from '../types.ts';
import { BASELINE } from '../variants/index.ts';
import { compareCommand } from './context.ts';
import { cellTable, esc } from './html.ts';
import { sweepVariants } from './sweeps.ts';

/** The sweeps the picture reads: the threshold sweep and the straggler sweep, when they ran with off beside. */
const PARAMS = ['threshold', 'stragglers'] as const;

/** Each sharing variant at each point of a sweep: PUTs saved against off (%), p99 added over off (ms). */
export function tradeoffPoints(sweeps: readonly SweepResult[]): ScatterPoint[] {
  return sweeps.flatMap((s) =>
    s.points.flatMap((p) => {
      const off = headlineRow(p.comparison, BASELINE);
      if (off === undefined) return [];
      return sweepVariants(s)
        .filter((v) => v !== BASELINE)
        .flatMap((v) => {
          const r = headlineRow(p.comparison, v);
          if (r === undefined) return [];
          return [{ series: v, group: `${s.param} sweep`, x: r.latencyP99Ms - off.latencyP99Ms, y: off.blobPuts === 0 ? 0 : 100 * (1 - r.blobPuts / off.blobPuts), label: formatParam(s.param, p.value) }];
        });
    }),
  );
}

export function tradeoffSection(all: readonly SweepResult[]): string | undefined {
  const sweeps = PARAMS.map((param) => all.find((s) => s.param === param)).filter((s) => s !== undefined);
  const points = tradeoffPoints(sweeps);
  if (points.length === 0) return undefined;
  const chart = scatterChart({
    title: 'PUTs saved against p99 added, per sweep point',
    subtitle: sweeps.map((s) => `${s.param} sweep: ${plural(s.base.intervals, 'interval')} × ${s.base.rows} × ~${s.base.rowBytes} B`).join(' · ') + ` · seed ${sweeps[0]?.base.seed ?? ''}`,
    xLabel: "p99 commit latency added over off's (virtual ms)",
    yLabel: "blob PUTs saved against off's (%)",
    points,
    groups: sweeps.map((s) => ({ name: `${s.param} sweep`, hollow: s.param === 'stragglers' })),
    xFormat: (v) => `${fixed(v, Number.isInteger(v) ? 0 : 1)}`,
    format: (v) => `${fixed(v, 0)}%`,
    tickFormat: (v) => `${fixed(v, 0)}%`,
    width: 760,
  });
  const rows = points.map((p) => [p.group, p.label, p.series, `${fixed(p.y, 0)}%`, millis(p.x)]);
  return (
    `<p>Sharing saves blob PUTs (one part per append instead of one per worker) and may cost commit latency (the shared batch is uploaded after its last worker). Each point is one sharing variant at one point of a sweep, measured against <code>off</code> in the same run: up is more PUTs saved, right is more p99 added. Filled: the threshold sweep (steady workload); hollow: the straggler sweep (larger intervals, stragglers at the labelled probability).</p>` +
    `<div class="charts wide">${chart}</div>` +
    `<details><summary>The points <span class="note">(${points.length})</span></summary>${cellTable(['sweep', 'value', 'variant', 'PUTs saved', 'p99 added'], rows, { leftColumns: 3 })}</details>` +
    `<p class="note">Reproduce: ${sweeps.map((s) => `<code>${esc(compareCommand(s.scenario, s.base, [`--sweep ${s.param}=${s.points.map((p) => formatParam(s.param, p.value)).join(',')}`]))}</code>`).join(' and ')} (columns <code>blob PUTs</code>, <code>% off</code>, <code>p99</code>).</p>`
  );
}
