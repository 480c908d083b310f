/**
 * HTML building blocks of the report: escaping, a grid as a table with grouped headers, tooltips and
 * marked audit cells (`htmlTable`), and a small table of cells (`cellTable`) for the sections' own tables.
 */
import { COLUMN_DOCS } from '../columns.ts';
import type { Grid } from '../render.ts';
import { escapeXml } from '../svg.ts';

export const esc = escapeXml;

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
/** Every column's meaning: the tooltips of the headers and the report's glossary. */
export const DOCS = new Map<string, string>([
  ...COLUMN_DOCS.map(([c, m]) => [c, m] as const),
  ['% off', "this row's value as a share of off's value in the same run (off = 100%)"],
  ['lost+dup+leaked', 'sweeps: lost plus duplicated updates plus leaked blobs, summed over the variants (must be 0)'],
]);

export interface Group {
  readonly label: string;
  readonly span: number;
}

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
export function htmlTable(g: Grid, opts: { groups?: readonly Group[]; firstColumnBreaks?: boolean; caption?: string; cls?: string } = {}): string {
  const cls = (a: 'left' | 'right') => (a === 'left' ? 'l' : 'r');
  const groups = opts.groups ?? columnGroups(g.columns.map((c) => c.header));
  const groupRow = groups.some((x) => x.label !== '')
    ? `<tr class="groups">${groups.map((x) => `<th colspan="${x.span}"${x.label === 'audit' ? ' title="the shard audit: every cell must be 0"' : ''}>${esc(x.label)}</th>`).join('')}</tr>`
    : '';
  const head = g.columns
    .map((c) => {
      const doc = DOCS.get(c.header);
      return `<th class="${cls(c.align)}"${doc === undefined ? '' : ` title="${esc(doc)}"`}>${esc(c.header).replace(/([/+])/g, '$1<wbr>')}</th>`;
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
          // a cell may wrap only before its parenthesis: `882 B (24%)` → `882 B` over `(24%)`
          const text = i === 0 ? esc(v).replace(' @ ', '<br>@ ') : esc(v).replace(/ (?!\()/g, '&nbsp;');
          return `<td class="${cls(c.align)}${mark}">${text}</td>`;
        })
        .join('');
      return `<tr${first ? ' class="first"' : ''}>${cells}</tr>`;
    })
    .join('\n');
  const caption = opts.caption === undefined ? '' : `<caption class="note" style="caption-side:bottom;text-align:left">${esc(opts.caption)}</caption>`;
  return `<div class="scroll"><table${opts.cls === undefined ? '' : ` class="${opts.cls}"`}>${caption}<thead>${groupRow}<tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** The same grid with the named columns moved right after the first one (the columns a section is about). */
export function leadWith(g: Grid, headers: readonly string[]): Grid {
  const lead = headers.map((h) => g.columns.findIndex((c) => c.header === h)).filter((i) => i > 0);
  if (lead.length === 0) return g;
  const order = [0, ...lead, ...g.columns.map((_, i) => i).filter((i) => i > 0 && !lead.includes(i))];
  return { columns: order.map((i) => g.columns[i] ?? { header: '', align: 'right' }), rows: g.rows.map((r) => order.map((i) => r[i] ?? '')) };
}

/**
 * A grid turned on its side: one column per row of the grid (a variant, a case), one row per figure,
 * grouped as `htmlTable` groups its columns, a "% off" merged into the figure before it. Its width grows
 * with the number of cases, not of figures: every figure shows, for any number of variants.
 */
export function transposedTable(g: Grid, opts: { caption?: string } = {}): string {
  const [label, ...figures] = g.columns.map((c, i) => ({ c, i }));
  if (label === undefined) return '';
  const cases = g.rows.map((r) => r[label.i] ?? '');
  const rows: { header: string; cells: string[]; pct: (string | undefined)[] }[] = [];
  for (const { c, i } of figures) {
    const last = rows[rows.length - 1];
    if (c.header === '% off' && last !== undefined) last.pct = g.rows.map((r) => r[i]);
    else rows.push({ header: c.header, cells: g.rows.map((r) => r[i] ?? ''), pct: [] });
  }
  const groups = columnGroups(rows.map((r) => r.header));
  let at = 0;
  const body = groups
    .map((grp) => {
      const slice = rows.slice(at, at + grp.span);
      at += grp.span;
      const head = grp.label === '' ? '' : `<tr class="group"><th colspan="${cases.length + 1}"${grp.label === 'audit' ? ' title="the shard audit: every cell must be 0"' : ''}>${esc(grp.label)}</th></tr>\n`;
      return (
        head +
        slice
          .map((r) => {
            const doc = DOCS.get(r.header);
            const good = GOOD_VALUE.get(r.header);
            const cells = r.cells
              .map((v, k) => {
                const mark = good === undefined ? '' : v === good ? ' zero' : ' bad';
                const pct = r.pct[k];
                return `<td class="r${mark}">${esc(v)}${pct === undefined ? '' : ` <span class="pct">(${esc(pct)})</span>`}</td>`;
              })
              .join('');
            return `<tr><th class="l" scope="row"${doc === undefined ? '' : ` title="${esc(doc)}"`}>${esc(r.header)}${r.pct.length > 0 ? ' <span class="pct">(% off)</span>' : ''}</th>${cells}</tr>`;
          })
          .join('\n')
      );
    })
    .join('\n');
  const caption = opts.caption === undefined ? '' : `<caption class="note" style="caption-side:bottom;text-align:left">${esc(opts.caption)}</caption>`;
  const head = `<tr><th class="l"></th>${cases.map((x) => `<th class="r case">${esc(x).replace(' @ ', '<br>@ ').replace(', ', ',<br>')}</th>`).join('')}</tr>`;
  return `<table class="transposed">${caption}<thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

