/** Comparisons and sweeps as text tables (and cell grids for the HTML report) and as JSON. */
import type { Variant } from '../vocab/index.ts';
import { formatBytesShort } from './args.ts';
import { plural, thousands } from './format.ts';
import { type Column, col, renderTable, wrapText } from './table.ts';
import { type ColumnChoice, type ColumnRow, DEFAULT_CHOICE, columnTable } from './compare-columns.ts';
import { BASELINE, sharesAtAll } from './variants/index.ts';
import { optionFlagsOf, optionsJson } from './variant-options.ts';
import type { Case, Comparison, Figures, Scenario, Setup, Stragglers, SweepResult } from './types.ts';
import { formatParam, isFixedParam } from './sweep-params.ts';

/** Each case's name in tables and charts: the variant, plus the threshold when the cases mix thresholds,
 * plus its no-data policy under `--no-data both`. */
export function caseLabels(cases: readonly Case[]): string[] {
  const mixed = new Set(cases.map((x) => x.threshold)).size > 1;
  return cases.map((c) => {
    const name = mixed && sharesAtAll(c.variant) ? `${c.variant} @ ${formatBytesShort(c.threshold)}` : c.variant;
    return c.noData === undefined ? name : `${name}, no-data ${c.noData}`;
  });
}

/** A swept value as the command line writes it (sweep-params.ts). */
export { formatParam } from './sweep-params.ts';

/** One line saying what ran: the system, the workload, the knob and the seed. */
export function describeSetup(scenario: Scenario, s: Setup): string {
  const bug = s.bug === undefined ? '' : `, BUG ${s.bug} switched on`;
  const stragglers = s.stragglers === undefined ? '' : `, stragglers ${describeStragglers(s.stragglers)}`;
  const faults = s.faults === undefined ? '' : `, faults at ${s.faults}`;
  const noData = s.noData === undefined ? '' : `, no-data ${s.noData}`;
  const options = optionFlagsOf(s.variantOptions).map((f) => `, ${f.replace(/^--/, '')}`).join('');
  return (
    `scenario ${scenario}: ${plural(s.replicas, 'replica')} × ${plural(s.processes, 'process', 'processes')} × ${s.workers} workers, ` +
    `${thousands(s.intervals)} intervals × ${thousands(s.rows)} updates of ~${s.rowBytes} B, ` +
    `threshold ${formatBytesShort(s.threshold)}, seed ${s.seed}${noData}${options}${stragglers}${faults}${bug}`
  );
}

/** `p = 5%, 100× slower`. */
export const describeStragglers = (s: Stragglers): string => `p = ${trimPercent(s.probability)}, ${s.slowdown}× slower`;
const trimPercent = (p: number): string => `${Number((p * 100).toPrecision(6))}%`;

/** Columns and cells of a table, rendered as text (table.ts) or HTML (report.ts). */
export interface Grid {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly string[])[];
}

/**
 * The comparison table as text (by default the most asked-for columns within 120 characters: compare-columns.ts),
 * then where the model diverged (nothing when it agreed with every run). The lines above and below the
 * table wrap at the same width.
 */
export function renderComparison(c: Comparison, choice: ColumnChoice = DEFAULT_CHOICE): string {
  const g = comparisonGrid(c, choice);
  const production = c.backends === undefined ? '' : `\n${describeBackends(c)}`;
  return `${wrapText(`${describeSetup(c.scenario, c.setup)}${production}`)}\n\n${renderTable(g.columns, g.rows)}\n${wrapText(hiddenNote(g.hidden) + divergences(c.rows, caseLabels(c.rows)) + realNotes(c))}`;
}

/** Production mode's second header line: the stores, and what differs from a virtual-time run. */
function describeBackends(c: Comparison): string {
  const b = c.backends;
  if (b === undefined) return '';
  return (
    `production: consensus ${b.consensus}, blob ${b.blob}; pass-through scheduler (real concurrency, no virtual time); ` +
    `every case on a fresh shard, its trace put in the shard's order, replayed on the model and judged by the spec's properties; ` +
    `the audit reads the stores back. c&a p50/p99: compare-and-append in wall-clock ms (every hand collected → its answer), the only wall time compare reports`
  );
}

