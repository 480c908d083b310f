/** Model coverage: the machines' transitions the conformance runs took, per variant, and why the rest were not. */
import type { Variant } from '../../vocab/index.ts';
import { type CoverageResult, cellText } from '../coverage.ts';
import { thousands } from '../format.ts';
import { barChart } from '../svg.ts';
import { cellTable, esc } from './html.ts';

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
    subtitle: `conformance runs: ${r.variants.map((v) => `${v} ${thousands(r.runs[v] ?? 0)}`).join(', ')} · seed ${r.seed}`,
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
  const tableHtml = cellTable(['machine', 'transition', ...r.variants], rows, {
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
    `<p class="note">Taken of reachable: ${esc(counts.map(({ v, taken, reachable }) => `${v} ${taken} of ${reachable} in ${thousands(r.runs[v] ?? 0)} runs`).join(', '))}.</p>` +
    (neverList === '' ? '' : `<p>Never taken, not explained by the variant or the model bug, and why:</p><ul>${neverList}</ul>`) +
    tableHtml
  );
}
