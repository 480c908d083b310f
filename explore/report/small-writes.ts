/** Small writes: inline parts against one hollow shared part, the compaction proxy, and a sweep over rows per interval beside the PRs' figures. */
import type { Variant } from '../../vocab/index.ts';
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { headlineRow } from '../cases.ts';
import { bytes, fixed, millis, plural, thousands } from '../format.ts';
import { caseLabels, describeSetup, formatParam } from '../render.ts';
import { barChart } from '../svg.ts';
import type { Comparison, Figures, SweepResult } from '../types.ts';
import { BASELINE } from '../variants/index.ts';
import { compareCommand } from './context.ts';
import { cellTable, esc } from './html.ts';
import { sweepVariants } from './sweeps.ts';

/** The two variants of the PRs whose trade-off the section narrates. */
const BEST_EFFORT = bestEffortMeta.name;
const BARRIER = barrierMeta.name;

const variantsOf = (c: Comparison): Variant[] => [...new Set(c.rows.map((r) => r.variant))];

export interface SmallWritesSection {
  readonly comparison: Comparison;
  /** A sweep over rows per interval in the small-writes scenario (includes 1000). */
  readonly rows: SweepResult;
}

/** What the PRs measured for small writes (docs/design/domain.md). */
const PR_SMALL = { offParts: 7.8, sharedParts: 1.05, latencyMs: 10, compaction: 2.5 } as const;