/** Production mode: where each case wrote, and any property that failed. */
function realNotes(c: Comparison): string {
  if (c.backends === undefined) return '';
  const labels = caseLabels(c.rows);
  return c.rows
    .map((r, i) => {
      const x = r.real;
      if (x === undefined) return '';
      const where = `${labels[i] ?? r.variant}: shard ${x.shardId}${x.blobDir === undefined ? '' : `, blobs in ${x.blobDir}`}; ${x.moved} trace events moved into the shard's order; ran ${(x.wallMs / 1000).toFixed(2)} s\n`;
      return where + x.propertyFailures.map((f) => `  spec FAILS: ${f}\n`).join('');
    })
    .join('');
}

/** One line per run the model diverged from: `model DIVERGES on best-effort: diverged at event #9 (…): …`. */
function divergences(rows: readonly Figures[], labels: readonly string[], prefix = ''): string {
  return rows
    .map((r, i) => (r.modelAgrees ? '' : `${prefix}model DIVERGES on ${labels[i] ?? r.variant}: ${r.modelDetail}\n`))
    .join('');
}

/** What one row of a comparison's table is: its label, its figures and what decides its columns. */
function columnRows(c: Comparison, lead: (r: Figures) => readonly string[] = () => []): ColumnRow[] {
  const labels = caseLabels(c.rows);
  const context = { scenario: c.scenario, setup: c.setup, off: c.rows.find((r) => r.variant === BASELINE), real: c.backends !== undefined };
  return c.rows.map((r, i) => ({ lead: lead(r), label: labels[i] ?? r.variant, figures: r, context }));
}

/** The comparison's cells: every column that applies (`--wide`, the default here), or as `choice` says. "% off" columns appear when `off` was run. */
export function comparisonGrid(c: Comparison, choice: ColumnChoice = { kind: 'wide' }): Grid & { readonly hidden: readonly string[] } {
  return columnTable(columnRows(c), [], choice);
}

/** Under a default table: how many columns it left out, and how to see them. */
function hiddenNote(hidden: readonly string[]): string {
  return hidden.length === 0 ? '' : `more with --wide or --columns: ${hidden.join(', ')}\n`;
}

/** A sweep as text: one table, the parameter's value first (columns as in `renderComparison`). */
export function renderSweep(s: SweepResult, choice: ColumnChoice = DEFAULT_CHOICE): string {
  const g = sweepGrid(s, choice);
  const notes = s.points.map((p) => divergences(p.comparison.rows, caseLabels(p.comparison.rows), `${s.param}=${formatParam(s.param, p.value)}: `)).join('');
  return `${wrapText(describeSweep(s))}\n\n${renderTable(g.columns, g.rows)}\n${wrapText(hiddenNote(g.hidden) + notes)}`;
}

function describeSweep(s: SweepResult): string {
  const values = s.points.map((p) => formatParam(s.param, p.value)).join(', ');
  return `sweep ${s.param} over ${values}; otherwise ${describeSetup(s.scenario, s.base)}`;
}

/** The sweep's cells: the key figures per variant and value (its own full table by default, or as `choice` says). */
export function sweepGrid(s: SweepResult, choice: ColumnChoice = { kind: 'wide' }): Grid & { readonly hidden: readonly string[] } {
  const rows = s.points.flatMap((p) => columnRows(p.comparison, () => [formatParam(s.param, p.value)]));
  return columnTable(rows, [col(s.param, 'left')], choice, true);
}

// ---------------------------------------------------------------------------------------------------
// JSON

