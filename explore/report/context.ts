/** What ran, in the words the sections share: the system in short, a chart's subtitle, the `sbkit compare` line that reproduces a run. */
import { formatBytesShort } from '../args.ts';
import { plural, thousands } from '../format.ts';
import type { Setup } from '../types.ts';
import { optionFlagsOf } from '../variant-options.ts';

/** The system in a chart subtitle: `8 workers`, or `2×1×8 workers` with more than one replica or process. */
export const systemShort = (s: Setup): string => (s.replicas === 1 && s.processes === 1 ? `${s.workers} workers` : `${s.replicas}×${s.processes}×${s.workers} workers`);

/** Bytes one worker stages per interval, about. */
export const bytesPerWorker = (s: Setup): number => Math.round((s.rows * s.rowBytes) / Math.max(1, s.workers * s.processes));

/** A short "what ran" line for chart subtitles. */
export function chartSubtitle(scenario: string, s: Setup): string {
  return `${scenario} · ${systemShort(s)} · ${plural(s.intervals, 'interval')} × ${thousands(s.rows)} updates · seed ${s.seed}`;
}

/** The `sbkit compare` command line that reproduces a comparison's numbers. */
export function compareCommand(scenario: string, s: Setup, extra: readonly string[] = []): string {
  return [
    'npx sbkit compare',
    ...(scenario === 'steady' ? [] : [`--scenario ${scenario}`]),
    `--replicas ${s.replicas} --processes ${s.processes} --workers ${s.workers}`,
    `--intervals ${s.intervals} --rows ${s.rows} --row-bytes ${s.rowBytes}`,
    `--threshold ${formatBytesShort(s.threshold)} --seed ${s.seed}`,
    ...(s.stragglers === undefined ? [] : [`--stragglers ${s.stragglers.probability},${s.stragglers.slowdown}`]),
    ...(s.faults === undefined ? [] : [`--faults ${s.faults}`]),
    ...(s.noData === undefined ? [] : [`--no-data ${s.noData}`]),
    ...optionFlagsOf(s.variantOptions),
    ...(s.bug === undefined ? [] : [`--bug ${s.bug}`]),
    ...extra,
  ].join(' ');
}
