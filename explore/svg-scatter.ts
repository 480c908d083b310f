/**
 * A trade-off chart: both axes numeric, one series per condition, its points joined in order and each
 * labelled (e.g. one point per value of a swept option, one series per straggler probability). Built on
 * svg.ts's frame (title, subtitle, axis titles, y grid) and markers, with the same conventions: a
 * legend above the plot, every series told apart by colour, dash and marker, a tooltip per point.
 */
import { type ChartText, type Frame, escapeXml, f1, frame, marker, niceTicks, plotSize, shortNumber } from './svg.ts';
import type { SeriesStyle } from './variants/index.ts';

export interface ScatterPoint {
  readonly x: number;
  readonly y: number;
  /** Printed beside the point (e.g. `T=5ms`). */
  readonly label: string;
}

export interface ScatterSeries {
  readonly name: string;
  readonly points: readonly ScatterPoint[];
}

/** Styles for series that are conditions, not variants (colour-blind safe; dash and marker differ too). */
const CONDITION_STYLES: readonly SeriesStyle[] = [
  { color: '#56b4e9', dash: '', width: 2, marker: 'circle' },
  { color: '#e69f00', dash: '6 3', width: 2, marker: 'square' },
  { color: '#d55e00', dash: '2 3', width: 2, marker: 'diamond' },
  { color: '#009e73', dash: '8 3 2 3', width: 2, marker: 'triangle' },
];

const WIDTH = 560;
const HEIGHT = 360;
const MARGIN = { top: 66, right: 24, bottom: 48, left: 64 } as const;

export function scatterChart(opts: ChartText & { readonly series: readonly ScatterSeries[]; readonly xFormat?: (v: number) => string }): string {
  const f: Frame = { width: WIDTH, height: HEIGHT, margin: MARGIN };
  const all = opts.series.flatMap((s) => s.points);
  const yTicks = niceTicks(Math.max(0, ...all.map((p) => p.y)));
  const xTicks = niceTicks(Math.max(0, ...all.map((p) => p.x)));
  const yMax = yTicks[yTicks.length - 1] ?? 1;
  const xMax = xTicks[xTicks.length - 1] ?? 1;
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const x = (v: number) => left + (v / xMax) * plotW;
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const format = opts.format ?? shortNumber;
  const xFormat = opts.xFormat ?? shortNumber;
  const xAxis = xTicks.map((t) => `<text x="${f1(x(t))}" y="${top + plotH + 16}" text-anchor="middle">${escapeXml(xFormat(t))}</text>`).join('');
  const styleOf = (i: number): SeriesStyle => CONDITION_STYLES[i % CONDITION_STYLES.length] as SeriesStyle;
  const dashAttr = (st: SeriesStyle): string => (st.dash === '' ? '' : ` stroke-dasharray="${st.dash}"`);
  const body = opts.series
    .map((s, si) => {
      const st = styleOf(si);
      const pts = s.points.map((p) => `${f1(x(p.x))},${f1(y(p.y))}`).join(' ');
      const dots = s.points
        .map((p) => marker(st.marker, x(p.x), y(p.y), st.color, `${s.name}, ${p.label}: ${xFormat(p.x)}, ${format(p.y)}`) + `<text class="point-label" x="${f1(x(p.x) + 6)}" y="${f1(y(p.y) - 6)}" fill="${st.color}" font-size="10">${escapeXml(p.label)}</text>`)
        .join('');
      return `<g class="series"><polyline fill="none" stroke="${st.color}" stroke-width="${st.width}" stroke-linejoin="round"${dashAttr(st)} points="${pts}"/>${dots}</g>`;
    })
    .join('');
  const legendWidth = (s: ScatterSeries): number => 44 + s.name.length * 6.2;
  let lx = left + Math.max(0, (plotW - opts.series.reduce((a, s) => a + legendWidth(s), 0)) / 2);
  const legend = opts.series
    .map((s, si) => {
      const st = styleOf(si);
      const x0 = lx;
      lx += legendWidth(s);
      return `<line x1="${f1(x0)}" x2="${f1(x0 + 26)}" y1="50" y2="50" stroke="${st.color}" stroke-width="${st.width}"${dashAttr(st)}/>` + marker(st.marker, x0 + 13, 50, st.color, s.name) + `<text x="${f1(x0 + 31)}" y="54">${escapeXml(s.name)}</text>`;
    })
    .join('');
  return frame(f, opts, yTicks, yMax, xAxis + body + `<g class="legend">${legend}</g>`);
}
