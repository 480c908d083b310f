/**
 * The columns of `sbkit compare`'s tables, by name: what each cell shows, in which table it appears and
 * how much it is asked for. Three layouts of the same numbers:
 * - default: the most asked-for columns that fit `TABLE_WIDTH` characters — the audit's lost / dup /
 *   leaked folded into one `audit` cell (`ok` when all are 0); when the candidates are wider, the least
 *   asked-for go first (`rank`), and a line under the table says how many more `--wide` shows;
 * - `--wide`: every column that applies to the run, in one fixed order (the full table);
 * - `--columns a,b,c`: the named columns in that order (the variant first even when not named).
 * A "% off" column follows PUTs, state-diff bytes and shard parts whenever off ran.
 */
import { bytes, fixed, millis, percent, thousands } from './format.ts';
import { showsEmptyFinishes } from './cases.ts';
import { type Align, type Column, col } from './table.ts';
import type { Figures, Scenario, Setup } from './types.ts';

/** The width the default table fits, in characters (a terminal of 120 columns). */
export const TABLE_WIDTH = 120;

/** What decides which columns apply and what a cell says. */
export interface ColumnContext {
  readonly scenario: Scenario;
  readonly setup: Setup;
  /** off's row in the same comparison (the base of "% off"), when off ran. */
  readonly off: Figures | undefined;
  /** Production mode (`--consensus`/`--blob` not mem): wall-clock compare-and-append latency, the spec's verdict. */
  readonly real: boolean;
}

interface ColumnDef {
  /** Its name for `--columns`. */
  readonly name: string;
  readonly header: string;
  readonly align?: Align;
  readonly cell: (r: Figures, label: string) => string;
  /** A "% off" column follows, of this figure relative to off's. */
  readonly relative?: (r: Figures) => number;
  /** In the full table (`--wide`). */
  readonly wide: (c: ColumnContext) => boolean;
  /** A candidate of the default table: kept the longer the higher; undefined: only with `--wide` or `--columns`. */
  readonly rank?: (c: ColumnContext) => number | undefined;
}

const always = (): boolean => true;
const virtual = (c: ColumnContext): boolean => !c.real;
const real = (c: ColumnContext): boolean => c.real;
const faulted = (c: ColumnContext): boolean => c.setup.faults !== undefined;
const scenario = (s: Scenario) => (c: ColumnContext): boolean => c.scenario === s;
const noData = (c: ColumnContext): boolean => showsEmptyFinishes(c.setup);
/** A rank that applies only where `when` does. */
const rankWhen = (when: (c: ColumnContext) => boolean, rank: number) => (c: ColumnContext): number | undefined => (when(c) ? rank : undefined);
const rank = (n: number) => (): number => n;
const wallMillis = (ms: number | undefined): string => (ms === undefined ? '—' : `${ms.toFixed(2)} ms`);
const auditCell = (r: Figures): string => (r.lost + r.duplicated + r.leakedBlobs === 0 ? 'ok' : `lost ${thousands(r.lost)} dup ${thousands(r.duplicated)} leaked ${thousands(r.leakedBlobs)}`);

