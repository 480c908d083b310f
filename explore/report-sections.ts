/**
 * The report's sections for issue 11: commit latency and stragglers, small writes and the compaction
 * proxy, the counterexample gallery (sequence diagrams drawn as inline SVG) and the model's transition
 * coverage. Each section has titled charts with units and a line that reproduces it.
 */
import type { BugName, Variant } from '../vocab/index.ts';
import { headlineRow } from './cases.ts';
import { type CoverageResult, cellText } from './coverage.ts';
import { bytes, fixed, millis, plural, thousands } from './format.ts';
import { caseLabels, describeSetup, formatParam } from './render.ts';
import { type Sequence, toSvg } from './sequence.ts';
import { barChart, escapeXml, lineChart } from './svg.ts';
import type { Comparison, Figures, Setup, SweepResult } from './types.ts';
import type { FaultTallyView } from './commands/check.ts';
import { BASELINE, VARIANTS } from './variants/index.ts';
import { barrierMeta } from '../vocab/variants/barrier.ts';
import { bestEffortMeta } from '../vocab/variants/best-effort.ts';

/** The two variants of the PRs whose trade-off the latency and small-writes sections narrate. */
const BEST_EFFORT = bestEffortMeta.name;
const BARRIER = barrierMeta.name;

const esc = escapeXml;

/** The `sbkit compare` line for a setup (report.ts `compareCommand`, passed in to avoid an import cycle). */
export type CommandFor = (scenario: string, s: Setup, extra?: readonly string[]) => string;

interface Cell {
  readonly text: string;
  readonly cls?: string;
  readonly title?: string;
}

/** A small HTML table: headers, rows of cells; the first column left-aligned, the rest right. */
function table(
  headers: readonly string[],
  rows: readonly (readonly (string | Cell)[])[],
  opts: { groups?: readonly [string, number][]; caption?: string; leftColumns?: number } = {},
): string {
  const left = opts.leftColumns ?? 1;
  const groups = opts.groups === undefined ? '' : `<tr class="groups">${opts.groups.map(([l, n]) => `<th colspan="${n}">${esc(l)}</th>`).join('')}</tr>`;
  const head = `<tr>${headers.map((h, i) => `<th class="${i < left ? 'l' : 'r'}">${esc(h)}</th>`).join('')}</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr>${r
          .map((c, i) => {
            const cell: Cell = typeof c === 'string' ? { text: c } : c;
            const cls = `${i < left ? 'l' : 'r'}${cell.cls === undefined ? '' : ` ${cell.cls}`}`;
            return `<td class="${cls}"${cell.title === undefined ? '' : ` title="${esc(cell.title)}"`}>${esc(cell.text)}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  const caption = opts.caption === undefined ? '' : `<caption class="note" style="caption-side:bottom;text-align:left">${esc(opts.caption)}</caption>`;
  return `<div class="scroll"><table>${caption}<thead>${groups}${head}</thead><tbody>\n${body}\n</tbody></table></div>`;
}

const variantsOf = (c: Comparison): Variant[] => [...new Set(c.rows.map((r) => r.variant))];
/** The variants a sweep ran (from its first point). */
const sweepVariants = (s: SweepResult): Variant[] => (s.points[0] === undefined ? [] : variantsOf(s.points[0].comparison));

// ---------------------------------------------------------------------------------------------------
// Latency and stragglers

export interface LatencySection {
  readonly headline: Comparison;
  /** A sweep over the straggler probability (param `stragglers`). */
  readonly stragglers: SweepResult;
}

