/** The fault world: the check with faults, and the headline comparison with faults. */
import type { Variant } from '../../vocab/index.ts';
import type { FaultTallyView } from '../commands/check.ts';
import { fixed, millis, plural, thousands } from '../format.ts';
import { caseLabels } from '../render.ts';
import { barChart } from '../svg.ts';
import type { Comparison, Figures } from '../types.ts';
import { compareCommand } from './context.ts';
import { esc } from './html.ts';

/** The fault world: the check with faults (`sbkit check --faults`) and compare with faults on the headline. */
export type FaultsSection =
  | {
      readonly kind: 'ran';
      readonly rate: number;
      readonly seed: number;
      readonly check: { readonly exitCode: number; readonly summary: string; readonly variants: readonly { readonly variant: Variant; readonly runs: number; readonly failed?: boolean; readonly faults: FaultTallyView }[] };
      readonly comparison: Comparison;
    }
  | { readonly kind: 'skipped'; readonly reason: string };

const FAULT_KINDS = ['transient', 'indeterminate-applied', 'indeterminate-lost', 'permanent'] as const;

export function faultsSection(f: FaultsSection): string {
  if (f.kind === 'skipped') return `<p class="note">Not run: ${esc(f.reason)}</p>`;
  const head = ['variant', 'runs', ...FAULT_KINDS, 'aborts', 'restarts', 'blobs leaked by aborts', 'collected by cleanup', 'verdict'];
  const ok = f.check.exitCode === 0;
  const rows = f.check.variants.map((v) => [
    v.variant,
    thousands(v.runs),
    ...FAULT_KINDS.map((k) => thousands(v.faults.injected[k] ?? 0)),
    thousands(v.faults.aborts),
    thousands(v.faults.restarts),
    thousands(v.faults.leaked),
    thousands(v.faults.collected),
    (v.failed ?? !ok) ? 'FAILED' : 'all survived',
  ]);
  const table = `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => `<td class="${i === 0 ? 'l' : 'r'}">${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  const c = f.comparison;
  const labels = caseLabels(c.rows);
  const sub = `${c.setup.workers} workers · ${plural(c.setup.intervals, 'interval')} × ${thousands(c.setup.rows)} updates · faults at ${f.rate} · seed ${c.setup.seed}`;
  const bars = (pick: (r: Figures) => number) => c.rows.map((r, i) => ({ label: labels[i] ?? r.variant, value: pick(r) }));
  const charts =
    `<div class="charts">` +
    barChart({ title: 'Storage faults injected and retried', subtitle: sub, xLabel: 'variant', yLabel: 'retries (count)', bars: bars((r) => r.retries), format: thousands }) +
    barChart({ title: 'Blobs leaked by crashed incarnations', subtitle: sub, xLabel: 'variant', yLabel: 'blobs (count; all collected by cleanup)', bars: bars((r) => r.leakedByAborts), format: thousands }) +
    barChart({ title: 'p99 commit latency with crashes', subtitle: sub, xLabel: 'variant', yLabel: 'p99 commit latency (virtual ms)', bars: bars((r) => r.latencyP99Ms), format: millis }) +
    `</div>`;
  const compareRows = c.rows.map((r, i) => [
    labels[i] ?? r.variant,
    thousands(r.appends),
    fixed(r.partsPerAppend, 2),
    thousands(r.faultsInjected),
    thousands(r.retries),
    thousands(r.aborts),
    thousands(r.restarts),
    thousands(r.leakedByAborts),
    thousands(r.collected),
    thousands(r.lost),
    thousands(r.duplicated),
    thousands(r.leakedBlobs),
    millis(r.latencyP99Ms),
    r.modelAgrees ? 'agrees' : 'DIVERGES',
  ]);
  const compareHead = ['variant', 'appends', 'parts/append', 'faults', 'retries', 'aborts', 'restarts', 'leaked by aborts', 'collected', 'lost', 'dup', 'leaked', 'p99', 'model'];
  const compareTable = `<table><thead><tr>${compareHead.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${compareRows
    .map((r) => `<tr>${r.map((x, i) => `<td class="${i === 0 ? 'l' : 'r'}">${esc(x)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  return (
    `<p>Storage fails, and replicas crash and are torn down. A run of the check has a safety phase with faults on — blob and consensus calls fail transiently (rate ${f.rate}), ` +
    `end indeterminate (${f.rate / 4}: the compare-and-set applied, or not, and the answer was lost), fail permanently (${f.rate / 20}: the replica goes down like a crash), ` +
    `and replicas are aborted at scheduling points — then a liveness phase that heals and must converge. Restarted incarnations resume at the shard's upper; leaked-blob cleanup collects what aborted incarnations left. ` +
    `Every always-property must hold throughout, and at the end nothing is lost, duplicated or left leaked.</p>` +
    `<p class="${ok ? 'ok' : 'miss'}">${esc(f.check.summary)}</p>` +
    table +
    `<p class="note">Reproduce: <code>npx sbkit check --faults ${f.rate} --seed ${f.seed}</code></p>` +
    `<h3 id="faults-compare">The headline with faults</h3>` +
    charts +
    compareTable +
    `<p class="note">Reproduce: <code>${esc(compareCommand(c.scenario, c.setup))}</code></p>`
  );
}
