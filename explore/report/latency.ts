/** Commit latency and stragglers: the headline's latency, and a sweep over the straggler probability. */
import type { Variant } from '../../vocab/index.ts';
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { headlineRow } from '../cases.ts';
import { fixed, millis, plural, thousands } from '../format.ts';
import { describeSetup, formatParam } from '../render.ts';
import { lineChart } from '../svg.ts';
import type { Comparison, Figures, SweepResult } from '../types.ts';
import { BASELINE, VARIANTS } from '../variants/index.ts';
import { compareCommand } from './context.ts';
import { latencyDistribution, partsDistribution } from './charts.ts';
import { cellTable, esc } from './html.ts';
import { timelineSection } from './timeline.ts';
import { sweepVariants } from './sweeps.ts';

/** The two variants of the PRs whose trade-off the section narrates. */
const BEST_EFFORT = bestEffortMeta.name;
const BARRIER = barrierMeta.name;

export interface LatencySection {
  readonly headline: Comparison;
  /** A sweep over the straggler probability (param `stragglers`). */
  readonly stragglers: SweepResult;
}

function stragglerCharts(s: SweepResult): string {
  const xs = s.points.map((p) => formatParam('stragglers', p.value));
  const variants = sweepVariants(s);
  const series = (f: (r: Figures, off: Figures | undefined) => number) =>
    variants.map((v) => ({
      name: v,
      values: s.points.map((p) => {
        const r = headlineRow(p.comparison, v);
        return r === undefined ? 0 : f(r, headlineRow(p.comparison, BASELINE));
      }),
    }));
  const b = s.base;
  const slowdown = b.stragglers?.slowdown ?? s.points.find((p) => p.comparison.setup.stragglers !== undefined)?.comparison.setup.stragglers?.slowdown ?? 100;
  const sub = `${b.workers} workers · ${plural(b.intervals, 'interval')} × ${thousands(b.rows)} × ~${b.rowBytes} B · ${slowdown}× slower · seed ${b.seed}`;
  const xLabel = 'straggler probability per worker and description';
  const withOff: string[] = variants.filter((v) => v !== BASELINE);
  return (
    `<div class="charts">` +
    lineChart({ title: 'p99 commit latency vs stragglers', subtitle: sub, xLabel, yLabel: 'p99 commit latency (virtual ms)', xs, series: series((r) => r.latencyP99Ms), format: millis }) +
    lineChart({ title: 'p50 commit latency vs stragglers', subtitle: sub, xLabel, yLabel: 'p50 commit latency (virtual ms)', xs, series: series((r) => r.latencyP50Ms), format: millis }) +
    (variants.includes(BASELINE)
      ? lineChart({
          title: 'What sharing adds to the p99, over off',
          subtitle: sub,
          xLabel,
          yLabel: 'p99 minus off’s p99 (virtual ms)',
          xs,
          series: series((r, off) => Math.max(0, r.latencyP99Ms - (off?.latencyP99Ms ?? 0))).filter((x) => withOff.includes(x.name)),
          format: millis,
        })
      : '') +
    `</div>`
  );
}

/** One row per straggler probability and variant: the table's width does not grow with the variants. */
function stragglerTable(s: SweepResult): string {
  const variants = sweepVariants(s);
  const headers = ['stragglers', 'variant', 'latency p50', 'p99', 'max', 'write p99 after last worker', 'parts/append', 'model'];
  const rows = s.points.flatMap((p) =>
    variants.map((v) => {
      const r = headlineRow(p.comparison, v);
      const value = formatParam('stragglers', p.value);
      if (r === undefined) return [value, v, '—', '—', '—', '—', '—', '—'];
      return [
        value,
        v,
        millis(r.latencyP50Ms),
        millis(r.latencyP99Ms),
        millis(r.latencyMaxMs),
        millis(r.writeP99Ms),
        fixed(r.partsPerAppend, 2),
        r.modelAgrees ? { text: 'agrees', cls: 'zero' } : { text: 'DIVERGES', cls: 'bad' },
      ];
    }),
  );
  return cellTable(headers, rows, { leftColumns: 2, byFirst: true, groups: [['', 2], ['commit latency', 3], ['', 3]] });
}

/** Computed from the sweep: how each variant's tail moved from no stragglers to the most. */
function stragglerFindings(s: SweepResult): string[] {
  const first = s.points[0];
  const last = s.points[s.points.length - 1];
  if (first === undefined || last === undefined || first === last) return [];
  const lines: string[] = [];
  const grow = (v: Variant): string | undefined => {
    const a = headlineRow(first.comparison, v);
    const b = headlineRow(last.comparison, v);
    return a === undefined || b === undefined ? undefined : `${v} ${millis(a.latencyP99Ms)} → ${millis(b.latencyP99Ms)}`;
  };
  const moved = VARIANTS.map(grow).filter((x) => x !== undefined);
  lines.push(`p99 commit latency from stragglers ${formatParam('stragglers', first.value)} to ${formatParam('stragglers', last.value)}: ${moved.join(', ')}.`);
  const gap = (c: Comparison): number | undefined => {
    const be = headlineRow(c, BEST_EFFORT);
    const ba = headlineRow(c, BARRIER);
    return be === undefined || ba === undefined ? undefined : ba.latencyP99Ms - be.latencyP99Ms;
  };
  const g0 = gap(first.comparison);
  const g1 = gap(last.comparison);
  if (g0 !== undefined && g1 !== undefined) {
    const ms = (x: number) => millis(Math.abs(x) < 0.05 ? 0 : x);
    lines.push(`The barrier's p99 over best-effort's: ${ms(g0)} without stragglers, ${ms(g1)} with them.`);
  }
  return lines;
}

