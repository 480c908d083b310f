/** The report's headline: what failed, in the colour of what it says, and the findings computed from the runs (never assumed). */
import type { Variant } from '../../vocab/index.ts';
import { headlineRow } from '../cases.ts';
import { fixed, millis, percent, plural, thousands } from '../format.ts';
import { caseLabels, formatParam } from '../render.ts';
import type { Comparison, Figures, SweepResult } from '../types.ts';
import { BASELINE, VARIANTS } from '../variants/index.ts';
import type { CheckSection } from './check.ts';
import type { CoverageSection } from './coverage.ts';
import type { GallerySection } from './gallery.ts';
import type { Criterion } from '../criteria.ts';
import type { ReportData } from './data.ts';
import type { ModelCheckSection } from './model-check.ts';
import { esc } from './html.ts';
import type { LatencySection } from './latency.ts';
import type { SmallWritesSection } from './small-writes.ts';

/** What the headline reads: the report's data as far as the findings need it. */
export type FindingsInput = Pick<ReportData, 'comparison' | 'criteria' | 'sweeps' | 'hydration' | 'check' | 'modelCheck' | 'latency' | 'smallWrites' | 'gallery' | 'coverage' | 'reasons'>;

/** Every run in the report once, named by where it appears: the comparison, each sweep point, hydration. */
export function reportRuns(d: Pick<FindingsInput, 'comparison' | 'sweeps' | 'hydration' | 'latency' | 'smallWrites'>): { where: string; row: Figures; label: string }[] {
  const seen = new Set<Comparison>();
  const out: { where: string; row: Figures; label: string }[] = [];
  const add = (where: string, c: Comparison): void => {
    if (seen.has(c)) return;
    seen.add(c);
    const labels = caseLabels(c.rows);
    c.rows.forEach((row, i) => out.push({ where, row, label: labels[i] ?? row.variant }));
  };
  add('comparison', d.comparison);
  for (const s of d.sweeps) for (const p of s.points) add(`${s.param}=${formatParam(s.param, p.value)}`, p.comparison);
  if (d.hydration !== undefined) add('hydration', d.hydration);
  for (const p of d.latency?.stragglers.points ?? []) add(`stragglers=${formatParam('stragglers', p.value)}`, p.comparison);
  if (d.smallWrites !== undefined) {
    add('small writes', d.smallWrites.comparison);
    for (const p of d.smallWrites.rows.points) add(`small writes rows=${p.value}`, p.comparison);
  }
  return out;
}

/** Whether the model predicted every run's appends: one finding line. */
function modelAgreementFinding(runs: readonly { where: string; row: Figures; label: string }[]): { text: string; bad: boolean } {
  const diverged = runs.filter((r) => !r.row.modelAgrees);
  if (diverged.length === 0) {
    return { text: `Model cross-check: the model replayed the trace of every run in this report (${plural(runs.length, 'run')}) and predicted every append's batches and parts exactly.`, bad: false };
  }
  const listed = diverged.slice(0, 3).map((r) => `${r.label} (${r.where}): ${r.row.modelDetail}`);
  const more = diverged.length > listed.length ? `; and ${diverged.length - listed.length} more` : '';
  return { text: `Model cross-check: the model DIVERGED from ${diverged.length} of ${plural(runs.length, 'run')}: ${listed.join('; ')}${more}.`, bad: true };
}

