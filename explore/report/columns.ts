/** The glossary: what every column of the report's tables means (the same text as the headers' tooltips). */
import { DOCS, esc } from './html.ts';

export function columnsSection(): string {
  return `<dl class="kv">${[...DOCS].map(([col, m]) => `<dt>${esc(col)}</dt><dd>${esc(m)}</dd>`).join('')}</dl>`;
}