/** The sweep's point with the most stragglers as distributions: every interval's latency, every append's parts. */
function mostStragglers(s: SweepResult): string {
  const point = s.points[s.points.length - 1];
  if (point === undefined || point === s.points[0]) return '';
  const c = point.comparison;
  const p = formatParam('stragglers', point.value);
  const sub = `stragglers p = ${p} · ${c.setup.workers} workers · ${plural(c.setup.intervals, 'interval')} × ${thousands(c.setup.rows)} × ~${c.setup.rowBytes} B · seed ${c.setup.seed}`;
  return (
    `<h3 id="stragglers-distributions">With stragglers at p = ${esc(p)}: the distributions</h3>` +
    `<div class="charts">${latencyDistribution(c, `Commit latency with stragglers at ${p}`, sub)}${partsDistribution(c, `Parts per append with stragglers at ${p}`, sub)}</div>` +
    `<p class="note">The tail is the intervals a straggler held up (every variant waits for its hand); best-effort's early workers form a batch without it, so its appends spread over more parts. Reproduce: <code>${esc(compareCommand(c.scenario, c.setup))}</code> (its p50, p99 and max, parts/append).</p>`
  );
}

export function latencySection(d: LatencySection): string {
  const h = d.headline;
  const s = d.stragglers;
  const values = s.points.map((p) => formatParam('stragglers', p.value)).join(',');
  const slowdown = s.points.find((p) => p.comparison.setup.stragglers !== undefined)?.comparison.setup.stragglers?.slowdown ?? 100;
  const sweepLine = compareCommand(s.scenario, s.base, [`--sweep stragglers=${values}`]);
  return (
    `<p class="note">Commit latency of an interval = from the moment its data is ready (the desired frontier passes it) to the successful compare-and-append that contains it, in the seeded virtual time of the timing model (see <a href="#setup">What ran</a>): blob PUT ${esc('8 ms + bytes ÷ 50 kB/ms')}, a consensus round trip 4 ms, encoding bytes ÷ 50 kB/ms on whoever builds the part. One sample per interval; p99 is the nearest-rank 99th percentile.</p>` +
    `<div class="charts">${latencyDistribution(h, 'Commit latency per interval, distribution', `${h.scenario} · ${h.setup.workers} workers · ${plural(h.setup.intervals, 'interval')} × ${thousands(h.setup.rows)} × ~${h.setup.rowBytes} B · seed ${h.setup.seed}`)}</div>` +
    `<p class="note">Each step of a line is one interval: the line reaches 50% at the p50 and 99% at the p99 (the dashed guides); its right end is the slowest interval.</p>` +
    `<p class="note">Reproduce: <code>${esc(compareCommand(h.scenario, h.setup))}</code> (columns <code>latency p50 / p99 / max</code>; <code>--json</code> adds <code>writeP50Ms…</code>, the part after the last worker became ready).</p>` +
    `<h3 id="stragglers">Stragglers</h3>` +
    `<p>A straggler is a worker that, for one description, becomes ready much later: each worker straggles independently per description with probability <em>p</em> (drawn from the seed alone, so every variant meets the same stragglers), and a straggler's readiness delay is its usual draw min(Exp(mean 0.25 ms), 5 ms) multiplied by the slowdown (here ${slowdown}×: mean 25 ms, at most 500 ms). ` +
    `This run uses larger intervals than the headline (${esc(describeSetup(s.scenario, s.base).replace(/^scenario \w+: /, ''))}) so that the size of one upload shows.</p>` +
    `<p><strong>What it shows.</strong> The append operator waits for a hand from every worker in every variant (it collects every batch written for the description), so a straggler delays the commit of <em>every</em> variant by about the same amount. What differs is what is left to do once it arrives: <code>off</code> and best-effort write only the straggler's own small batch (best-effort's early workers formed their batch and uploaded it meanwhile, so its parts per append rise), while the barrier's one shared batch can only be finished and uploaded — all of the process's bytes — after the straggler. So best-effort's cost over <code>off</code> vanishes with stragglers and the barrier's stays.</p>` +
    `<ul>${stragglerFindings(s).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` +
    stragglerCharts(s) +
    stragglerTable(s) +
    `<p class="note">Reproduce: <code>${esc(sweepLine)}</code></p>` +
    mostStragglers(s) +
    timelineSection(s)
  );
}
