/** Comparisons and sweeps as text tables (and cell grids for the HTML report) and as JSON. */
import type { Variant } from '../vocab/index.ts';
import { formatBytesShort } from './args.ts';
import { bytes, fixed, millis, percent, plural, thousands } from './format.ts';
import { showsEmptyFinishes } from './cases.ts';
import { type Column, col, renderTable } from './table.ts';
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

/** Wall-clock ms with two decimals (production mode's compare-and-append latency). */
const wallMillis = (ms: number | undefined): string => (ms === undefined ? '—' : `${ms.toFixed(2)} ms`);

/** The `model` column's cell: whether the model predicted every append of this run. */
export const modelCell = (r: Figures): string => (r.modelAgrees ? 'agrees' : 'DIVERGES');

/** Columns and cells of a table, rendered as text (table.ts) or HTML (report.ts). */
export interface Grid {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly string[])[];
}

/** The comparison table as text, then where the model diverged (nothing when it agreed with every run). */
export function renderComparison(c: Comparison): string {
  const g = comparisonGrid(c);
  const production = c.backends === undefined ? '' : `\n${describeBackends(c)}`;
  return `${describeSetup(c.scenario, c.setup)}${production}\n\n${renderTable(g.columns, g.rows)}\n${divergences(c.rows, caseLabels(c.rows))}${realNotes(c)}`;
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

/** The comparison's cells. "% off" columns appear when `off` was run. */
export function comparisonGrid(c: Comparison): Grid {
  const off = c.rows.find((r) => r.variant === BASELINE);
  const labels = caseLabels(c.rows);
  const hydration = c.scenario === 'hydration';
  const small = c.scenario === 'small-writes';
  const real = c.backends !== undefined;
  const columns: Column[] = [
    col('variant', 'left'),
    col('appends'),
    col('parts/append'),
    col('batches/append'),
    col('blob PUTs'),
    ...(off ? [col('% off')] : []),
    col('blob bytes'),
    col('consensus cmds'),
    col('state-diff bytes'),
    ...(off ? [col('% off')] : []),
    col('inline parts'),
    col('written'),
    col('appended'),
    ...(small ? [col('shard parts'), ...(off ? [col('% off')] : [])] : []),
    ...(real ? [col('c&a p50'), col('c&a p99')] : [col('latency p50'), col('p99'), col('max')]),
    col('lost'),
    col('dup'),
    col('leaked'),
    ...(hydration ? [col('max builder share'), col('mint→append')] : []),
    ...(c.setup.faults === undefined ? [] : [col('faults'), col('retries'), col('aborts'), col('restarts'), col('leaked by aborts'), col('collected')]),
    ...(showsEmptyFinishes(c.setup) ? [col('empty finishes'), col('received'), col('skips')] : []),
    ...(real ? [col('spec', 'left')] : []),
    col('model', 'left'),
  ];
  const rows = c.rows.map((r, i) => [
    labels[i] ?? r.variant,
    thousands(r.appends),
    fixed(r.partsPerAppend, 2),
    fixed(r.batchesPerAppend, 2),
    thousands(r.blobPuts),
    ...(off ? [percent(r.blobPuts, off.blobPuts)] : []),
    bytes(r.blobBytes),
    thousands(r.consensusCommands),
    bytes(r.stateDiffBytes),
    ...(off ? [percent(r.stateDiffBytes, off.stateDiffBytes)] : []),
    thousands(r.inlineParts),
    thousands(r.updatesWritten),
    thousands(r.updatesAppended),
    ...(small ? [thousands(r.shardParts), ...(off ? [percent(r.shardParts, off.shardParts)] : [])] : []),
    ...(real ? [wallMillis(r.real?.appendP50Ms), wallMillis(r.real?.appendP99Ms)] : [millis(r.latencyP50Ms), millis(r.latencyP99Ms), millis(r.latencyMaxMs)]),
    thousands(r.lost),
    thousands(r.duplicated),
    thousands(r.leakedBlobs),
    ...(hydration ? [percent(r.maxBuilderShare, 1), millis(r.meanAppendLatencyMs)] : []),
    ...(c.setup.faults === undefined ? [] : [r.faultsInjected, r.retries, r.aborts, r.restarts, r.leakedByAborts, r.collected].map(thousands)),
    ...(showsEmptyFinishes(c.setup) ? [thousands(r.emptyFinishes?.finished ?? 0), thousands(r.emptyFinishes?.received ?? 0), thousands(r.emptyFinishes?.skips ?? 0)] : []),
    ...(real ? [r.real?.propertiesHold === true ? 'holds' : 'FAILS'] : []),
    modelCell(r),
  ]);
  return { columns, rows };
}

/** A sweep as text: one table, the parameter's value first. */
export function renderSweep(s: SweepResult): string {
  const g = sweepGrid(s);
  const notes = s.points.map((p) => divergences(p.comparison.rows, caseLabels(p.comparison.rows), `${s.param}=${formatParam(s.param, p.value)}: `)).join('');
  return `${describeSweep(s)}\n\n${renderTable(g.columns, g.rows)}\n${notes}`;
}

function describeSweep(s: SweepResult): string {
  const values = s.points.map((p) => formatParam(s.param, p.value)).join(', ');
  return `sweep ${s.param} over ${values}; otherwise ${describeSetup(s.scenario, s.base)}`;
}

/** The sweep's cells: the key figures per variant and value. */
export function sweepGrid(s: SweepResult): Grid {
  const columns: Column[] = [
    col(s.param, 'left'),
    col('variant', 'left'),
    col('parts/append'),
    col('batches/append'),
    col('blob PUTs'),
    col('% off'),
    col('state-diff bytes'),
    col('% off'),
    col('consensus cmds'),
    col('lost'),
    col('dup'),
    col('leaked'),
    col('model', 'left'),
  ];
  const rows: string[][] = [];
  for (const p of s.points) {
    const off = p.comparison.rows.find((r) => r.variant === BASELINE);
    const labels = caseLabels(p.comparison.rows);
    for (const [i, r] of p.comparison.rows.entries()) {
      rows.push([
        formatParam(s.param, p.value),
        labels[i] ?? r.variant,
        fixed(r.partsPerAppend, 2),
        fixed(r.batchesPerAppend, 2),
        thousands(r.blobPuts),
        off ? percent(r.blobPuts, off.blobPuts) : '—',
        bytes(r.stateDiffBytes),
        off ? percent(r.stateDiffBytes, off.stateDiffBytes) : '—',
        thousands(r.consensusCommands),
        thousands(r.lost),
        thousands(r.duplicated),
        thousands(r.leakedBlobs),
        modelCell(r),
      ]);
    }
  }
  return { columns, rows };
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
 * (the issue's fields first, later additions at the end).
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
