/**
 * The self-contained HTML report: inline CSS, inline SVG charts, tables and the model's Mermaid sources
 * as text. No scripts, no network. Deterministic for the same inputs (no timestamps).
 */
import type { Variant, VariantMeta, VariantOptionValues } from '../vocab/index.ts';
import { formatBytesShort } from './args.ts';
import { headlineRow } from './cases.ts';
import { type Grid, caseLabels, comparisonGrid, describeSetup, formatParam, sweepGrid } from './render.ts';
import { paramAxis } from './sweep-params.ts';
import type { Comparison, Figures, Setup, SweepResult } from './types.ts';
import { COLUMN_DOCS } from './columns.ts';
import type { Criterion } from './criteria.ts';
import type { Reason } from './command.ts';
import { bytes, fixed, millis, percent, plural, thousands } from './format.ts';
import { type Bar, barChart, byteUnit, escapeXml, lineChart } from './svg.ts';
import { type TimingParams, timingOf } from './timing.ts';
import { BASELINE, EXPLORE_VARIANTS, VARIANTS } from './variants/index.ts';
import { formatDuration, optionFlagsOf } from './variant-options.ts';
import { type ModelCheckResult, type PropertyOutcome, WORKLOAD_LINES, describeSearch, describeShape, formatTrace } from './model-check.ts';
import {
  type CoverageSection,
  type GallerySection,
  type LatencySection,
  type SmallWritesSection,
  coverageSection,
  faultsSection,
  type FaultsSection,
  gallerySection,
  latencySection,
  smallWritesSection,
} from './report-sections.ts';

/** A variant's report section, run and rendered (its HTML follows its heading). */
export interface RenderedSection {
  readonly id: string;
  readonly title: string;
  readonly html: string;
}

export type CheckSection =
  | { readonly kind: 'ran'; readonly exitCode: number; readonly summary: string; readonly output: string }
  | { readonly kind: 'skipped'; readonly reason: string };

/** The exhaustive model check (`sbkit model --check`); wall time is left out so the report stays deterministic. */
export type ModelCheckSection = { readonly kind: 'ran'; readonly result: ModelCheckResult } | { readonly kind: 'skipped'; readonly reason: string };

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
  /** Omitted: no model-check section. */
  readonly modelCheck?: ModelCheckSection | undefined;
  readonly diagrams: DiagramSection;
  /** Issue 11's sections; each omitted: not in the report. */
  readonly latency?: LatencySection | undefined;
  readonly smallWrites?: SmallWritesSection | undefined;
  readonly gallery?: GallerySection | undefined;
  readonly coverage?: CoverageSection | undefined;
  /** Issue 8: the fault world; omitted: not in the report. */
  readonly faults?: FaultsSection | undefined;
  /** Sections the report's variants add (job.ts runVariantSections), after the latency section. */
  readonly variantSections?: readonly RenderedSection[] | undefined;
  /** Why the job exits non-zero (job.ts jobReasons): the headline says them. Omitted: judged from the sections. */
  readonly reasons?: readonly Reason[] | undefined;
}

const esc = escapeXml;

const CSS = `
:root{--muted:#5a5a5a;--line:#dcdcdc;--ok:#0a7a2f;--miss:#b00020;--warn:#8a5a00}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1d;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{margin-top:1.8rem}
.sub{color:var(--muted);margin-top:0}
nav.toc{font-size:.9rem;color:var(--muted)}nav.toc a{margin-right:.9rem;white-space:nowrap}
a{color:#0b5cad}
table{border-collapse:collapse;font-size:.84rem;margin:.6rem 0 1rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:.22rem .4rem}td{white-space:nowrap}
th{background:#f4f4f4;font-weight:600;vertical-align:bottom}
thead tr.groups th{background:#e9eef4;text-align:center;font-size:.78rem;letter-spacing:.02em;text-transform:uppercase;color:#334}
th[title]{cursor:help;text-decoration:underline dotted #999}
td.r,th.r{text-align:right}td.l,th.l{text-align:left}
tbody tr:nth-child(even) td{background:#fafafa}
tbody tr.first td{border-top:2px solid #bbb}
td.zero{color:var(--ok)}td.bad{color:#fff;background:var(--miss)!important;font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
.scroll tbody td:first-child{position:sticky;left:0;background:#fff;z-index:1}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:1rem;margin:.6rem 0 1rem}
.charts svg{border:1px solid #eee;background:#fff;width:100%;height:auto;max-width:600px}
ul.crit{list-style:none;padding-left:0}ul.crit li{margin:.2rem 0}
.ok{color:var(--ok);font-weight:600}.miss{color:var(--miss);font-weight:600}
pre{background:#f7f7f7;border:1px solid #e5e5e5;padding:.7rem;overflow-x:auto;font-size:.8rem;line-height:1.35}
code{font-size:.88em;background:#f3f3f3;padding:0 .2em;border-radius:3px}pre code{background:none;padding:0}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.2rem;margin:.6rem 0}dl.kv dt{font-weight:600}dl.kv dd{margin:0}
.note{color:var(--muted);font-size:.9rem}
.findings{background:#f3f8f4;border-left:4px solid var(--ok);padding:.6rem 1rem;margin:1rem 0}
.findings.missed{background:#fbf1f2;border-left-color:var(--miss)}
.findings.incomplete{background:#fdf7e8;border-left-color:var(--warn)}.warn{color:var(--warn);font-weight:600}
.findings p.verdict{margin:.15rem 0}
.findings ul{margin:.3rem 0;padding-left:1.2rem}
details{border:1px solid #e5e5e5;border-radius:4px;margin:.5rem 0;padding:.3rem .7rem}
details>summary{cursor:pointer;font-weight:600}details>summary .note{font-weight:400}
details[open]>summary{margin-bottom:.4rem}
td.muted{color:#888}td.never{color:#8a5a00;background:#fff4dc!important}td.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.78rem}
.seq{overflow-x:auto;max-width:100%;margin:.4rem 0}.seq svg{max-width:none;background:#fff}
details.gallery>summary{font-size:1.02rem}details.gallery li{overflow-wrap:anywhere}
@media print{details{break-inside:avoid}.charts svg{max-width:100%}}
`;