/** Every column, in the order of the full table. */
const COLUMNS: readonly ColumnDef[] = [
  { name: 'variant', header: 'variant', align: 'left', cell: (_, label) => label, wide: always, rank: rank(Number.POSITIVE_INFINITY) },
  { name: 'appends', header: 'appends', cell: (r) => thousands(r.appends), wide: always, rank: rank(50) },
  { name: 'parts', header: 'parts/append', cell: (r) => fixed(r.partsPerAppend, 2), wide: always, rank: rank(85) },
  { name: 'batches', header: 'batches/append', cell: (r) => fixed(r.batchesPerAppend, 2), wide: always },
  { name: 'puts', header: 'blob PUTs', cell: (r) => thousands(r.blobPuts), relative: (r) => r.blobPuts, wide: always, rank: rank(72) },
  { name: 'blob-bytes', header: 'blob bytes', cell: (r) => bytes(r.blobBytes), wide: always },
  { name: 'consensus', header: 'consensus cmds', cell: (r) => thousands(r.consensusCommands), wide: always },
  { name: 'state-diff', header: 'state-diff bytes', cell: (r) => bytes(r.stateDiffBytes), relative: (r) => r.stateDiffBytes, wide: always, rank: rank(65) },
  { name: 'inline', header: 'inline parts', cell: (r) => thousands(r.inlineParts), wide: always },
  { name: 'written', header: 'written', cell: (r) => thousands(r.updatesWritten), wide: always },
  { name: 'appended', header: 'appended', cell: (r) => thousands(r.updatesAppended), wide: always },
  { name: 'shard-parts', header: 'shard parts', cell: (r) => thousands(r.shardParts), relative: (r) => r.shardParts, wide: scenario('small-writes'), rank: rankWhen(scenario('small-writes'), 80) },
  { name: 'ca-p50', header: 'c&a p50', cell: (r) => wallMillis(r.real?.appendP50Ms), wide: real, rank: rankWhen(real, 79) },
  { name: 'ca-p99', header: 'c&a p99', cell: (r) => wallMillis(r.real?.appendP99Ms), wide: real, rank: rankWhen(real, 80) },
  { name: 'p50', header: 'latency p50', cell: (r) => millis(r.latencyP50Ms), wide: virtual, rank: rankWhen(virtual, 60) },
  { name: 'p99', header: 'p99', cell: (r) => millis(r.latencyP99Ms), wide: virtual, rank: rankWhen(virtual, 70) },
  { name: 'max', header: 'max', cell: (r) => millis(r.latencyMaxMs), wide: virtual },
  { name: 'lost', header: 'lost', cell: (r) => thousands(r.lost), wide: always },
  { name: 'dup', header: 'dup', cell: (r) => thousands(r.duplicated), wide: always },
  { name: 'leaked', header: 'leaked', cell: (r) => thousands(r.leakedBlobs), wide: always },
  { name: 'audit', header: 'audit', align: 'left', cell: auditCell, wide: () => false, rank: rank(90) },
  { name: 'builder-share', header: 'max builder share', cell: (r) => percent(r.maxBuilderShare, 1), wide: scenario('hydration'), rank: rankWhen(scenario('hydration'), 80) },
  { name: 'mint-append', header: 'mint→append', cell: (r) => millis(r.meanAppendLatencyMs), wide: scenario('hydration'), rank: rankWhen(scenario('hydration'), 79) },
  { name: 'faults', header: 'faults', cell: (r) => thousands(r.faultsInjected), wide: faulted, rank: rankWhen(faulted, 74) },
  { name: 'retries', header: 'retries', cell: (r) => thousands(r.retries), wide: faulted, rank: rankWhen(faulted, 78) },
  { name: 'aborts', header: 'aborts', cell: (r) => thousands(r.aborts), wide: faulted, rank: rankWhen(faulted, 77) },
  { name: 'restarts', header: 'restarts', cell: (r) => thousands(r.restarts), wide: faulted, rank: rankWhen(faulted, 76) },
  { name: 'leaked-by-aborts', header: 'leaked by aborts', cell: (r) => thousands(r.leakedByAborts), wide: faulted, rank: rankWhen(faulted, 73) },
  { name: 'collected', header: 'collected', cell: (r) => thousands(r.collected), wide: faulted, rank: rankWhen(faulted, 75) },
  { name: 'empty-finishes', header: 'empty finishes', cell: (r) => thousands(r.emptyFinishes?.finished ?? 0), wide: noData, rank: rankWhen(noData, 78) },
  { name: 'received', header: 'received', cell: (r) => thousands(r.emptyFinishes?.received ?? 0), wide: noData, rank: rankWhen(noData, 77) },
  { name: 'skips', header: 'skips', cell: (r) => thousands(r.emptyFinishes?.skips ?? 0), wide: noData, rank: rankWhen(noData, 76) },
  { name: 'spec', header: 'spec', align: 'left', cell: (r) => (r.real?.propertiesHold === true ? 'holds' : 'FAILS'), wide: real, rank: rankWhen(real, 88) },
  { name: 'model', header: 'model', align: 'left', cell: (r) => (r.modelAgrees ? 'agrees' : 'DIVERGES'), wide: always, rank: rank(95) },
];

/** A sweep's full table: the figures that move with a parameter, in this order. */
const SWEEP_WIDE: readonly string[] = ['variant', 'parts', 'batches', 'puts', 'state-diff', 'consensus', 'lost', 'dup', 'leaked', 'model'];

/** The names `--columns` accepts, in the full table's order. */
export const COLUMN_NAMES: readonly string[] = COLUMNS.map((c) => c.name);

/** Which columns a table shows. */
export type ColumnChoice =
  | { readonly kind: 'default'; readonly width: number }
  | { readonly kind: 'wide' }
  | { readonly kind: 'named'; readonly names: readonly string[] };

export const DEFAULT_CHOICE: ColumnChoice = { kind: 'default', width: TABLE_WIDTH };

