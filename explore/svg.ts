/**
 * Hand-written SVG charts for the report: bars per variant and lines per variant against a swept
 * parameter. Plain strings, no dependencies, deterministic output.
 *
 * Every chart carries a title (`<title>` and a visible heading, class `chart-title`), an optional
 * subtitle (what ran: class `chart-subtitle`), and both axis titles (classes `axis-title x` and
 * `axis-title y`); line charts add a legend (class `legend`) and label each line's last value at its end,
 * and draw each variant with its own colour, dash and marker so lines that coincide stay visible.
 */
import { fixed } from './format.ts';
import { presentationOf, type SeriesStyle } from './variants/index.ts';

export interface Bar {
  readonly label: string;
  readonly value: number;
}

export interface Series {
  readonly name: string;
  readonly values: readonly number[];
}

/** A horizontal dashed reference line across the plot, labelled at its right end (e.g. "ideal: 1"). */
export interface RefLine {
  readonly value: number;
  readonly label: string;
}

export interface ChartText {
  readonly title: string;
  /** One line under the title: what ran (scenario, size, intervals, seed). */
  readonly subtitle?: string | undefined;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Value labels (on bars, at line ends, in tooltips). Default: shortNumber. */
  readonly format?: ((v: number) => string) | undefined;
  /** Y-axis tick labels. Default: shortNumber. */
  readonly tickFormat?: ((v: number) => string) | undefined;
}

export const CHART_WIDTH = 520;
const BAR_HEIGHT = 320;
const LINE_HEIGHT = 330;
const BAR_MARGIN = { top: 56, right: 16, bottom: 62, left: 64 } as const;
const LINE_MARGIN = { top: 66, right: 112, bottom: 48, left: 64 } as const;

export type Style = SeriesStyle;

const FALLBACK_COLORS = ['#009e73', '#cc79a7', '#d55e00', '#56b4e9'] as const;
/** A series that is not a variant (a condition) is told apart by dash and marker too, not colour alone. */
const FALLBACK_DASHES = ['2 3', '8 3', '8 3 2 3', ''] as const;
const FALLBACK_MARKERS = ['circle', 'square', 'diamond', 'triangle'] as const;

/** How a series is drawn: a registered variant's style (explore/variants/), else a colour-blind-safe cycle. */
export function styleFor(name: string, index: number): Style {
  const base = name.split(' ')[0] ?? name;
  return presentationOf(base)?.style ?? { color: FALLBACK_COLORS[index % FALLBACK_COLORS.length] ?? '#000', dash: FALLBACK_DASHES[index % FALLBACK_DASHES.length] ?? '', width: 2, marker: FALLBACK_MARKERS[index % FALLBACK_MARKERS.length] ?? 'circle' };
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round-number axis ticks from 0 to at least `max`. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10] as const).map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** Upper bounds of a character's advance per pixel of font size (system-ui, measured in Chromium: capitals the widest). */
export const CHAR_EM = 0.58;
export const BOLD_CHAR_EM = 0.65;

/** The font size, at most `size`, at which `text` fits `width` (a long subtitle shrinks instead of running out of the chart). */
export function fitSize(text: string, size: number, width: number, bold = false): number {
  const need = text.length * (bold ? BOLD_CHAR_EM : CHAR_EM) * size;
  return need <= width ? size : Math.floor(((size * width) / need) * 10) / 10;
}

