/** What an append waits for: one description of a straggler run drawn per variant on one time axis. */
import { timelineChart } from '../charts/timeline.ts';
import { millis, plural, thousands } from '../format.ts';
import { caseLabels, formatParam } from '../render.ts';
import type { SweepResult } from '../types.ts';
import { compareCommand } from './context.ts';
import { esc } from './html.ts';

/** The straggler sweep's point with the most stragglers, each variant's timeline of its worst straggler's description. */
export function timelineSection(s: SweepResult): string {
  const point = s.points[s.points.length - 1];
  if (point === undefined) return '';
  const c = point.comparison;
  const labels = caseLabels(c.rows);
  const drawn = c.rows.flatMap((r, i) => (r.timeline === undefined ? [] : [{ label: labels[i] ?? r.variant, t: r.timeline }]));
  const first = drawn[0]?.t;
  if (first === undefined) return '';
  const xMax = Math.max(...drawn.map(({ t }) => t.commitAt ?? 0));
  const p = formatParam('stragglers', point.value);
  const sub = `stragglers p = ${p} · ${c.setup.workers} workers · ${thousands(c.setup.rows)} × ~${c.setup.rowBytes} B per interval · seed ${c.setup.seed}`;
  const lines = drawn.map(({ label, t }) =>
    t.commitAt === undefined
      ? `${label}: not committed in this run`
      : `${label}: worker ${t.lastReady.worker} ready at ${millis(t.lastReady.at)}, commit at ${millis(t.commitAt)} — ${millis(t.commitAt - t.lastReady.at)} after the last worker`,
  );
  const same = new Set(drawn.map(({ t }) => t.sharedId)).size === 1;
  return (
    `<h3 id="timeline">What an append waits for</h3>` +
    `<p>One description of the run with stragglers at p = ${esc(p)} (${esc(plural(c.setup.intervals, 'interval'))}): ${same ? `the same one for every variant, interval [${first.lower}, ${first.upper})` : 'each variant\'s'} — the one whose last worker became ready latest (readiness is drawn from the seed alone, so every variant meets the same straggler). ` +
    `Each worker's row: grey until its data is ready, blue while it encodes its pushes, orange while it uploads a part of its own, yellow while it waits in <code>finish()</code>; ◆ where it handed its batch to the append operator; the builder row is the shared batch's upload; the red line is the commit.</p>` +
    `<ul>${lines.map((l) => `<li>${esc(l)}.</li>`).join('')}</ul>` +
    drawn.map(({ label, t }) => `<div class="wide-chart">${timelineChart(t, { title: `${label}: interval [${t.lower}, ${t.upper}) from mint to commit`, subtitle: sub, xMax })}</div>`).join('') +
    `<p class="note">The run: <code>${esc(compareCommand(c.scenario, c.setup))}</code>; the pictures are drawn from its trace and scheduling points by <code>npx sbkit report</code> (and <code>npm start</code>).</p>`
  );
}
