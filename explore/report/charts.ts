/** Chart helpers the sections share: one bar per row of a comparison, bars of a byte quantity in one binary unit, the latency and parts-per-append distributions of a comparison. */
import { cdfChart } from '../charts/cdf.ts';
import { groupedBarChart } from '../charts/grouped-bars.ts';
import { bytes, fixed, millis, plural, thousands } from '../format.ts';
import { caseLabels } from '../render.ts';
import { type Bar, barChart, byteUnit } from '../svg.ts';
import type { Comparison, Figures } from '../types.ts';

/** Bars of a byte quantity on an axis in one binary unit (KiB, MiB, …), labelled with exact sizes. */
export function byteBars(title: string, what: string, subtitle: string, labels: readonly string[], values: readonly number[], xLabel: string): string {
  const { unit, size } = byteUnit(Math.max(0, ...values));
  return barChart({
    title,
    subtitle,
    xLabel,
    yLabel: `${what} (${unit})`,
    bars: values.map((v, i) => ({ label: labels[i] ?? '', value: v / size })),
    format: (v) => bytes(Math.round(v * size)),
    tickFormat: (v) => fixed(v, Number.isInteger(v) ? 0 : 1),
  });
}

/** One bar per row of a comparison, labelled by its case, of the figure `f` picks. */
export const barsOf =
  (c: Comparison) =>
  (f: (r: Figures) => number): Bar[] => {
    const labels = caseLabels(c.rows);
    return c.rows.map((r, i) => ({ label: labels[i] ?? '', value: f(r) }));
  };

/** A percentage tick: `25%`, `12.5%`. */
export const trimPct = (v: number): string => (Number.isInteger(v) ? String(v) : fixed(v, 1));

/** Commit latency per interval as a distribution per row of a comparison (a CDF): every interval's sample, not three summaries. */
export function latencyDistribution(c: Comparison, title: string, subtitle: string): string {
  const labels = caseLabels(c.rows);
  if (c.rows.every((r) => (r.latencySamples ?? []).length === 0)) return '';
  return cdfChart({
    title,
    subtitle,
    xLabel: 'commit latency of an interval (virtual ms)',
    yLabel: 'intervals committed within (%)',
    series: c.rows.map((r, i) => ({ name: labels[i] ?? r.variant, samples: r.latencySamples ?? [] })),
    format: millis,
  });
}

/** How many parts each append had, per row of a comparison: the share of its appends with 1, 2, … parts. */
export function partsDistribution(c: Comparison, title: string, subtitle: string): string {
  const labels = caseLabels(c.rows);
  if (c.rows.every((r) => (r.partsHistogram ?? []).length === 0)) return '';
  const most = Math.max(1, ...c.rows.flatMap((r) => (r.partsHistogram ?? []).map(([parts]) => parts)));
  const least = Math.min(most, ...c.rows.flatMap((r) => (r.partsHistogram ?? []).map(([parts]) => parts)));
  const categories = Array.from({ length: most - Math.max(1, least) + 1 }, (_, i) => Math.max(1, least) + i);
  return groupedBarChart({
    title,
    subtitle,
    xLabel: 'parts in one append',
    yLabel: 'appends with that many parts (%)',
    categories: categories.map(String),
    series: c.rows.map((r, i) => {
      const total = (r.partsHistogram ?? []).reduce((a, [, n]) => a + n, 0);
      const count = (parts: number): number => (r.partsHistogram ?? []).find(([p]) => p === parts)?.[1] ?? 0;
      const name = labels[i] ?? r.variant;
      return {
        name,
        values: categories.map((p) => (total === 0 ? 0 : (100 * count(p)) / total)),
        tips: categories.map((p) => `${name}: ${thousands(count(p))} of ${thousands(total)} appends had ${plural(p, 'part')}`),
      };
    }),
    format: (v) => `${trimPct(v)}%`,
    tickFormat: (v) => `${trimPct(v)}%`,
  });
}