// ---------------------------------------------------------------------------------------------------
// Tables

/** The group a column belongs to in the report's two-row table headers; "% off" joins its left neighbour. */
const COLUMN_GROUP: Readonly<Record<string, string>> = {
  appends: 'appends',
  'parts/append': 'appends',
  'batches/append': 'appends',
  'blob PUTs': 'blob storage',
  'blob bytes': 'blob storage',
  'consensus cmds': 'consensus',
  'state-diff bytes': 'consensus',
  'inline parts': 'consensus',
  written: 'updates',
  appended: 'updates',
  lost: 'audit',
  dup: 'audit',
  leaked: 'audit',
  'shard parts': 'compaction',
  'latency p50': 'commit latency',
  p99: 'commit latency',
  max: 'commit latency',
  'max builder share': 'hydration',
  'mint→append': 'hydration',
  model: 'model',
};
/** Columns whose cells are marked: green when they show the one good value, red otherwise. */
const GOOD_VALUE: ReadonlyMap<string, string> = new Map([
  ['lost', '0'],
  ['dup', '0'],
  ['leaked', '0'],
  ['lost+dup+leaked', '0'],
  ['model', 'agrees'],
]);
const DOCS = new Map<string, string>([
  ...COLUMN_DOCS.map(([c, m]) => [c, m] as const),
  ['% off', "this row's value as a share of off's value in the same run (off = 100%)"],
  ['lost+dup+leaked', 'sweeps: lost plus duplicated updates plus leaked blobs, summed over the variants (must be 0)'],
]);

function columnGroups(headers: readonly string[]): { label: string; span: number }[] {
  const out: { label: string; span: number }[] = [];
  let prev = '';
  for (const h of headers) {
    const g = h === '% off' ? prev : (COLUMN_GROUP[h] ?? '');
    prev = g;
    const last = out[out.length - 1];
    if (last !== undefined && last.label === g) last.span++;
    else out.push({ label: g, span: 1 });
  }
  return out;
}

/**
 * A grid as an HTML table: a group row above the column headers, each header's meaning as its tooltip,
 * audit cells marked (green 0, red otherwise), and a heavier rule where `firstColumnBreaks` changes value.
 */