function percentileChart(c: Comparison, title: string, subtitle: string): string {
  const xs = ['p50', 'p99', 'max'];
  const series = c.rows.map((r, i) => ({ name: caseLabels(c.rows)[i] ?? r.variant, values: [r.latencyP50Ms, r.latencyP99Ms, r.latencyMaxMs] }));
  return lineChart({ title, subtitle, xLabel: 'percentile over intervals', yLabel: 'commit latency (virtual ms)', xs, series, format: (v) => millis(v) });
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

function stragglerTable(s: SweepResult): string {
  const variants = sweepVariants(s);
  const headers = ['stragglers', ...variants.flatMap(() => ['p50', 'p99', 'max']), 'write p99 after last worker', `parts/append (${BEST_EFFORT})`, 'model'];
  const rows = s.points.map((p) => {
    const rs = variants.map((v) => headlineRow(p.comparison, v));
    const diverged = p.comparison.rows.filter((r) => !r.modelAgrees);
    const be = headlineRow(p.comparison, BEST_EFFORT);
    return [
      formatParam('stragglers', p.value),
      ...rs.flatMap((r) => (r === undefined ? ['—', '—', '—'] : [millis(r.latencyP50Ms), millis(r.latencyP99Ms), millis(r.latencyMaxMs)])),
      rs.map((r) => (r === undefined ? '—' : `${r.variant} ${millis(r.writeP99Ms)}`)).join(', '),
      be === undefined ? '—' : fixed(be.partsPerAppend, 2),
      diverged.length === 0 ? { text: 'agrees', cls: 'zero' } : { text: `DIVERGES (${diverged.map((r) => r.variant).join(', ')})`, cls: 'bad' },
    ];
  });
  const groups: [string, number][] = [['', 1], ...variants.map((v): [string, number] => [`${v}: commit latency`, 3]), ['', 3]];
  return table(headers, rows, { groups });
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

export function latencySection(d: LatencySection, command: CommandFor): string {
  const h = d.headline;
  const s = d.stragglers;
  const values = s.points.map((p) => formatParam('stragglers', p.value)).join(',');
  const slowdown = s.points.find((p) => p.comparison.setup.stragglers !== undefined)?.comparison.setup.stragglers?.slowdown ?? 100;
  const sweepLine = command(s.scenario, s.base, [`--sweep stragglers=${values}`]);
  return (
    `<p class="note">Commit latency of an interval = from the moment its data is ready (the desired frontier passes it) to the successful compare-and-append that contains it, in the seeded virtual time of the timing model (see <a href="#setup">What ran</a>): blob PUT ${esc('8 ms + bytes ÷ 50 kB/ms')}, a consensus round trip 4 ms, encoding bytes ÷ 50 kB/ms on whoever builds the part. One sample per interval; p99 is the nearest-rank 99th percentile.</p>` +
    `<div class="charts">${percentileChart(h, 'Commit latency per interval', `${h.scenario} · ${h.setup.workers} workers · ${plural(h.setup.intervals, 'interval')} × ${thousands(h.setup.rows)} × ~${h.setup.rowBytes} B · seed ${h.setup.seed}`)}</div>` +
    `<p class="note">Reproduce: <code>${esc(command(h.scenario, h.setup))}</code> (columns <code>latency p50 / p99 / max</code>; <code>--json</code> adds <code>writeP50Ms…</code>, the part after the last worker became ready).</p>` +
    `<h3 id="stragglers">Stragglers</h3>` +
    `<p>A straggler is a worker that, for one description, becomes ready much later: each worker straggles independently per description with probability <em>p</em> (drawn from the seed alone, so every variant meets the same stragglers), and a straggler's readiness delay is its usual draw min(Exp(mean 0.25 ms), 5 ms) multiplied by the slowdown (here ${slowdown}×: mean 25 ms, at most 500 ms). ` +
    `This run uses larger intervals than the headline (${esc(describeSetup(s.scenario, s.base).replace(/^scenario \w+: /, ''))}) so that the size of one upload shows.</p>` +
    `<p><strong>What it shows.</strong> The append operator waits for a hand from every worker in every variant (it collects every batch written for the description), so a straggler delays the commit of <em>every</em> variant by about the same amount. What differs is what is left to do once it arrives: <code>off</code> and best-effort write only the straggler's own small batch (best-effort's early workers formed their batch and uploaded it meanwhile, so its parts per append rise), while the barrier's one shared batch can only be finished and uploaded — all of the process's bytes — after the straggler. So best-effort's cost over <code>off</code> vanishes with stragglers and the barrier's stays.</p>` +
    `<ul>${stragglerFindings(s).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` +
    stragglerCharts(s) +
    stragglerTable(s) +
    `<p class="note">Reproduce: <code>${esc(sweepLine)}</code></p>`
  );
}

// ---------------------------------------------------------------------------------------------------
// Small writes

export interface SmallWritesSection {
  readonly comparison: Comparison;
  /** A sweep over rows per interval in the small-writes scenario (includes 1000). */
  readonly rows: SweepResult;
}

/** What the PRs measured for small writes (DOMAIN.md). */
const PR_SMALL = { offParts: 7.8, sharedParts: 1.05, latencyMs: 10, compaction: 2.5 } as const;

export function smallWritesSection(d: SmallWritesSection, command: CommandFor): string {
  const c = d.comparison;
  const off = headlineRow(c, BASELINE);
  const labels = caseLabels(c.rows);
  const sub = `${c.setup.workers} workers · ${plural(c.setup.intervals, 'interval')} × ${thousands(c.setup.rows)} updates of ~${c.setup.rowBytes} B (≈${bytes(Math.round((c.setup.rows * c.setup.rowBytes) / (c.setup.workers * c.setup.processes)))} per worker) · seed ${c.setup.seed}`;
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
  const summary = table(
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
  const sweepRows = rowsSweep.points.map((p) => [
    { text: `${thousands(p.value)}-row`, title: `${thousands(p.value)} updates of ~${rowsSweep.base.rowBytes} B per interval` },
    ...variants.map((v) => {
      const r = headlineRow(p.comparison, v);
      return r === undefined ? '—' : fixed(r.partsPerAppend, 2);
    }),
    ...variants.map((v) => pr(v, p.value)),
    ...variants.map((v) => {
      const r = headlineRow(p.comparison, v);
      return r === undefined ? '—' : fixed(r.appends === 0 ? 0 : r.blobPuts / r.appends, 2);
    }),
    p.comparison.rows.every((r) => r.modelAgrees) ? { text: 'agrees', cls: 'zero' } : { text: 'DIVERGES', cls: 'bad' },
  ]);
  const sweepTable = table(
    ['rows per interval', ...variants, ...variants, ...variants, 'model'],
    sweepRows,
    {
      groups: [['', 1], ['data parts per append (measured)', variants.length], ['the PR (#37591)', variants.length], ['blob PUTs per append', variants.length], ['', 1]],
      caption: `The PR's "1000-row writes went from ~${PR_SMALL.offParts} to ~${PR_SMALL.sharedParts} data parts per append" with the threshold (here ${formatParam('threshold', rowsSweep.base.threshold)}): its ~${PR_SMALL.sharedParts} is best-effort's; it is listed under both sharing variants.`,
    },
  );
  const rowsValues = rowsSweep.points.map((p) => p.value).join(',');
  const be = headlineRow(c, BEST_EFFORT);
  const barrier = headlineRow(c, BARRIER);
  const extra = (r: Figures | undefined) => (r === undefined || off === undefined ? '—' : `+${millis(r.latencyP50Ms - off.latencyP50Ms)}`);
  const ratio = (r: Figures | undefined) => (r === undefined || off === undefined || r.shardParts === 0 ? '—' : `${fixed(off.shardParts / r.shardParts, 1)}×`);
  const versus = table(
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
    `<p class="note">Reproduce: <code>${esc(command(c.scenario, c.setup))}</code></p>` +
    `<h3 id="small-writes-rows">Rows per interval</h3>` +
    sweepTable +
    `<p class="note">Why not 7.8 and 1.05: here every worker holds data at 1,000 rows (8.00 parts with <code>off</code>; ~30 rows per interval give 7.9), and best-effort's overlap follows the timing model, whose readiness spread was calibrated on the steady workload's larger pushes; with tiny pushes the handles live shorter and overlap less. The barrier gives exactly 1.00 at every size. ` +
    `Reproduce: <code>${esc(command(rowsSweep.scenario, rowsSweep.base, [`--sweep rows=${rowsValues}`]))}</code></p>`
  );
}

// ---------------------------------------------------------------------------------------------------
// Counterexample gallery

export interface GalleryEntry {
  readonly bug: BugName;
  readonly description: string;
  /** The check's summary line. */
  readonly summary: string;
  /** The command that finds it and writes the diagram. */
  readonly command: string;
  readonly sequence?: Sequence | undefined;
  /** When the check did not fail (the bug went unnoticed): why there is no diagram. */
  readonly missing?: string | undefined;
}

export type GallerySection =
  | { readonly kind: 'ran'; readonly entries: readonly GalleryEntry[]; readonly model?: { readonly sequence: Sequence; readonly command: string } | undefined }
  | { readonly kind: 'skipped'; readonly reason: string };

export function gallerySection(g: GallerySection): string {
  if (g.kind === 'skipped') return `<p class="note">Not run: ${esc(g.reason)}</p>`;
  const legend =
    `<p class="note">Each bug of the gallery switched on in the implementation, found by <code>sbkit check</code> and shrunk; its counterexample drawn as a sequence diagram: a lane per worker, per builder instance (a late best-effort handle gets a new one), the registry, the append operator and the shard; arrows are calls (dashed: what a call returned), yellow boxes are a lane's own steps. ` +
    `The step numbers are the trace's event numbers as <code>sbkit check</code> prints them. <span style="color:#b00020;font-weight:600">Red</span>: the event where the model diverged (or, when only a property, the audit or liveness failed, a band after the last event). ` +
    `Hover an arrow or a box for its full text. The same diagrams as Mermaid source: <code>--emit-diagram FILE</code>.</p>`;
  const entries = g.entries
    .map((e) => {
      const body = e.sequence === undefined ? `<p class="miss">${esc(e.missing ?? 'no counterexample')}</p>` : `<div class="seq">${toSvg(e.sequence)}</div>`;
      return (
        `<details class="gallery" id="bug-${esc(e.bug)}" open><summary>${esc(e.bug)} <span class="note">— ${esc(e.description)}</span></summary>` +
        `<p class="note">${esc(e.summary)}. Reproduce: <code>${esc(e.command)}</code></p>${body}` +
        `${e.sequence === undefined ? '' : `<ul class="note">${e.sequence.notes.map((n) => `<li>${esc(n.length > 240 ? `${n.slice(0, 239)}…` : n)}</li>`).join('')}</ul>`}</details>`
      );
    })
    .join('\n');
  const model =
    g.model === undefined
      ? ''
      : `<details class="gallery" id="bug-model" open><summary>the review bug in the model <span class="note">— the exhaustive search's shortest counterexample</span></summary>` +
        `<p class="note">Reproduce: <code>${esc(g.model.command)}</code></p><div class="seq">${toSvg(g.model.sequence)}</div></details>`;
  return legend + entries + model;
}

// ---------------------------------------------------------------------------------------------------
// Model coverage

export type CoverageSection = { readonly kind: 'ran'; readonly result: CoverageResult } | { readonly kind: 'skipped'; readonly reason: string };

export function coverageSection(c: CoverageSection): string {
  if (c.kind === 'skipped') return `<p class="note">Not run: ${esc(c.reason)}</p>`;
  const r = c.result;
  // Counted over what the model can reach in each variant (taken or a gap), not over every machine's transitions.
  const counts = r.variants.map((v) => {
    const taken = r.rows.filter((row) => row.cells[v]?.verdict === 'taken').length;
    const reachable = r.rows.filter((row) => row.cells[v]?.verdict === 'taken' || row.cells[v]?.verdict === 'gap').length;
    return { v, taken, reachable };
  });
  const bars = barChart({
    title: 'Reachable machine transitions taken by the conformance runs',
    subtitle: `${counts.map(({ v, taken, reachable }) => `${v} ${taken} of ${reachable} in ${thousands(r.runs[v] ?? 0)} runs`).join(' · ')} · seed ${r.seed}`,
    xLabel: 'variant',
    yLabel: 'reachable transitions taken (%)',
    bars: counts.map(({ v, taken, reachable }) => ({ label: v, value: reachable === 0 ? 0 : (100 * taken) / reachable })),
    format: (x) => `${Math.round(x)}%`,
    refs: [{ value: 100, label: 'all reachable' }],
  });
  const rows = r.rows.map((row) => [
    row.machine,
    { text: row.transition, cls: 'code' },
    ...r.variants.map((v) => {
      const cell = row.cells[v];
      const unexplained = cell?.verdict === 'gap' || (cell?.verdict === 'unreached' && cell.why?.includes('no reason recorded') === true);
      const cls = cell === undefined ? undefined : cell.verdict === 'taken' ? 'zero' : unexplained ? 'bad' : cell.verdict === 'unreached' ? 'never' : 'muted';
      return { text: cellText(cell), ...(cls === undefined ? {} : { cls }), ...(cell?.why === undefined ? {} : { title: cell.why }) };
    }),
  ]);
  const tableHtml = table(['machine', 'transition', ...r.variants], rows, {
    leftColumns: 2,
    caption: 'A number: how many times the runs took the transition. "—": reachable only in another variant; "bug only": only with a model bug (sweep-upgrade-race, indeterminate-as-mismatch); "never": reached by no run and no search, for the reason listed above (hover for it); "GAP": reachable in the model, never taken — none is the goal.',
  });
  const never = new Map<string, { variants: Variant[]; why: string }>();
  for (const row of r.rows) {
    for (const v of r.variants) {
      const cell = row.cells[v];
      if (cell?.verdict !== 'unreached' && cell?.verdict !== 'gap') continue;
      const key = `${row.machine}: ${row.transition}`;
      const e = never.get(key) ?? { variants: [], why: cell.why ?? '' };
      e.variants.push(v);
      never.set(key, e);
    }
  }
  const neverList = [...never].map(([t, e]) => `<li><code>${esc(t)}</code> (${esc(e.variants.join(', '))}) — ${esc(e.why)}</li>`).join('');
  return (
    `<p class="note">The transitions of the model's XState machines, exactly as drawn in <a href="#diagrams">the diagrams</a> (one per source state, event, guard and target), and how often the conformance runs of the default budget took each: every run's trace replayed through the model, counting the transitions of each event the model accepted. ` +
    `What the model can reach at all: those replays plus an exhaustive search of ${esc(r.shapes.join('; '))}. Reproduce: <code>npx sbkit model --coverage --seed ${r.seed}</code>.</p>` +
    `<p class="${r.exitCode === 0 ? 'ok' : 'miss'}">${esc(r.summary)}</p>` +
    `<div class="charts">${bars}</div>` +
    (neverList === '' ? '' : `<p>Never taken, not explained by the variant or the model bug, and why:</p><ul>${neverList}</ul>`) +
    tableHtml
  );
}

// ---------------------------------------------------------------------------------------------------
// Faults

/** The fault world: the check with faults (`sbkit check --faults`) and compare with faults on the headline. */
export type FaultsSection =
  | {
      readonly kind: 'ran';
      readonly rate: number;
      readonly seed: number;
      readonly check: { readonly exitCode: number; readonly summary: string; readonly variants: readonly { readonly variant: Variant; readonly runs: number; readonly faults: FaultTallyView }[] };
      readonly comparison: Comparison;
    }
  | { readonly kind: 'skipped'; readonly reason: string };

const FAULT_KINDS = ['transient', 'indeterminate-applied', 'indeterminate-lost', 'permanent'] as const;

export function faultsSection(f: FaultsSection, command: CommandFor): string {
  if (f.kind === 'skipped') return `<p class="note">Not run: ${esc(f.reason)}</p>`;
  const head = ['variant', 'runs', ...FAULT_KINDS, 'aborts', 'restarts', 'blobs leaked by aborts', 'collected by cleanup', 'verdict'];
  const ok = f.check.exitCode === 0;
  const rows = f.check.variants.map((v) => [
    v.variant,
    thousands(v.runs),
    ...FAULT_KINDS.map((k) => thousands(v.faults.injected[k] ?? 0)),
    thousands(v.faults.aborts),
    thousands(v.faults.restarts),
    thousands(v.faults.leaked),
    thousands(v.faults.collected),
    ok ? 'all survived' : 'FAILED',
  ]);
  const table = `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => `<td${i === 0 ? '' : ' class="num"'}>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  const c = f.comparison;
  const labels = caseLabels(c.rows);
  const sub = `${c.setup.workers} workers · ${plural(c.setup.intervals, 'interval')} × ${thousands(c.setup.rows)} updates · faults at ${f.rate} · seed ${c.setup.seed}`;
  const bars = (pick: (r: Figures) => number) => c.rows.map((r, i) => ({ label: labels[i] ?? r.variant, value: pick(r) }));
  const charts =
    `<div class="charts">` +
    barChart({ title: 'Storage faults injected and retried', subtitle: sub, xLabel: 'variant', yLabel: 'retries (count)', bars: bars((r) => r.retries), format: thousands }) +
    barChart({ title: 'Blobs leaked by crashed incarnations', subtitle: sub, xLabel: 'variant', yLabel: 'blobs (count; all collected by cleanup)', bars: bars((r) => r.leakedByAborts), format: thousands }) +
    barChart({ title: 'p99 commit latency with crashes', subtitle: sub, xLabel: 'variant', yLabel: 'p99 commit latency (virtual ms)', bars: bars((r) => r.latencyP99Ms), format: millis }) +
    `</div>`;
  const compareRows = c.rows.map((r, i) => [
    labels[i] ?? r.variant,
    thousands(r.appends),
    fixed(r.partsPerAppend, 2),
    thousands(r.faultsInjected),
    thousands(r.retries),
    thousands(r.aborts),
    thousands(r.restarts),
    thousands(r.leakedByAborts),
    thousands(r.collected),
    thousands(r.lost),
    thousands(r.duplicated),
    thousands(r.leakedBlobs),
    millis(r.latencyP99Ms),
    r.modelAgrees ? 'agrees' : 'DIVERGES',
  ]);
  const compareHead = ['variant', 'appends', 'parts/append', 'faults', 'retries', 'aborts', 'restarts', 'leaked by aborts', 'collected', 'lost', 'dup', 'leaked', 'p99', 'model'];
  const compareTable = `<table><thead><tr>${compareHead.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${compareRows
    .map((r) => `<tr>${r.map((x, i) => `<td${i === 0 ? '' : ' class="num"'}>${esc(x)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  return (
    `<p>Storage fails, and replicas crash and are torn down. A run of the check has a safety phase with faults on — blob and consensus calls fail transiently (rate ${f.rate}), ` +
    `end indeterminate (${f.rate / 4}: the compare-and-set applied, or not, and the answer was lost), fail permanently (${f.rate / 20}: the replica goes down like a crash), ` +
    `and replicas are aborted at scheduling points — then a liveness phase that heals and must converge. Restarted incarnations resume at the shard's upper; leaked-blob cleanup collects what aborted incarnations left. ` +
    `Every always-property must hold throughout, and at the end nothing is lost, duplicated or left leaked.</p>` +
    `<p class="${ok ? 'ok' : 'miss'}">${esc(f.check.summary)}</p>` +
    table +
    `<p class="note">Reproduce: <code>npx sbkit check --faults ${f.rate} --seed ${f.seed}</code></p>` +
    `<h3 id="faults-compare">The headline with faults</h3>` +
    charts +
    compareTable +
    `<p class="note">Reproduce: <code>${esc(command(c.scenario, c.setup))}</code></p>`
  );
}
