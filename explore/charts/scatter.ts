/**
 * A scatter of labelled points: colour and marker by series (a variant, or a condition such as a
 * straggler probability), filled or hollow by group (the sweep a point comes from). With `joined`, each
 * series' points are joined in the order given, in the series' colour and dash (a trade-off curve: one
 * point per value of a swept option). Nearby points of one group share one label (their values joined);
 * a label goes next to its points, nearest first, wherever it covers no other label or point.
 */
import { type ChartText, CHART_WIDTH, type Frame, escapeXml, f1, frame, marker, niceRange, plotSize, styleFor } from '../svg.ts';

export interface ScatterPoint {
  readonly series: string;
  readonly group: string;
  readonly x: number;
  readonly y: number;
  readonly label: string;
}

const MARGIN = { top: 78, right: 24, bottom: 48, left: 64 } as const;
const HEIGHT = 380;
const CHAR = 6.1;

interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}
const overlaps = (a: Box, b: Box): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

export function scatterChart(
  opts: ChartText & { readonly points: readonly ScatterPoint[]; readonly groups: readonly { readonly name: string; readonly hollow: boolean }[]; readonly xFormat?: (v: number) => string; readonly width?: number; readonly joined?: boolean },
): string {
  const f: Frame = { width: opts.width ?? CHART_WIDTH, height: HEIGHT, margin: MARGIN };
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const xs = opts.points.map((p) => p.x);
  const ys = opts.points.map((p) => p.y);
  const xTicks = niceRange(Math.min(0, ...xs), Math.max(0, ...xs));
  const yTicks = niceRange(Math.min(0, ...ys), Math.max(0, ...ys));
  const [xLo, xHi] = [xTicks[0] ?? 0, xTicks[xTicks.length - 1] ?? 1];
  const [yLo, yHi] = [yTicks[0] ?? 0, yTicks[yTicks.length - 1] ?? 1];
  const px = (v: number): number => left + ((v - xLo) / (xHi - xLo || 1)) * plotW;
  const py = (v: number): number => top + plotH - ((v - yLo) / (yHi - yLo || 1)) * plotH;
  const xFormat = opts.xFormat ?? ((v: number) => String(v));
  const seriesNames = [...new Set(opts.points.map((p) => p.series))];
  const styleOf = new Map(seriesNames.map((s, i) => [s, styleFor(s, i)]));
  const hollow = new Map(opts.groups.map((g) => [g.name, g.hollow]));
  // one mark per point; one label per cluster: nearby points of one series and group, or points of
  // several series at the same place (in black then), their values joined
  const clusters: { group: string; x: number; y: number; series: Set<string>; labels: string[] }[] = [];
  for (const p of opts.points) {
    const [cx, cy] = [px(p.x), py(p.y)];
    // nearby points of one series, or points of several series at the very same place
    const near = clusters.find((c) => c.group === p.group && ((c.series.has(p.series) && c.series.size === 1 && Math.hypot(c.x - cx, c.y - cy) < 16) || Math.hypot(c.x - cx, c.y - cy) < 1));
    if (near === undefined) clusters.push({ group: p.group, x: cx, y: cy, series: new Set([p.series]), labels: [p.label] });
    else {
      near.series.add(p.series);
      if (!near.labels.includes(p.label)) near.labels.push(p.label);
    }
  }
  const placed: Box[] = opts.points.map((p) => ({ x0: px(p.x) - 5, y0: py(p.y) - 5, x1: px(p.x) + 5, y1: py(p.y) + 5 }));
  const marks = opts.points.map((p) => {
    const st = styleOf.get(p.series) ?? styleFor(p.series, 0);
    const [cx, cy] = [px(p.x), py(p.y)];
    const tip = `${p.series}, ${p.group} ${p.label}: ${opts.format?.(p.y) ?? p.y} at ${xFormat(p.x)}`;
    return (
      `<g class="point" data-series="${escapeXml(p.series)}" data-group="${escapeXml(p.group)}" data-x="${p.x}" data-y="${p.y}">` +
      (hollow.get(p.group) === true ? `<circle cx="${f1(cx)}" cy="${f1(cy)}" r="4.5" fill="#fff" stroke="${st.color}" stroke-width="2"><title>${escapeXml(tip)}</title></circle>` : marker(st.marker, cx, cy, st.color, tip)) +
      `</g>`
    );
  });
  const dashAttr = (dash: string): string => (dash === '' ? '' : ` stroke-dasharray="${dash}"`);
  const joined = opts.joined === true ? seriesNames.map((s) => ({ s, at: opts.points.filter((p) => p.series === s).map((p): [number, number] => [px(p.x), py(p.y)]) })) : [];
  const lines = joined.map(({ s, at }) => {
    const st = styleOf.get(s) ?? styleFor(s, 0);
    return `<polyline class="series-line" data-series="${escapeXml(s)}" fill="none" stroke="${st.color}" stroke-width="${st.width}" stroke-linejoin="round"${dashAttr(st.dash)} points="${at.map(([x, y]) => `${f1(x)},${f1(y)}`).join(' ')}"/>`;
  });
  // A label must not sit on a joining line either: each segment, sampled every few pixels.
  const onLine = (b: Box): boolean =>
    joined.some(({ at }) =>
      at.slice(1).some(([x1, y1], i) => {
        const [x0, y0] = at[i] as [number, number];
        const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 3));
        for (let k = 0; k <= n; k++) {
          const [x, y] = [x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n];
          if (x > b.x0 && x < b.x1 && y > b.y0 && y < b.y1) return true;
        }
        return false;
      }),
    );
  const labels: string[] = [];
  for (const c of clusters) {
    const only = c.series.size === 1 ? [...c.series][0] : undefined;
    const color = only === undefined ? '#333' : (styleOf.get(only) ?? styleFor(only, 0)).color;
    const text = c.labels.join(', ');
    const w = text.length * CHAR;
    // around the point, nearest first: right, left, above, below, then the diagonals, then further out
    const candidates: [number, number, 'start' | 'end' | 'middle'][] = [10, 24, 40].flatMap((d): [number, number, 'start' | 'end' | 'middle'][] => [
      [c.x + d, c.y + 4, 'start'],
      [c.x - d, c.y + 4, 'end'],
      [c.x, c.y - d + 2, 'middle'],
      [c.x, c.y + d + 8, 'middle'],
      [c.x + d, c.y - d + 4, 'start'],
      [c.x - d, c.y - d + 4, 'end'],
      [c.x + d, c.y + d + 4, 'start'],
      [c.x - d, c.y + d + 4, 'end'],
    ]);
    const boxOf = ([x, y, a]: [number, number, string]): Box => {
      const x0 = a === 'start' ? x : a === 'end' ? x - w : x - w / 2;
      return { x0, y0: y - 10, x1: x0 + w, y1: y + 2 };
    };
    const inside = (b: Box): boolean => b.x0 >= left + 2 && b.x1 <= f.width - 2 && b.y0 >= top - 4 && b.y1 <= top + plotH - 2;
    const free = (k: [number, number, 'start' | 'end' | 'middle']): boolean => inside(boxOf(k)) && !placed.some((b) => overlaps(b, boxOf(k)));
    const at = candidates.find((k) => free(k) && !onLine(boxOf(k))) ?? candidates.find(free) ?? candidates.find((k) => inside(boxOf(k))) ?? candidates[0];
    if (at === undefined) continue;
    placed.push(boxOf(at));
    labels.push(`<text class="point-label" x="${f1(at[0])}" y="${f1(at[1])}" text-anchor="${at[2]}" fill="${color}">${escapeXml(text)}</text>`);
  }
  const xAxis = xTicks
    .map((t) => `<line x1="${f1(px(t))}" x2="${f1(px(t))}" y1="${top}" y2="${top + plotH}" stroke="${t === 0 ? '#999' : '#eee'}"/><text x="${f1(px(t))}" y="${top + plotH + 16}" text-anchor="middle">${escapeXml(xFormat(t))}</text>`)
    .join('');
  // legend: series (colour, marker) then groups (filled or hollow), in two rows
  let lx = left;
  const seriesLegend = seriesNames
    .map((s) => {
      const st = styleOf.get(s) ?? styleFor(s, 0);
      const x0 = lx;
      lx += 30 + s.length * CHAR;
      return `${marker(st.marker, x0 + 6, 48, st.color, s)}<text x="${f1(x0 + 15)}" y="52">${escapeXml(s)}</text>`;
    })
    .join('');
  lx = left;
  const groupLegend = opts.groups
    .map((g) => {
      const x0 = lx;
      lx += 40 + g.name.length * CHAR;
      const mark = g.hollow ? `<circle cx="${f1(x0 + 6)}" cy="64" r="4.5" fill="#fff" stroke="#555" stroke-width="2"/>` : `<circle cx="${f1(x0 + 6)}" cy="64" r="4.5" fill="#555"/>`;
      return `${mark}<text x="${f1(x0 + 15)}" y="68">${escapeXml(g.name)}</text>`;
    })
    .join('');
  return frame(f, opts, yTicks, yHi, `${xAxis}${lines.join('')}${marks.join('')}${labels.join('')}<g class="legend">${seriesLegend}${groupLegend}</g>`, yLo);
}