export function htmlTable(g: Grid, opts: { groups?: readonly { label: string; span: number }[]; firstColumnBreaks?: boolean; caption?: string } = {}): string {
  const cls = (a: 'left' | 'right') => (a === 'left' ? 'l' : 'r');
  const groups = opts.groups ?? columnGroups(g.columns.map((c) => c.header));
  const groupRow = groups.some((x) => x.label !== '')
    ? `<tr class="groups">${groups.map((x) => `<th colspan="${x.span}"${x.label === 'audit' ? ' title="the shard audit: every cell must be 0"' : ''}>${esc(x.label)}</th>`).join('')}</tr>`
    : '';
  const head = g.columns
    .map((c) => {
      const doc = DOCS.get(c.header);
      return `<th class="${cls(c.align)}"${doc === undefined ? '' : ` title="${esc(doc)}"`}>${esc(c.header).replace(/\//g, '/<wbr>')}</th>`;
    })
    .join('');
  let prevKey: string | undefined;
  const body = g.rows
    .map((r) => {
      const key = r[0];
      const first = opts.firstColumnBreaks === true && prevKey !== undefined && key !== prevKey;
      prevKey = key;
      const cells = g.columns
        .map((c, i) => {
          const v = r[i] ?? '';
          const good = GOOD_VALUE.get(c.header);
          const mark = good === undefined ? '' : v === good ? ' zero' : ' bad';
          const text = i === 0 ? esc(v).replace(' @ ', '<br>@ ') : esc(v);
          return `<td class="${cls(c.align)}${mark}">${text}</td>`;
        })
        .join('');
      return `<tr${first ? ' class="first"' : ''}>${cells}</tr>`;
    })
    .join('\n');
  const caption = opts.caption === undefined ? '' : `<caption class="note" style="caption-side:bottom;text-align:left">${esc(opts.caption)}</caption>`;
  return `<div class="scroll"><table>${caption}<thead>${groupRow}<tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** The same grid with the named columns moved right after the first one (the columns a section is about). */
export function leadWith(g: Grid, headers: readonly string[]): Grid {
  const lead = headers.map((h) => g.columns.findIndex((c) => c.header === h)).filter((i) => i > 0);
  if (lead.length === 0) return g;
  const order = [0, ...lead, ...g.columns.map((_, i) => i).filter((i) => i > 0 && !lead.includes(i))];
  return { columns: order.map((i) => g.columns[i] ?? { header: '', align: 'right' }), rows: g.rows.map((r) => order.map((i) => r[i] ?? '')) };
}

// ---------------------------------------------------------------------------------------------------
// Context: what ran

/** The system in a chart subtitle: `8 workers`, or `2×1×8 workers` with more than one replica or process. */
const systemShort = (s: Setup): string => (s.replicas === 1 && s.processes === 1 ? `${s.workers} workers` : `${s.replicas}×${s.processes}×${s.workers} workers`);

/** Bytes one worker stages per interval, about. */
const bytesPerWorker = (s: Setup): number => Math.round((s.rows * s.rowBytes) / Math.max(1, s.workers * s.processes));

/** A short "what ran" line for chart subtitles. */
function chartSubtitle(scenario: string, s: Setup): string {
  return `${scenario} · ${systemShort(s)} · ${plural(s.intervals, 'interval')} × ${thousands(s.rows)} updates · seed ${s.seed}`;
}

/** The `sbkit compare` command line that reproduces a comparison's numbers. */
export function compareCommand(scenario: string, s: Setup, extra: readonly string[] = []): string {
  return [
    'npx sbkit compare',
    ...(scenario === 'steady' ? [] : [`--scenario ${scenario}`]),
    `--replicas ${s.replicas} --processes ${s.processes} --workers ${s.workers}`,
    `--intervals ${s.intervals} --rows ${s.rows} --row-bytes ${s.rowBytes}`,
    `--threshold ${formatBytesShort(s.threshold)} --seed ${s.seed}`,
    ...(s.stragglers === undefined ? [] : [`--stragglers ${s.stragglers.probability},${s.stragglers.slowdown}`]),
    ...(s.faults === undefined ? [] : [`--faults ${s.faults}`]),
    ...(s.noData === undefined ? [] : [`--no-data ${s.noData}`]),
    ...optionFlagsOf(s.variantOptions),
    ...(s.bug === undefined ? [] : [`--bug ${s.bug}`]),
    ...extra,
  ].join(' ');
}


function timingText(t: TimingParams): string {
  return (
    `frontier advances every ${thousands(t.intervalMs)} ms (one batch interval); a worker becomes ready min(Exp(mean ${t.readinessMeanMs} ms), ${t.readinessCapMs} ms) after its description; ` +
    `blob PUT ${t.blobBaseMs} ms + bytes ÷ ${thousands(t.blobBytesPerMs / 1000)} kB/ms; consensus command ${t.consensusBaseMs} ms; ` +
    `encoding bytes ÷ ${thousands(t.encodeBytesPerMs / 1000)} kB/ms on whoever builds the part (a shared batch's pushing workers, an own batch's worker); up to ${t.jitterMs} ms jitter per step; ` +
    (t.stragglerProbability === 0 ? 'no stragglers' : `stragglers: each worker per description with p = ${t.stragglerProbability}, ready ${t.stragglerSlowdown}× later`)
  );
}

/** A variant's options as the run used them (each option at its value or default), or nothing. */
function optionsText(meta: VariantMeta, given: VariantOptionValues | undefined): string {
  if (meta.options.length === 0) return '';
  return ` Options: ${meta.options.map((o) => `${o.flag} ${formatDuration(given?.[o.name] ?? o.default)}`).join(', ')}.`;
}

function setupSection(c: Comparison): string {
  const s = c.setup;
  const timing = timingOf(s);
  const variants = EXPLORE_VARIANTS.filter((v) => c.variants.includes(v.meta.name)).map((v) => [v.meta.name, `${v.meta.meaning}${optionsText(v.meta, s.variantOptions?.[v.meta.name])}`] as const);
  return `<dl class="kv">
<dt>system</dt><dd>${esc(`${plural(s.replicas, 'replica')} × ${plural(s.processes, 'process', 'processes')} × ${plural(s.workers, 'worker')} per process, all writing one persist shard (in-memory blob + consensus)`)}</dd>
<dt>workload</dt><dd>${esc(`${plural(s.intervals, 'batch interval')} × ${thousands(s.rows)} updates of ~${thousands(s.rowBytes)} B, spread over the workers by key hash (≈${bytes(bytesPerWorker(s))} per worker per interval)`)}</dd>
<dt>threshold</dt><dd><code>shared_batch_max_bytes</code> = ${esc(formatBytesShort(s.threshold))}: a worker staging more than this writes its own batch instead of joining the shared one; 0 disables sharing</dd>
<dt>seed</dt><dd>${s.seed}: derives the workload and the timing; the same seed gives the same numbers, byte for byte${s.bug === undefined ? '' : ` — <span class="miss">bug ${esc(s.bug)} switched on</span>`}</dd>
<dt>time</dt><dd>virtual (no wall clock): ${esc(timingText(timing))}</dd>
${variants.map(([v, d]) => `<dt>${esc(v)}</dt><dd>${esc(d)}</dd>`).join('\n')}
<dt>reproduce</dt><dd><code>${esc(compareCommand(c.scenario, s))}</code></dd>
</dl>`;
}

/** Every run in the report once, named by where it appears: the comparison, each sweep point, hydration. */
export function reportRuns(d: Pick<ReportData, 'comparison' | 'sweeps' | 'hydration' | 'latency' | 'smallWrites'>): { where: string; row: Figures; label: string }[] {
  const seen = new Set<Comparison>();
  const out: { where: string; row: Figures; label: string }[] = [];
  const add = (where: string, c: Comparison): void => {
    if (seen.has(c)) return;
    seen.add(c);
    const labels = caseLabels(c.rows);
    c.rows.forEach((row, i) => out.push({ where, row, label: labels[i] ?? row.variant }));
  };
  add('comparison', d.comparison);
  for (const s of d.sweeps) for (const p of s.points) add(`${s.param}=${formatParam(s.param, p.value)}`, p.comparison);
  if (d.hydration !== undefined) add('hydration', d.hydration);
  for (const p of d.latency?.stragglers.points ?? []) add(`stragglers=${formatParam('stragglers', p.value)}`, p.comparison);
  if (d.smallWrites !== undefined) {
    add('small writes', d.smallWrites.comparison);
    for (const p of d.smallWrites.rows.points) add(`small writes rows=${p.value}`, p.comparison);
  }
  return out;
}

/** Whether the model predicted every run's appends: one finding line. */
function modelAgreementFinding(runs: readonly { where: string; row: Figures; label: string }[]): { text: string; bad: boolean } {
  const diverged = runs.filter((r) => !r.row.modelAgrees);
  if (diverged.length === 0) {
    return { text: `Model cross-check: the model replayed the trace of every run in this report (${plural(runs.length, 'run')}) and predicted every append's batches and parts exactly.`, bad: false };
  }
  const listed = diverged.slice(0, 3).map((r) => `${r.label} (${r.where}): ${r.row.modelDetail}`);
  const more = diverged.length > listed.length ? `; and ${diverged.length - listed.length} more` : '';
  return { text: `Model cross-check: the model DIVERGED from ${diverged.length} of ${plural(runs.length, 'run')}: ${listed.join('; ')}${more}.`, bad: true };
}

