/** Chart helpers the sections share: one bar per row of a comparison, bars of a byte quantity in one binary unit. */
import { bytes, fixed } from '../format.ts';
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