/** The headline, computed from the comparison (never assumed): what sharing saves and whether the data survived. */
function findingsBox(
  c: Comparison,
  criteria: readonly Criterion[],
  check: CheckSection,
  model: ModelCheckSection | undefined,
  runs: readonly { where: string; row: Figures; label: string }[],
  more: Pick<FindingsInput, 'latency' | 'smallWrites' | 'gallery' | 'coverage' | 'reasons'> = {},
): string {
  const off = headlineRow(c, BASELINE);
  const items: string[] = [];
  const ppa = c.rows.map((r) => `${r.variant} ${fixed(r.partsPerAppend, 2)}`).join(', ');
  items.push(`Parts per append: ${ppa}${off === undefined ? '' : ` (${c.setup.workers * c.setup.processes} workers; 1.00 is ideal)`}.`);
  if (off !== undefined) {
    const others = c.rows.filter((r) => r !== off);
    if (others.length > 0) {
      items.push(`Blob PUTs relative to off: ${others.map((r) => `${r.variant} ${percent(r.blobPuts, off.blobPuts)} (${thousands(r.blobPuts)} vs ${thousands(off.blobPuts)})`).join(', ')}.`);
      items.push(`Consensus state-diff bytes relative to off: ${others.map((r) => `${r.variant} ${percent(r.stateDiffBytes, off.stateDiffBytes)}`).join(', ')}.`);
    }
  }
  const cmds = new Set(c.rows.map((r) => r.consensusCommands));
  items.push(cmds.size === 1 ? `Consensus commands: ${thousands([...cmds][0] ?? 0)} for every variant (sharing does not change them).` : `Consensus commands: ${c.rows.map((r) => `${r.variant} ${thousands(r.consensusCommands)}`).join(', ')}.`);
  const dirty = c.rows.filter((r) => r.lost + r.duplicated + r.leakedBlobs > 0);
  items.push(dirty.length === 0 ? 'Storage audit: no update lost or duplicated and no blob leaked, in any variant.' : `Storage audit FAILED for ${dirty.map((r) => r.variant).join(', ')}.`);
  items.push(`Commit latency p50 / p99 / max: ${c.rows.map((r) => `${r.variant} ${millis(r.latencyP50Ms)} / ${millis(r.latencyP99Ms)} / ${millis(r.latencyMaxMs)}`).join(', ')}.`);
  const st = more.latency?.stragglers;
  const lastPoint = st?.points[st.points.length - 1];
  const firstPoint = st?.points[0];
  if (lastPoint !== undefined && firstPoint !== undefined && lastPoint !== firstPoint) {
    const p99 = (x: Comparison, v: Variant) => headlineRow(x, v)?.latencyP99Ms ?? 0;
    items.push(
      `Stragglers (p = ${formatParam('stragglers', lastPoint.value)}, larger intervals): p99 ${VARIANTS.filter((v) => headlineRow(lastPoint.comparison, v) !== undefined).map((v) => `${v} ${millis(p99(firstPoint.comparison, v))} → ${millis(p99(lastPoint.comparison, v))}`).join(', ')}: every variant waits for the straggler's hand; the barrier also uploads its whole batch after it.`,
    );
  }
  const sw = more.smallWrites?.comparison;
  if (sw !== undefined) {
    const o = headlineRow(sw, BASELINE);
    const others = sw.rows.filter((r) => r.variant !== BASELINE);
    if (o !== undefined && others.length > 0) {
      items.push(
        `Small writes: off ${fixed(o.blobPuts / Math.max(1, o.appends), 2)} PUTs per append (inline parts), ${others.map((r) => `${r.variant} ${fixed(r.blobPuts / Math.max(1, r.appends), 2)} PUTs per append, p50 +${millis(r.latencyP50Ms - o.latencyP50Ms)}, ${fixed(o.shardParts / Math.max(1, r.shardParts), 1)}× fewer parts in the shard`).join('; ')} (the PRs: one PUT per append, about +10 ms p50, 2.5× fewer compaction parts).`,
      );
    }
  }
  if (more.gallery?.kind === 'ran') {
    const caught = more.gallery.entries.filter((e) => e.sequence !== undefined).length;
    items.push(`Counterexample gallery: ${caught} of ${more.gallery.entries.length} bugs caught and drawn as sequence diagrams.`);
  }
  if (more.coverage?.kind === 'ran') items.push(`Model coverage: ${more.coverage.result.summary.replace(/^sbkit model --coverage: /, '')}.`);
  const agreement = modelAgreementFinding(runs);
  items.push(agreement.text);
  if (model?.kind === 'ran') items.push(`Model check (exhaustive): ${model.result.summary.replace(/^sbkit model --check: /, '')}.`);
  if (check.kind === 'ran') items.push(`Conformance check: ${check.summary.replace(/^sbkit check: /, '')}.`);
  const missed = criteria.filter((x) => !x.ok).length;
  const criteriaLine = missed === 0 ? `All ${criteria.length} done-criteria hold.` : `${missed} of ${criteria.length} done-criteria missed.`;
  const galleryMissed = more.gallery?.kind === 'ran' && more.gallery.entries.some((e) => e.sequence === undefined);
  const coverageGaps = more.coverage?.kind === 'ran' && more.coverage.result.exitCode !== 0;
  const bad =
    missed > 0 || dirty.length > 0 || agreement.bad || (check.kind === 'ran' && check.exitCode !== 0) || (model?.kind === 'ran' && model.result.exitCode !== 0) || galleryMissed || coverageGaps;
  // The headline says what failed, each line in the colour of what it says; the box takes the worst.
  const reasons = more.reasons;
  const lines: { cls: 'ok' | 'miss' | 'warn'; text: string }[] =
    reasons === undefined
      ? [{ cls: bad ? 'miss' : 'ok', text: bad && missed === 0 ? 'Something failed: see the findings below.' : criteriaLine }]
      : [
          ...reasons.map((r) => ({ cls: r.exit === 1 ? ('miss' as const) : ('warn' as const), text: `${r.exit === 1 ? 'Failed' : 'Incomplete'}: ${r.text}` })),
          ...(missed === 0 ? [{ cls: 'ok' as const, text: criteriaLine }] : []),
          ...(reasons.length === 0 ? [{ cls: 'ok' as const, text: 'Every check passed.' }] : []),
        ];
  const box = lines.some((l) => l.cls === 'miss') ? ' missed' : lines.some((l) => l.cls === 'warn') ? ' incomplete' : '';
  const head = lines.map((l) => `<p class="verdict"><strong class="${l.cls}">${esc(l.text)}</strong></p>`).join('');
  return `<div class="findings${box}">${head}<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul></div>`;
}

/** The report's headline box: what failed (the job's reasons), then the findings computed from every section. */
export function findingsSection(d: FindingsInput): string {
  return findingsBox(d.comparison, d.criteria, d.check, d.modelCheck, reportRuns(d), d);
}