/** The headline, computed from the comparison (never assumed): what sharing saves and whether the data survived. */
function findings(
  c: Comparison,
  criteria: readonly Criterion[],
  check: CheckSection,
  model: ModelCheckSection | undefined,
  runs: readonly { where: string; row: Figures; label: string }[],
  more: Pick<ReportData, 'latency' | 'smallWrites' | 'gallery' | 'coverage' | 'reasons'> = {},
): string {
  const off = headlineRow(c, BASELINE);
  const items: string[] = [];
  const ppa = c.rows.map((r) => `${r.variant} ${fixed(r.partsPerAppend, 2)}`).join(', ');
  items.push(`Parts per append: ${ppa}${off === undefined ? '' : ` (${c.setup.workers * c.setup.processes} workers; 1.00 is ideal)`}.`);
  if (off !== undefined) {
    const others = c.rows.filter((r) => r !== off);
    if (others.length > 0) {
      items.push(`Blob PUTs relative to off: ${others.map((r) => `${r.variant} ${percent(r.blobPuts, off.blobPuts)} (${thousands(r.blobPuts)} vs ${thousands(off.blobPuts)})`).join(', ')}.`);
      items.push(`Consensus state-diff bytes relative to off: ${others.map((r) => `${r.variant} ${percent(r.stateDiffBytes, off.stateDiffBytes)}`).join(', ')}.`);
    }
  }
  const cmds = new Set(c.rows.map((r) => r.consensusCommands));
  items.push(cmds.size === 1 ? `Consensus commands: ${thousands([...cmds][0] ?? 0)} for every variant (sharing does not change them).` : `Consensus commands: ${c.rows.map((r) => `${r.variant} ${thousands(r.consensusCommands)}`).join(', ')}.`);
  const dirty = c.rows.filter((r) => r.lost + r.duplicated + r.leakedBlobs > 0);
  items.push(dirty.length === 0 ? 'Storage audit: no update lost or duplicated and no blob leaked, in any variant.' : `Storage audit FAILED for ${dirty.map((r) => r.variant).join(', ')}.`);
  items.push(`Commit latency p50 / p99 / max: ${c.rows.map((r) => `${r.variant} ${millis(r.latencyP50Ms)} / ${millis(r.latencyP99Ms)} / ${millis(r.latencyMaxMs)}`).join(', ')}.`);
  const st = more.latency?.stragglers;
  const lastPoint = st?.points[st.points.length - 1];
  const firstPoint = st?.points[0];
  if (lastPoint !== undefined && firstPoint !== undefined && lastPoint !== firstPoint) {
    const p99 = (x: Comparison, v: Variant) => headlineRow(x, v)?.latencyP99Ms ?? 0;
    items.push(
      `Stragglers (p = ${formatParam('stragglers', lastPoint.value)}, larger intervals): p99 ${VARIANTS.filter((v) => headlineRow(lastPoint.comparison, v) !== undefined).map((v) => `${v} ${millis(p99(firstPoint.comparison, v))} → ${millis(p99(lastPoint.comparison, v))}`).join(', ')}: every variant waits for the straggler's hand; the barrier also uploads its whole batch after it.`,
    );
  }
  const sw = more.smallWrites?.comparison;
  if (sw !== undefined) {
    const o = headlineRow(sw, BASELINE);
    const others = sw.rows.filter((r) => r.variant !== BASELINE);
    if (o !== undefined && others.length > 0) {
      items.push(
        `Small writes: off ${fixed(o.blobPuts / Math.max(1, o.appends), 2)} PUTs per append (inline parts), ${others.map((r) => `${r.variant} ${fixed(r.blobPuts / Math.max(1, r.appends), 2)} PUTs per append, p50 +${millis(r.latencyP50Ms - o.latencyP50Ms)}, ${fixed(o.shardParts / Math.max(1, r.shardParts), 1)}× fewer parts in the shard`).join('; ')} (the PRs: one PUT per append, about +10 ms p50, 2.5× fewer compaction parts).`,
      );
    }
  }
  if (more.gallery?.kind === 'ran') {
    const caught = more.gallery.entries.filter((e) => e.sequence !== undefined).length;
    items.push(`Counterexample gallery: ${caught} of ${more.gallery.entries.length} bugs caught and drawn as sequence diagrams.`);
  }
  if (more.coverage?.kind === 'ran') items.push(`Model coverage: ${more.coverage.result.summary.replace(/^sbkit model --coverage: /, '')}.`);
  const agreement = modelAgreementFinding(runs);
  items.push(agreement.text);
  if (model?.kind === 'ran') items.push(`Model check (exhaustive): ${model.result.summary.replace(/^sbkit model --check: /, '')}.`);
  if (check.kind === 'ran') items.push(`Conformance check: ${check.summary.replace(/^sbkit check: /, '')}.`);
  const missed = criteria.filter((x) => !x.ok).length;
  const criteriaLine = missed === 0 ? `All ${criteria.length} done-criteria hold.` : `${missed} of ${criteria.length} done-criteria missed.`;
  const galleryMissed = more.gallery?.kind === 'ran' && more.gallery.entries.some((e) => e.sequence === undefined);
  const coverageGaps = more.coverage?.kind === 'ran' && more.coverage.result.exitCode !== 0;
  const bad =
    missed > 0 || dirty.length > 0 || agreement.bad || (check.kind === 'ran' && check.exitCode !== 0) || (model?.kind === 'ran' && model.result.exitCode !== 0) || galleryMissed || coverageGaps;
  // The headline says what failed, each line in the colour of what it says; the box takes the worst.
  const reasons = more.reasons;
  const lines: { cls: 'ok' | 'miss' | 'warn'; text: string }[] =
    reasons === undefined
      ? [{ cls: bad ? 'miss' : 'ok', text: bad && missed === 0 ? 'Something failed: see the findings below.' : criteriaLine }]
      : [
          ...reasons.map((r) => ({ cls: r.exit === 1 ? ('miss' as const) : ('warn' as const), text: `${r.exit === 1 ? 'Failed' : 'Incomplete'}: ${r.text}` })),
          ...(missed === 0 ? [{ cls: 'ok' as const, text: criteriaLine }] : []),
          ...(reasons.length === 0 ? [{ cls: 'ok' as const, text: 'Every check passed.' }] : []),
        ];
  const box = lines.some((l) => l.cls === 'miss') ? ' missed' : lines.some((l) => l.cls === 'warn') ? ' incomplete' : '';
  const head = lines.map((l) => `<p class="verdict"><strong class="${l.cls}">${esc(l.text)}</strong></p>`).join('');
  return `<div class="findings${box}">${head}<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul></div>`;
}