/** `config` of the JSON output: the setup's workload and system (no timing), the scenario and the variants. */
type ConfigJson = Pick<Setup, 'replicas' | 'processes' | 'workers' | 'intervals' | 'rows' | 'rowBytes' | 'threshold' | 'seed'> & {
  readonly scenario: Scenario;
  readonly variants: readonly Variant[];
  readonly bug: string | null;
  readonly stragglers: Stragglers | null;
};

function configJson(scenario: Scenario, s: Setup, variants: readonly Variant[]): ConfigJson {
  return {
    scenario,
    replicas: s.replicas,
    processes: s.processes,
    workers: s.workers,
    intervals: s.intervals,
    rows: s.rows,
    rowBytes: s.rowBytes,
    threshold: s.threshold,
    seed: s.seed,
    variants,
    bug: s.bug ?? null,
    stragglers: s.stragglers ?? null,
    ...(s.noData === undefined ? {} : { noData: s.noData }),
    ...(s.variantOptions === undefined ? {} : { variantOptions: optionsJson(s.variantOptions) }),
  };
}

/**
 * One entry of `variants` in the JSON output: every field of Figures but `modelDetail`, in a fixed order
 * (the headline's fields first, then latency, the compaction proxy and the fault world).
 */
function figuresJson(r: Figures): Omit<Figures, 'modelDetail'> {
  return {
    variant: r.variant,
    ...(r.noData === undefined ? {} : { noData: r.noData }),
    appends: r.appends,
    partsPerAppend: r.partsPerAppend,
    batchesPerAppend: r.batchesPerAppend,
    blobPuts: r.blobPuts,
    stateDiffBytes: r.stateDiffBytes,
    consensusCommands: r.consensusCommands,
    updatesWritten: r.updatesWritten,
    updatesAppended: r.updatesAppended,
    lost: r.lost,
    duplicated: r.duplicated,
    leakedBlobs: r.leakedBlobs,
    threshold: r.threshold,
    blobBytes: r.blobBytes,
    inlineParts: r.inlineParts,
    hollowParts: r.hollowParts,
    maxBuilderShare: r.maxBuilderShare,
    simulatedMs: r.simulatedMs,
    meanAppendLatencyMs: r.meanAppendLatencyMs,
    modelAgrees: r.modelAgrees,
    latencyP50Ms: r.latencyP50Ms,
    latencyP99Ms: r.latencyP99Ms,
    latencyMaxMs: r.latencyMaxMs,
    writeP50Ms: r.writeP50Ms,
    writeP99Ms: r.writeP99Ms,
    writeMaxMs: r.writeMaxMs,
    shardParts: r.shardParts,
    faultsInjected: r.faultsInjected,
    retries: r.retries,
    aborts: r.aborts,
    restarts: r.restarts,
    leakedByAborts: r.leakedByAborts,
    collected: r.collected,
    ...(r.real === undefined ? {} : { real: r.real }),
    ...(r.emptyFinishes === undefined ? {} : { emptyFinishes: r.emptyFinishes }),
  };
}

export function comparisonJson(c: Comparison): string {
  const config = { ...configJson(c.scenario, c.setup, c.variants), ...(c.backends === undefined ? {} : { backends: c.backends }) };
  return `${JSON.stringify({ config, variants: c.rows.map(figuresJson) }, null, 2)}\n`;
}

/** `{config, sweeps: [{parameter, points: [{value, variants}]}]}`: one object for any number of sweeps. A
 * variant's option's value is text as the command line writes it (`5ms`, `inf`: not a JSON number). */
export function sweepsJson(sweeps: readonly SweepResult[], scenario: Scenario, base: Setup, variants: readonly Variant[]): string {
  const out = sweeps.map((s) => ({
    parameter: s.param,
    points: s.points.map((p) => ({ value: isFixedParam(s.param) ? p.value : formatParam(s.param, p.value), variants: p.comparison.rows.map(figuresJson) })),
  }));
  return `${JSON.stringify({ config: configJson(scenario, base, variants), sweeps: out }, null, 2)}\n`;
}