/** One row of a table: its cells before the figures' (a sweep's value), its label, its figures and their context. */
export interface ColumnRow {
  readonly lead: readonly string[];
  readonly label: string;
  readonly figures: Figures;
  readonly context: ColumnContext;
}

export interface ColumnTable {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly string[])[];
  /** Columns the full table has that this one leaves out (default layout only; otherwise empty). */
  readonly hidden: readonly string[];
}

const byName = new Map(COLUMNS.map((c) => [c.name, c]));

/** The cells of one column (and its "% off" when `relative`) for every row. */
function cellsOf(d: ColumnDef, rows: readonly ColumnRow[], relative: boolean): { columns: Column[]; cells: string[][] } {
  const columns = [col(d.header, d.align ?? 'right'), ...(relative ? [col('% off')] : [])];
  const cells = rows.map((r) => {
    const main = d.cell(r.figures, r.label);
    if (!relative || d.relative === undefined) return [main];
    const off = r.context.off;
    return [main, off === undefined ? '—' : percent(d.relative(r.figures), d.relative(off))];
  });
  return { columns, cells };
}

/**
 * The table of `rows` under `choice`, after the `lead` columns (a sweep's parameter). `sweep`: the full
 * table is a sweep's (its own columns, "% off" always shown).
 */
export function columnTable(rows: readonly ColumnRow[], lead: readonly Column[], choice: ColumnChoice, sweep = false): ColumnTable {
  const first = rows[0]?.context;
  if (first === undefined) return { columns: [...lead], rows: [], hidden: [] };
  const anyOff = rows.some((r) => r.context.off !== undefined);
  const wideDefs = (sweep ? SWEEP_WIDE.map((n) => byName.get(n)).filter((d) => d !== undefined) : COLUMNS).filter((d) => sweep || d.wide(first));
  let defs: ColumnDef[];
  switch (choice.kind) {
    case 'wide':
      defs = wideDefs;
      break;
    case 'named':
      defs = [...(choice.names.includes('variant') ? [] : ['variant']), ...choice.names].map((n) => byName.get(n)).filter((d) => d !== undefined);
      break;
    case 'default':
      defs = COLUMNS.filter((d) => d.rank?.(first) !== undefined);
      break;
  }
  const relative = (d: ColumnDef): boolean => d.relative !== undefined && (anyOff || (sweep && choice.kind === 'wide'));
  const blocks = defs.map((d) => ({ d, ...cellsOf(d, rows, relative(d)) }));
  let kept = blocks;
  if (choice.kind === 'default') {
    const widthOf = (b: (typeof blocks)[number]): number =>
      b.columns.reduce((sum, c, i) => sum + Math.max(c.header.length, ...b.cells.map((cells) => (cells[i] ?? '').length)) + 2, 0);
    const leadWidth = lead.reduce((sum, c, i) => sum + Math.max(c.header.length, ...rows.map((r) => (r.lead[i] ?? '').length)) + 2, 0);
    const total = (bs: readonly (typeof blocks)[number][]): number => leadWidth + bs.reduce((s, b) => s + widthOf(b), 0) - 2;
    while (total(kept) > choice.width) {
      const droppable = kept.filter((b) => Number.isFinite(b.d.rank?.(first) ?? 0));
      if (droppable.length === 0) break;
      const lowest = droppable.reduce((a, b) => ((b.d.rank?.(first) ?? 0) < (a.d.rank?.(first) ?? 0) ? b : a));
      kept = kept.filter((b) => b !== lowest);
    }
  }
  const shown = new Set(kept.map((b) => b.d.name));
  const folded = shown.has('audit') ? ['lost', 'dup', 'leaked'] : [];
  const hidden = choice.kind === 'default' ? wideDefs.filter((d) => !shown.has(d.name) && !folded.includes(d.name)).map((d) => d.header) : [];
  return {
    columns: [...lead, ...kept.flatMap((b) => b.columns)],
    rows: rows.map((r, i) => [...r.lead, ...kept.flatMap((b) => b.cells[i] ?? [])]),
    hidden,
  };
}

/** `--help`: the names `--columns` takes, with their headers. */
export function renderColumnNames(): string {
  const width = Math.max(...COLUMNS.map((c) => c.name.length));
  return COLUMNS.map((c) => `  ${c.name.padEnd(width)}  ${c.header}${c.name === 'audit' ? ' (lost, dup and leaked in one cell: ok when all are 0)' : ''}`).join('\n');
}