// ---------------------------------------------------------------------------------------------------
// Charts

/** Bars of a byte quantity on an axis in one binary unit (KiB, MiB, …), labelled with exact sizes. */
function byteBars(title: string, what: string, subtitle: string, labels: readonly string[], values: readonly number[], xLabel: string): string {
  const { unit, size } = byteUnit(Math.max(0, ...values));
  return barChart({
    title,
    subtitle,
    xLabel,
    yLabel: `${what} (${unit})`,
    bars: values.map((v, i) => ({ label: labels[i] ?? '', value: v / size })),
    format: (v) => bytes(Math.round(v * size)),
    tickFormat: (v) => fixed(v, Number.isInteger(v) ? 0 : 1),
  });
}

/** One bar per row of a comparison, labelled by its case, of the figure `f` picks. */
const barsOf =
  (c: Comparison) =>
  (f: (r: Figures) => number): Bar[] => {
    const labels = caseLabels(c.rows);
    return c.rows.map((r, i) => ({ label: labels[i] ?? '', value: f(r) }));
  };

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
    `</div>`
  );
}

function sweepVariants(s: SweepResult): Variant[] {
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
    htmlTable(pivot.grid, { groups: pivot.groups }) +
    `<details><summary>All figures per ${esc(s.param)} and variant <span class="note">(${s.points.length * sweepVariants(s).length} rows)</span></summary>${htmlTable(sweepGrid(s), { firstColumnBreaks: true })}</details>`
  );
}

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
const trimPct = (v: number): string => (Number.isInteger(v) ? String(v) : fixed(v, 1));