/** Round-number ticks covering [lo, hi] (about `count` steps), e.g. 12.3…16.8 → 12, 13, …, 17. */
export function niceRange(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [Math.floor(lo) - 1, Math.floor(lo), Math.floor(lo) + 1];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10] as const).map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const first = Math.floor(lo / step) * step;
  const ticks: number[] = [];
  for (let v = first; v < hi + step - step / 1e6; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** A legend row: per item a short line in its style (and its marker), then its name; centred in [x0, x0 + width], its
 * names set smaller when they would not fit (many variants, long names). */
export function legendRow(items: readonly { readonly name: string; readonly style: Style }[], x0: number, width: number, y: number): string {
  const chars = items.reduce((a, i) => a + i.name.length, 0);
  const size = Math.min(11, Math.max(7, (width - items.length * 40) / Math.max(1, chars * CHAR_EM)));
  const itemWidth = (name: string): number => 40 + name.length * CHAR_EM * size;
  let lx = x0 + Math.max(0, (width - items.reduce((a, i) => a + itemWidth(i.name), 0)) / 2);
  return `<g class="legend">${items
    .map(({ name, style }) => {
      const x = lx;
      lx += itemWidth(name);
      const dash = style.dash === '' ? '' : ` stroke-dasharray="${style.dash}"`;
      return `<line x1="${f1(x)}" x2="${f1(x + 26)}" y1="${y}" y2="${y}" stroke="${style.color}" stroke-width="${Math.min(style.width, 4)}"${dash}/>${marker(style.marker, x + 13, y, style.color, name)}<text x="${f1(x + 31)}" y="${y + 4}"${size < 11 ? ` font-size="${f1(size)}"` : ''}>${escapeXml(name)}</text>`;
    })
    .join('')}</g>`;
}

/** A short tick label: 1200 → 1.2k, 3_400_000 → 3.4M. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e3) return `${trim(v / 1e3)}k`;
  return trim(v);
}
const trim = (v: number): string => (Number.isInteger(v) ? String(v) : fixed(v, 2).replace(/\.?0+$/, ''));

/** The binary unit that suits a byte axis up to `max`: values are divided by `size` and the axis says `unit`. */
export function byteUnit(max: number): { readonly unit: string; readonly size: number } {
  const units = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const;
  for (const [unit, size] of units) if (max >= size) return { unit, size };
  return { unit: 'B', size: 1 };
}

export const f1 = (v: number): string => v.toFixed(1);

export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly margin: { readonly top: number; readonly right: number; readonly bottom: number; readonly left: number };
}

export function plotSize(f: Frame): { w: number; h: number } {
  return { w: f.width - f.margin.left - f.margin.right, h: f.height - f.margin.top - f.margin.bottom };
}

/** The chart around a plot: title, subtitle, axis titles, the y grid from `yMin` (default 0) to `yMax`, both axes, then `body`. */
export function frame(f: Frame, t: ChartText, yTicks: readonly number[], yMax: number, body: string, yMin = 0): string {
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const tickFormat = t.tickFormat ?? shortNumber;
  const y = (v: number) => top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;
  const grid = yTicks
    .map(
      (tick) =>
        `<line x1="${left}" x2="${left + plotW}" y1="${f1(y(tick))}" y2="${f1(y(tick))}" stroke="#e3e3e3"/>` +
        `<text x="${left - 6}" y="${f1(y(tick) + 4)}" text-anchor="end">${escapeXml(tickFormat(tick))}</text>`,
    )
    .join('');
  const subtitle = t.subtitle === undefined ? '' : `<text class="chart-subtitle" x="${f.width / 2}" y="35" text-anchor="middle" fill="#666" font-size="${fitSize(t.subtitle, 11, f.width - 12)}">${escapeXml(t.subtitle)}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" role="img" aria-label="${escapeXml(t.title)}" font-family="system-ui, sans-serif" font-size="11" fill="#222">` +
    `<title>${escapeXml(t.title)}</title>` +
    `<text class="chart-title" x="${f.width / 2}" y="18" text-anchor="middle" font-size="${fitSize(t.title, 13.5, f.width - 12, true)}" font-weight="600">${escapeXml(t.title)}</text>` +
    subtitle +
    `<text class="axis-title y" transform="translate(15 ${f1(top + plotH / 2)}) rotate(-90)" text-anchor="middle" font-weight="600">${escapeXml(t.yLabel)}</text>` +
    `<text class="axis-title x" x="${f1(left + plotW / 2)}" y="${f.height - 8}" text-anchor="middle" font-weight="600">${escapeXml(t.xLabel)}</text>` +
    grid +
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#444"/>` +
    `<line x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}" stroke="#444"/>` +
    body +
    `</svg>`
  );
}