export function smallWritesSection(d: SmallWritesSection): string {
  const c = d.comparison;
  const off = headlineRow(c, BASELINE);
  const labels = caseLabels(c.rows);
  const sub = `${c.setup.workers} workers · ${plural(c.setup.intervals, 'interval')} × ${thousands(c.setup.rows)} updates of ~${c.setup.rowBytes} B · seed ${c.setup.seed}`;
  const bars = (f: (r: Figures) => number) => c.rows.map((r, i) => ({ label: labels[i] ?? r.variant, value: f(r) }));
  const charts =
    `<div class="charts">` +
    barChart({ title: 'Blob PUTs per append', subtitle: sub, xLabel: 'variant', yLabel: 'blob PUTs per append (count)', bars: bars((r) => (r.appends === 0 ? 0 : r.blobPuts / r.appends)), format: (v) => fixed(v, 2) }) +
    barChart({ title: 'p50 commit latency', subtitle: sub, xLabel: 'variant', yLabel: 'p50 commit latency (virtual ms)', bars: bars((r) => r.latencyP50Ms), format: millis }) +
    barChart({
      title: 'Parts the shard holds after the run (compaction proxy)',
      subtitle: sub,
      xLabel: 'variant',
      yLabel: 'parts in shard state (count)',
      bars: bars((r) => r.shardParts),
      format: thousands,
    }) +
    `</div>`;
  const summary = cellTable(
    ['variant', 'parts/append', 'blob PUTs/append', 'inline parts', 'hollow parts', 'state-diff bytes', 'p50', 'p99', 'shard parts', 'fewer than off', 'model'],
    c.rows.map((r, i) => [
      labels[i] ?? r.variant,
      fixed(r.partsPerAppend, 2),
      fixed(r.appends === 0 ? 0 : r.blobPuts / r.appends, 2),
      thousands(r.inlineParts),
      thousands(r.hollowParts),
      bytes(r.stateDiffBytes),
      millis(r.latencyP50Ms),
      millis(r.latencyP99Ms),
      thousands(r.shardParts),
      off === undefined || r.shardParts === 0 ? '—' : `${fixed(off.shardParts / r.shardParts, 1)}×`,
      r.modelAgrees ? { text: 'agrees', cls: 'zero' } : { text: 'DIVERGES', cls: 'bad' },
    ]),
  );
  const rowsSweep = d.rows;
  const variants = rowsSweep.points.length === 0 ? variantsOf(c) : sweepVariants(rowsSweep);
  const pr = (v: Variant, value: number): string => {
    if (value !== 1000) return '';
    if (v === BASELINE) return `${PR_SMALL.offParts}`;
    return `${PR_SMALL.sharedParts}`;
  };
  const sweepRows = rowsSweep.points.flatMap((p) =>
    variants.map((v) => {
      const r = headlineRow(p.comparison, v);
      return [
        { text: `${thousands(p.value)}-row`, title: `${thousands(p.value)} updates of ~${rowsSweep.base.rowBytes} B per interval` },
        v,
        r === undefined ? '—' : fixed(r.partsPerAppend, 2),
        pr(v, p.value),
        r === undefined ? '—' : fixed(r.appends === 0 ? 0 : r.blobPuts / r.appends, 2),
        r === undefined ? '—' : r.modelAgrees ? { text: 'agrees', cls: 'zero' } : { text: 'DIVERGES', cls: 'bad' },
      ];
    }),
  );
  const sweepTable = cellTable(['rows per interval', 'variant', 'measured', 'the PR (#37591)', 'blob PUTs per append', 'model'], sweepRows, {
    leftColumns: 2,
    byFirst: true,
    groups: [['', 2], ['data parts per append', 2], ['', 2]],
    caption: `The PR's "1000-row writes went from ~${PR_SMALL.offParts} to ~${PR_SMALL.sharedParts} data parts per append" with the threshold (here ${formatParam('threshold', rowsSweep.base.threshold)}): its ~${PR_SMALL.sharedParts} is best-effort's; it is listed under every sharing variant.`,
  });
  const rowsValues = rowsSweep.points.map((p) => p.value).join(',');
  const be = headlineRow(c, BEST_EFFORT);
  const barrier = headlineRow(c, BARRIER);
  const extra = (r: Figures | undefined) => (r === undefined || off === undefined ? '—' : `+${millis(r.latencyP50Ms - off.latencyP50Ms)}`);
  const ratio = (r: Figures | undefined) => (r === undefined || off === undefined || r.shardParts === 0 ? '—' : `${fixed(off.shardParts / r.shardParts, 1)}×`);
  const versus = cellTable(
    ['figure', 'the PRs', `${BEST_EFFORT} here`, `${BARRIER} here`],
    [
      ['p50 latency added by sharing small writes', `about +${PR_SMALL.latencyMs} ms`, extra(be), extra(barrier)],
      ['fewer parts for compaction than off', `${PR_SMALL.compaction}×`, ratio(be), ratio(barrier)],
      ['blob PUTs per append (off: 0)', '1 (one blob write per append)', be === undefined ? '—' : fixed(be.blobPuts / Math.max(1, be.appends), 2), barrier === undefined ? '—' : fixed(barrier.blobPuts / Math.max(1, barrier.appends), 2)],
    ],
  );
  return (
    `<p class="note">${esc(describeSetup(c.scenario, c.setup))}. Every worker's data per interval is below persist's 4 KiB inline limit, the process's shared batch is not.</p>` +
    `<p>The trade-off the PR names: <code>off</code> writes one <em>inline</em> part per worker — no blob PUT at all, the bytes go into consensus state (a larger state diff) — while sharing builds one batch from everyone's data, which is large enough to be a <em>hollow</em> part: one PUT per append, and its latency on the commit path. Without compaction (none runs here) the shard keeps every part it was given: the parts it holds after the run are the compaction proxy.</p>` +
    versus +
    charts +
    summary +
    `<p class="note">Reproduce: <code>${esc(compareCommand(c.scenario, c.setup))}</code></p>` +
    `<h3 id="small-writes-rows">Rows per interval</h3>` +
    sweepTable +
    `<p class="note">Why not 7.8 and 1.05: here every worker holds data at 1,000 rows (8.00 parts with <code>off</code>; ~30 rows per interval give 7.9), and best-effort's overlap follows the timing model, whose readiness spread was calibrated on the steady workload's larger pushes; with tiny pushes the handles live shorter and overlap less. The barrier gives exactly 1.00 at every size. ` +
    `Reproduce: <code>${esc(compareCommand(rowsSweep.scenario, rowsSweep.base, [`--sweep rows=${rowsValues}`]))}</code></p>`
  );
}