// ---------------------------------------------------------------------------------------------------
// Criteria, check, diagrams, glossary

function criteriaList(cs: readonly Criterion[]): string {
  return `<ul class="crit">${cs
    .map((c) => `<li><span class="${c.ok ? 'ok' : 'miss'}">${c.ok ? '✔ ok' : '✘ miss'}</span> ${esc(c.name)} <span class="note">(${esc(c.detail)})</span></li>`)
    .join('\n')}</ul>`;
}

/** Wraps long comma-separated lines of the check's output, continuing under the text after the first ": ". */
export function reflow(text: string, width = 110): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width || !line.includes(', ')) return [line];
      const colon = line.indexOf(': ');
      const indent = ' '.repeat(colon >= 0 ? colon + 2 : line.length - line.trimStart().length);
      const parts = line.split(', ');
      const out: string[] = [];
      let cur = parts[0] ?? '';
      for (const p of parts.slice(1)) {
        if (cur.length + 2 + p.length + 1 > width) {
          out.push(`${cur},`);
          cur = indent + p;
        } else cur += `, ${p}`;
      }
      out.push(cur);
      return out;
    })
    .join('\n');
}

function checkSection(c: CheckSection): string {
  switch (c.kind) {
    case 'ran':
      return (
        `<p class="note">Random workloads and worker interleavings run on the implementation; each run's protocol trace is replayed on the model (refinement), the spec's properties are checked on it, and the shard is audited. ` +
        `Reproduce: <code>npx sbkit check --variant all</code>.</p>` +
        `<p class="${c.exitCode === 0 ? 'ok' : 'miss'}">${esc(c.summary)}</p><pre>${esc(reflow(c.output))}</pre>`
      );
    case 'skipped':
      return `<p class="note">Not run: ${esc(c.reason)}</p>`;
  }
}