/** Dashed reference lines, labelled in the right margin (bar charts with references get a wider one). */
function refLines(f: Frame, refs: readonly RefLine[], yMax: number): string {
  const { w: plotW, h: plotH } = plotSize(f);
  return refs
    .filter((r) => r.value >= 0 && r.value <= yMax)
    .map((r) => {
      const y = f.margin.top + plotH - (r.value / yMax) * plotH;
      const x2 = f.margin.left + plotW;
      return (
        `<line class="ref" x1="${f.margin.left}" x2="${x2}" y1="${f1(y)}" y2="${f1(y)}" stroke="#b00020" stroke-dasharray="4 3" stroke-width="1"/>` +
        `<text class="ref-label" x="${x2 + 4}" y="${f1(y + 3.5)}" text-anchor="start" fill="#b00020" font-size="10">${escapeXml(r.label)}</text>`
      );
    })
    .join('');
}

/**
 * Vertical bars, one per entry, value printed above each. A label `a @ b` is set on two lines.
 * Colours follow the variant (the label's first word).
 */
export function barChart(opts: ChartText & { bars: readonly Bar[]; refs?: readonly RefLine[] }): string {
  const refs = opts.refs ?? [];
  const refRoom = refs.length === 0 ? 0 : Math.max(...refs.map((r) => r.label.length)) * 5.6 + 8;
  const f: Frame = { width: CHART_WIDTH, height: BAR_HEIGHT, margin: { ...BAR_MARGIN, right: BAR_MARGIN.right + refRoom } };
  const format = opts.format ?? shortNumber;
  const ticks = niceTicks(Math.max(0, ...opts.bars.map((b) => b.value), ...refs.map((r) => r.value)));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const slot = plotW / Math.max(1, opts.bars.length);
  const barW = Math.min(64, slot * 0.6);
  const body = opts.bars
    .map((b, i) => {
      const h = (b.value / yMax) * plotH;
      const x = left + slot * i + (slot - barW) / 2;
      const y = top + plotH - h;
      const cx = x + barW / 2;
      return (
        `<rect x="${f1(x)}" y="${f1(y)}" width="${f1(barW)}" height="${f1(h)}" fill="${styleFor(b.label, i).color}"><title>${escapeXml(`${b.label}: ${format(b.value)}`)}</title></rect>` +
        `<text class="value" x="${f1(cx)}" y="${f1(y - 4)}" text-anchor="middle" font-weight="600">${escapeXml(format(b.value))}</text>` +
        `<text x="${f1(cx)}" y="${top + plotH + 15}" text-anchor="middle">${labelLines(b.label, cx)}</text>`
      );
    })
    .join('');
  return frame(f, opts, ticks, yMax, refLines(f, refs, yMax) + body);
}

/** `best-effort @ 1MiB` → two tspans, the second starting with `@`. */
function labelLines(label: string, x: number): string {
  const [first = '', ...rest] = label.split(' @ ');
  const lines = [first, ...rest.map((r) => `@ ${r}`)];
  return lines.map((l, i) => `<tspan x="${f1(x)}" dy="${i === 0 ? 0 : 13}">${escapeXml(l)}</tspan>`).join('');
}

export function marker(kind: Style['marker'], x: number, y: number, color: string, tip: string): string {
  const t = `<title>${escapeXml(tip)}</title>`;
  switch (kind) {
    case 'circle':
      return `<circle cx="${f1(x)}" cy="${f1(y)}" r="4" fill="${color}">${t}</circle>`;
    case 'square':
      return `<rect x="${f1(x - 3.5)}" y="${f1(y - 3.5)}" width="7" height="7" fill="${color}">${t}</rect>`;
    case 'diamond':
      return `<path d="M${f1(x)} ${f1(y - 4.5)}L${f1(x + 4.5)} ${f1(y)}L${f1(x)} ${f1(y + 4.5)}L${f1(x - 4.5)} ${f1(y)}Z" fill="${color}" stroke="#fff" stroke-width="0.8">${t}</path>`;
    case 'triangle':
      return `<path d="M${f1(x)} ${f1(y - 4.5)}L${f1(x + 4.5)} ${f1(y + 3.5)}L${f1(x - 4.5)} ${f1(y + 3.5)}Z" fill="${color}">${t}</path>`;
  }
}

