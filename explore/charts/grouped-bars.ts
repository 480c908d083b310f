/**
 * Grouped bars: per category (e.g. parts in an append) one bar per series, side by side, in the
 * series' colours, with a legend. For distributions over a few discrete values: each series' bars are
 * its shares, summing to 100%.
 */
import { type ChartText, CHART_WIDTH, type Frame, escapeXml, f1, frame, legendRow, niceTicks, plotSize, shortNumber, styleFor } from '../svg.ts';

export interface BarSeries {
  readonly name: string;
  readonly values: readonly number[];
  /** Per value, its tooltip (e.g. the count behind a share). */
  readonly tips?: readonly string[];
}

const MARGIN = { top: 66, right: 16, bottom: 48, left: 64 } as const;
const HEIGHT = 330;

export function groupedBarChart(opts: ChartText & { readonly categories: readonly string[]; readonly series: readonly BarSeries[]; readonly width?: number; readonly yMax?: number }): string {
  const f: Frame = { width: opts.width ?? CHART_WIDTH, height: HEIGHT, margin: MARGIN };
  const format = opts.format ?? shortNumber;
  const ticks = niceTicks(Math.max(opts.yMax ?? 0, ...opts.series.flatMap((s) => s.values)));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const n = Math.max(1, opts.categories.length);
  const slot = plotW / n;
  const k = Math.max(1, opts.series.length);
  const barW = Math.min(22, (slot * 0.8) / k);
  const groupW = barW * k;
  const styled = opts.series.map((s, i) => ({ s, st: styleFor(s.name, i) }));
  const bars = styled
    .map(({ s, st }, si) =>
      `<g class="series" data-name="${escapeXml(s.name)}">${s.values
        .map((v, ci) => {
          const h = (v / yMax) * plotH;
          const x = left + slot * ci + (slot - groupW) / 2 + si * barW;
          const tip = s.tips?.[ci] ?? `${s.name} @ ${opts.categories[ci] ?? ''}: ${format(v)}`;
          return `<rect x="${f1(x)}" y="${f1(top + plotH - h)}" width="${f1(Math.max(0.5, barW - 1))}" height="${f1(h)}" fill="${st.color}" data-value="${v}"><title>${escapeXml(tip)}</title></rect>`;
        })
        .join('')}</g>`,
    )
    .join('');
  const labels = opts.categories.map((c, ci) => `<text x="${f1(left + slot * ci + slot / 2)}" y="${top + plotH + 15}" text-anchor="middle">${escapeXml(c)}</text>`).join('');
  const legend = legendRow(styled.map(({ s, st }) => ({ name: s.name, style: { ...st, dash: '', width: 8 } })), 8, f.width - 16, 50);
  return frame(f, opts, ticks, yMax, bars + labels + legend);
}
