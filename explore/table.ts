/** Aligned plain-text tables. */

export type Align = 'left' | 'right';

export interface Column {
  readonly header: string;
  readonly align: Align;
}

/** A column; numbers align right unless told otherwise. */
export const col = (header: string, align: Align = 'right'): Column => ({ header, align });

/** Renders rows under headers, padding every column to its widest cell, with a rule under the header. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        const w = widths[i] ?? 0;
        return c.align === 'left' ? cell.padEnd(w) : cell.padStart(w);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(columns.map((c) => c.header)), rule, ...rows.map(line)].join('\n');
}