export interface Cell {
  readonly text: string;
  readonly cls?: string;
  readonly title?: string;
}

/**
 * A small HTML table: headers, rows of cells; the first column(s) left-aligned, the rest right.
 * `byFirst`: rows come in blocks by their first cell (a swept value), which is shown once per block
 * above a heavier rule.
 */
export function cellTable(
  headers: readonly string[],
  rows: readonly (readonly (string | Cell)[])[],
  opts: { groups?: readonly [string, number][]; caption?: string; leftColumns?: number; byFirst?: boolean } = {},
): string {
  const left = opts.leftColumns ?? 1;
  const groups = opts.groups === undefined ? '' : `<tr class="groups">${opts.groups.map(([l, n]) => `<th colspan="${n}">${esc(l)}</th>`).join('')}</tr>`;
  const head = `<tr>${headers.map((h, i) => `<th class="${i < left ? 'l' : 'r'}"${DOCS.has(h) ? ` title="${esc(DOCS.get(h) ?? '')}"` : ''}>${esc(h)}</th>`).join('')}</tr>`;
  const textOf = (c: string | Cell | undefined): string => (c === undefined ? '' : typeof c === 'string' ? c : c.text);
  const body = rows
    .map((r, k) => {
      const block = opts.byFirst === true ? textOf(r[0]) !== textOf(rows[k - 1]?.[0]) : false;
      const cells = r
        .map((c, i) => {
          const cell: Cell = typeof c === 'string' ? { text: c } : c;
          const cls = `${i < left ? 'l' : 'r'}${cell.cls === undefined ? '' : ` ${cell.cls}`}`;
          const text = opts.byFirst === true && i === 0 && !block && k > 0 ? '' : cell.text;
          return `<td class="${cls}"${cell.title === undefined ? '' : ` title="${esc(cell.title)}"`}>${esc(text)}</td>`;
        })
        .join('');
      return `<tr${block && k > 0 ? ' class="first"' : ''}>${cells}</tr>`;
    })
    .join('\n');
  const caption = opts.caption === undefined ? '' : `<caption class="note" style="caption-side:bottom;text-align:left">${esc(opts.caption)}</caption>`;
  return `<div class="scroll"><table>${caption}<thead>${groups}${head}</thead><tbody>\n${body}\n</tbody></table></div>`;
}