function modelVerdictCell(p: PropertyOutcome | undefined): string {
  if (p === undefined) return '<td></td>';
  const n = p.trace?.length ?? 0;
  switch (p.verdict) {
    case 'holds':
      return '<td class="l zero">holds</td>';
    case 'vacuous':
      return `<td class="l muted">vacuous <span class="note">(${esc(p.note ?? '')})</span></td>`;
    case 'violated':
      return `<td class="l bad">VIOLATED (${n} events)</td>`;
    case 'unknown':
      return '<td class="l bad">unknown (search incomplete)</td>';
    case 'witnessed':
      return `<td class="l">witnessed (${n}-event example)</td>`;
    case 'not-witnessed':
      return `<td class="l">NOT witnessed${p.note === undefined ? '' : ` <span class="note">(${esc(p.note)})</span>`}</td>`;
  }
}

function modelCheckSection(m: ModelCheckSection): string {
  if (m.kind === 'skipped') return `<p class="note">Not run: ${esc(m.reason)}</p>`;
  const r = m.result;
  const req = r.request;
  const command = ['npx sbkit model --check', ...(req.modelBug === undefined ? [] : [`--model-bug ${req.modelBug}`])].join(' ');
  const head = `<tr><th class="l">kind</th><th class="l">property</th>${r.variants.map((v) => `<th class="l">${esc(v.variant)}</th>`).join('')}</tr>`;
  const countRow = (label: string, cell: (v: ModelCheckResult['variants'][number]) => string) =>
    `<tr><td class="l"></td><td class="l">${esc(label)}</td>${r.variants.map((v) => `<td class="r">${cell(v)}</td>`).join('')}</tr>`;
  const names = r.variants[0]?.properties ?? [];
  const rows = [
    countRow('distinct states explored', (v) => thousands(v.states)),
    countRow('final states', (v) => thousands(v.finals)),
    countRow('search complete', (v) => (v.complete ? 'yes' : '<span class="miss">NO</span>')),
    ...names.map(
      (p) =>
        `<tr><td class="l">${esc(p.kind)}</td><td class="l">${esc(p.name)}</td>${r.variants.map((v) => modelVerdictCell(v.properties.find((x) => x.name === p.name))).join('')}</tr>`,
    ),
  ];
  const traces = r.variants.flatMap((v) =>
    v.properties
      .filter((p) => p.verdict === 'violated')
      .map(
        (p) =>
          `<details><summary>${esc(v.variant)}: ${esc(p.name)} <span class="note">— ${esc(p.why ?? '')}</span></summary><pre>${esc(formatTrace(p.trace ?? [], '').join('\n'))}</pre></details>`,
      ),
  );
  return (
    `<p class="note">Breadth-first search over the reachable states of the model (model/) on ${esc(describeShape(req))}${req.modelBug === undefined ? '' : `, with the model bug <code>${esc(req.modelBug)}</code> switched on`} (${esc(describeSearch(req))}: the state counts are of representatives when reductions are on); ` +
    `<em>always</em> properties are judged on every state, <em>eventually</em> on every final state, <em>sometimes</em> need one reachable witness. Counterexamples are shortest traces. ` +
    `Reproduce: <code>${esc(command)}</code> (the review bug: <code>npx sbkit model --check --variant best-effort --model-bug sweep-upgrade-race</code>).</p>` +
    `<pre>${esc(WORKLOAD_LINES.join('\n'))}</pre>` +
    `<p class="${r.exitCode === 0 ? 'ok' : 'miss'}">${esc(r.summary)}</p>` +
    `<div class="scroll"><table><thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>` +
    traces.join('\n')
  );
}

function diagramSection(d: DiagramSection): string {
  switch (d.kind) {
    case 'ok':
      return (
        `<p class="note">The model's state machines as Mermaid <code>stateDiagram-v2</code> source, generated from the machine definitions. ` +
        `This report loads nothing, so they are not drawn here: print them with <code>npx sbkit model --mermaid</code> and paste one into <a href="https://mermaid.live">mermaid.live</a> (or any Markdown preview) to see it drawn.</p>` +
        d.diagrams
          .map((x) => {
            const lines = x.mermaid.split('\n');
            const transitions = lines.filter((l) => l.includes('-->') && !l.includes('[*]')).length;
            return (
              `<details class="diagram" id="machine-${esc(x.name)}"><summary>${esc(x.name)} <span class="note">— ${transitions} transitions · <code>npx sbkit model --mermaid --machine ${esc(x.name)}</code></span></summary>` +
              `<pre class="mermaid-src"><code>${esc(x.mermaid)}</code></pre></details>`
            );
          })
          .join('\n')
      );
    case 'unavailable':
      return `<p class="note">Not available: ${esc(d.reason)}</p>`;
  }
}

