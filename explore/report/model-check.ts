/** The exhaustive model check (`sbkit model --check` on its defaults): counts and a verdict per property and variant, each violation's trace. */
import { thousands } from '../format.ts';
import { type ModelCheckResult, type PropertyOutcome, WORKLOAD_LINES, describeSearch, describeShape, formatTrace } from '../model-check.ts';
import { esc } from './html.ts';

/** The exhaustive model check (`sbkit model --check`); wall time is left out so the report stays deterministic. */
export type ModelCheckSection = { readonly kind: 'ran'; readonly result: ModelCheckResult } | { readonly kind: 'skipped'; readonly reason: string };

function modelVerdictCell(p: PropertyOutcome | undefined): string {
  if (p === undefined) return '<td class="l muted">not judged</td>';
  const n = p.trace?.length ?? 0;
  switch (p.verdict) {
    case 'holds':
      return '<td class="l zero">holds</td>';
    case 'vacuous':
      return `<td class="l muted wrap">vacuous <span class="note">(${esc(p.note ?? '')})</span></td>`;
    case 'violated':
      return `<td class="l bad">VIOLATED (${n} events)</td>`;
    case 'unknown':
      return '<td class="l bad">unknown (search incomplete)</td>';
    case 'witnessed':
      return `<td class="l">witnessed (${n}-event example)</td>`;
    case 'not-witnessed':
      return `<td class="l wrap">NOT witnessed${p.note === undefined ? '' : ` <span class="note">(${esc(p.note)})</span>`}</td>`;
  }
}

export function modelCheckSection(m: ModelCheckSection): string {
  if (m.kind === 'skipped') return `<p class="note">Not run: ${esc(m.reason)}</p>`;
  const r = m.result;
  const req = r.request;
  const command = ['npx sbkit model --check', ...(req.modelBug === undefined ? [] : [`--model-bug ${req.modelBug}`])].join(' ');
  const head = `<tr><th class="l">kind</th><th class="l">property</th>${r.variants.map((v) => `<th class="l">${esc(v.variant)}</th>`).join('')}</tr>`;
  const countRow = (label: string, cell: (v: ModelCheckResult['variants'][number]) => string) =>
    `<tr><td class="l"></td><td class="l">${esc(label)}</td>${r.variants.map((v) => `<td class="r">${cell(v)}</td>`).join('')}</tr>`;
  // every property some variant is judged by, in the order they first appear (a variant may replace one)
  const names = r.variants.flatMap((v) => v.properties).filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i);
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
    `<div class="scroll"><table class="verdicts"><thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>` +
    traces.join('\n')
  );
}
