/** "What ran": the system, the workload, the threshold, the seed, the timing model, the variants and the line that reproduces the comparison. */
import type { VariantMeta, VariantOptionValues } from '../../vocab/index.ts';
import { formatBytesShort } from '../args.ts';
import { bytes, plural, thousands } from '../format.ts';
import { type TimingParams, timingOf } from '../timing.ts';
import type { Comparison } from '../types.ts';
import { formatDuration } from '../variant-options.ts';
import { EXPLORE_VARIANTS } from '../variants/index.ts';
import { bytesPerWorker, compareCommand } from './context.ts';
import { esc } from './html.ts';

function timingText(t: TimingParams): string {
  return (
    `frontier advances every ${thousands(t.intervalMs)} ms (one batch interval); a worker becomes ready min(Exp(mean ${t.readinessMeanMs} ms), ${t.readinessCapMs} ms) after its description; ` +
    `blob PUT ${t.blobBaseMs} ms + bytes ÷ ${thousands(t.blobBytesPerMs / 1000)} kB/ms; consensus command ${t.consensusBaseMs} ms; ` +
    `encoding bytes ÷ ${thousands(t.encodeBytesPerMs / 1000)} kB/ms on whoever builds the part (a shared batch's pushing workers, an own batch's worker); up to ${t.jitterMs} ms jitter per step; ` +
    (t.stragglerProbability === 0 ? 'no stragglers' : `stragglers: each worker per description with p = ${t.stragglerProbability}, ready ${t.stragglerSlowdown}× later`)
  );
}

/** A variant's options as the run used them (each option at its value or default), or nothing. */
function optionsText(meta: VariantMeta, given: VariantOptionValues | undefined): string {
  if (meta.options.length === 0) return '';
  return ` Options: ${meta.options.map((o) => `${o.flag} ${formatDuration(given?.[o.name] ?? o.default)}`).join(', ')}.`;
}

export function setupSection(c: Comparison): string {
  const s = c.setup;
  const timing = timingOf(s);
  const variants = EXPLORE_VARIANTS.filter((v) => c.variants.includes(v.meta.name)).map((v) => [v.meta.name, `${v.meta.meaning}${optionsText(v.meta, s.variantOptions?.[v.meta.name])}`] as const);
  return `<dl class="kv">
<dt>system</dt><dd>${esc(`${plural(s.replicas, 'replica')} × ${plural(s.processes, 'process', 'processes')} × ${plural(s.workers, 'worker')} per process, all writing one persist shard (in-memory blob + consensus)`)}</dd>
<dt>workload</dt><dd>${esc(`${plural(s.intervals, 'batch interval')} × ${thousands(s.rows)} updates of ~${thousands(s.rowBytes)} B, spread over the workers by key hash (≈${bytes(bytesPerWorker(s))} per worker per interval)`)}</dd>
<dt>threshold</dt><dd><code>shared_batch_max_bytes</code> = ${esc(formatBytesShort(s.threshold))}: a worker staging more than this writes its own batch instead of joining the shared one; 0 disables sharing</dd>
<dt>seed</dt><dd>${s.seed}: derives the workload and the timing; the same seed gives the same numbers, byte for byte${s.bug === undefined ? '' : ` — <span class="miss">bug ${esc(s.bug)} switched on</span>`}</dd>
<dt>time</dt><dd>virtual (no wall clock): ${esc(timingText(timing))}</dd>
${variants.map(([v, d]) => `<dt>${esc(v)}</dt><dd>${esc(d)}</dd>`).join('\n')}
<dt>reproduce</dt><dd><code>${esc(compareCommand(c.scenario, s))}</code></dd>
</dl>`;
}