export function renderReport(d: ReportData): string {
  const c = d.comparison;
  const sweeps = d.sweeps.map(sweepSection).join('\n');
  const hydration =
    d.hydration === undefined
      ? ''
      : `<h2 id="hydration">Hydration: why the threshold exists</h2>
<p class="note">${esc(describeSetup(d.hydration.scenario, d.hydration.setup))}. Reproduce: <code>${esc(compareCommand(d.hydration.scenario, d.hydration.setup))}</code></p>
<p>Each worker stages far more than the threshold (≈${esc(bytes(bytesPerWorker(d.hydration.setup)))} per worker per interval), so at the threshold every worker falls back to its own batch and the work spreads like <code>off</code>; with an unlimited threshold every worker pushes into one shared builder per process, which serializes encoding and upload.</p>
${hydrationCharts(d.hydration)}
${htmlTable(leadWith(comparisonGrid(d.hydration), ['max builder share', 'mint→append']))}`;
  const glossary = `<dl class="kv">${[...DOCS].map(([col, m]) => `<dt>${esc(col)}</dt><dd>${esc(m)}</dd>`).join('')}</dl>`;
  const toc = [
    ['setup', 'What ran'],
    ['comparison', 'Comparison'],
    ['criteria', 'Done criteria'],
    ...(d.sweeps.length > 0 ? [['sweeps', 'Sweeps']] : []),
    ...(d.latency === undefined ? [] : [['latency', 'Latency & stragglers']]),
    ...(d.variantSections ?? []).map((x) => [x.id, x.title] as const),
    ...(d.smallWrites === undefined ? [] : [['small-writes', 'Small writes']]),
    ...(d.hydration === undefined ? [] : [['hydration', 'Hydration']]),
    ...(d.modelCheck === undefined ? [] : [['model-check', 'Model check']]),
    ['check', 'Conformance check'],
    ...(d.faults === undefined ? [] : [['faults', 'Faults & recovery']]),
    ...(d.gallery === undefined ? [] : [['gallery', 'Counterexamples']]),
    ...(d.coverage === undefined ? [] : [['coverage', 'Model coverage']]),
    ['diagrams', 'Model diagrams'],
    ['columns', 'Columns'],
  ] as const;
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
<p class="sub">Produced by <code>${esc(d.command)}</code>: the implementation (impl/) ran on the embedded in-memory backend under a seeded virtual-time schedule; the same seed reproduces every number.</p>
<nav class="toc">${toc.map(([id, label]) => `<a href="#${id}">${esc(label)}</a>`).join(' ')}</nav>
${findings(c, d.criteria, d.check, d.modelCheck, reportRuns(d), d)}
<h2 id="setup">What ran</h2>
${setupSection(c)}
<h2 id="comparison">Comparison</h2>
<p class="note">${esc(describeSetup(c.scenario, c.setup))}. Hover a column header for its meaning (all are listed under <a href="#columns">Columns</a>).</p>
${comparisonCharts(c)}
${htmlTable(comparisonGrid(c))}
<h3 id="criteria">Done criteria</h3>
${criteriaList(d.criteria)}
${d.sweeps.length > 0 ? `<h2 id="sweeps">Sweeps</h2>\n${sweeps}` : ''}
${d.latency === undefined ? '' : `<h2 id="latency">Latency and stragglers</h2>\n${latencySection(d.latency, compareCommand)}`}
${(d.variantSections ?? []).map((x) => `<h2 id="${esc(x.id)}">${esc(x.title)}</h2>\n${x.html}`).join('\n')}
${d.smallWrites === undefined ? '' : `<h2 id="small-writes">Small writes and compaction</h2>\n${smallWritesSection(d.smallWrites, compareCommand)}`}
${hydration}
${d.modelCheck === undefined ? '' : `<h2 id="model-check">Model check (exhaustive)</h2>\n${modelCheckSection(d.modelCheck)}`}
<h2 id="check">Conformance check</h2>
${checkSection(d.check)}
${d.faults === undefined ? '' : `<h2 id="faults">Faults, crashes and recovery</h2>\n${faultsSection(d.faults, compareCommand)}`}
${d.gallery === undefined ? '' : `<h2 id="gallery">Counterexample gallery</h2>\n${gallerySection(d.gallery)}`}
${d.coverage === undefined ? '' : `<h2 id="coverage">Model coverage</h2>\n${coverageSection(d.coverage)}`}
<h2 id="diagrams">Model diagrams</h2>
${diagramSection(d.diagrams)}
<h2 id="columns">Columns</h2>
${glossary}
</body>
</html>
`;
}
