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

/**
 * Prose lines wrapped at `width` characters, a continuation indented two more than its line: a clause
 * (up to a comma) that does not fit the line's rest starts the next line when little room is left, else
 * it is broken between words; a word longer than the line stays whole.
 */
export function wrapText(text: string, width = 120): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      const indent = /^ */.exec(line)?.[0] ?? '';
      const clauses = line.slice(indent.length).split(/(?<=,) /);
      const out: string[] = [];
      let cur = indent;
      const add = (piece: string): void => {
        if (cur.trim() !== '' && cur.length + 1 + piece.length > width) {
          out.push(cur);
          cur = `${indent}  ${piece}`;
        } else cur = cur.trim() === '' ? `${cur}${piece}` : `${cur} ${piece}`;
      };
      for (const clause of clauses) {
        const room = width - cur.length - 1;
        if (clause.length <= room || (room < width / 3 && `${indent}  ${clause}`.length <= width)) add(clause);
        else for (const word of clause.split(' ')) add(word);
      }
      out.push(cur);
      return out;
    })
    .join('\n');
}