/** Spreads label positions (sorted top to bottom) so neighbours are at least `gap` apart, within [lo, hi]. */
export function spreadLabels(ys: readonly number[], gap: number, lo: number, hi: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y || a.i - b.i);
  const placed = order.map((o) => o.y);
  for (let k = 0; k < placed.length; k++) placed[k] = Math.max(placed[k] ?? 0, k === 0 ? lo : (placed[k - 1] ?? 0) + gap);
  const overflow = (placed[placed.length - 1] ?? hi) - hi;
  if (overflow > 0) {
    for (let k = placed.length - 1; k >= 0; k--) placed[k] = Math.min(placed[k] ?? 0, k === placed.length - 1 ? hi : (placed[k + 1] ?? 0) - gap);
  }
  const out = new Array<number>(ys.length);
  order.forEach((o, k) => {
    out[o.i] = placed[k] ?? o.y;
  });
  return out;
}

/**
 * Lines over categorical x values (evenly spaced), one per series, with a legend above the plot and
 * each series' last value labelled at the right end of its line.
 */
export function lineChart(opts: ChartText & { xs: readonly string[]; series: readonly Series[] }): string {
  const format = opts.format ?? shortNumber;
  // the right margin holds the end labels: as wide as the longest
  const endWidth = Math.max(0, ...opts.series.map((s) => `${s.name} ${format(s.values[s.values.length - 1] ?? 0)}`.length)) * 11 * BOLD_CHAR_EM + 18;
  const f: Frame = { width: CHART_WIDTH, height: LINE_HEIGHT, margin: { ...LINE_MARGIN, right: Math.max(LINE_MARGIN.right, Math.ceil(endWidth)) } };
  const ticks = niceTicks(Math.max(0, ...opts.series.flatMap((s) => s.values)));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const n = opts.xs.length;
  const x = (i: number) => left + (n <= 1 ? plotW / 2 : 14 + (i * (plotW - 28)) / (n - 1));
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const xLabels = opts.xs.map((label, i) => `<text x="${f1(x(i))}" y="${top + plotH + 16}" text-anchor="middle">${escapeXml(label)}</text>`).join('');
  const styled = opts.series.map((s, si) => ({ s, st: styleFor(s.name, si) }));
  const dashAttr = (st: Style): string => (st.dash === '' ? '' : ` stroke-dasharray="${st.dash}"`);
  const lines = styled
    .map(({ s, st }) => {
      const pts = s.values.map((v, i) => `${f1(x(i))},${f1(y(v))}`);
      const dots = s.values.map((v, i) => marker(st.marker, x(i), y(v), st.color, `${s.name} @ ${opts.xs[i] ?? ''}: ${format(v)}`)).join('');
      return `<g class="series"><polyline fill="none" stroke="${st.color}" stroke-width="${st.width}" stroke-linejoin="round"${dashAttr(st)} points="${pts.join(' ')}"/>${dots}</g>`;
    })
    .join('');
  const lastYs = opts.series.map((s) => y(s.values[s.values.length - 1] ?? 0));
  const labelYs = spreadLabels(lastYs, 13, top + 4, top + plotH);
  const endLabels = styled
    .map(({ s, st }, si) => {
      const last = s.values[s.values.length - 1];
      if (last === undefined) return '';
      return `<text class="end-label" x="${f1(x(n - 1) + 10)}" y="${f1((labelYs[si] ?? 0) + 4)}" fill="${st.color}" font-weight="600">${escapeXml(`${s.name} ${format(last)}`)}</text>`;
    })
    .join('');
  const legend = legendRow(styled.map(({ s, st }) => ({ name: s.name, style: st })), 8, f.width - 16, 50);
  return frame(f, opts, ticks, yMax, xLabels + lines + endLabels + legend);
}
