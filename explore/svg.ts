/**
 * Hand-written SVG charts for the report: bars per variant and lines per variant against a swept
 * parameter. Plain strings, no dependencies, deterministic output.
 */
import { fixed } from './format.ts';

export interface Bar {
  readonly label: string;
  readonly value: number;
}

export interface Series {
  readonly name: string;
  readonly values: readonly number[];
}

const WIDTH = 460;
const HEIGHT = 280;
const MARGIN = { top: 36, right: 16, bottom: 56, left: 64 } as const;

const PALETTE: Readonly<Record<string, string>> = {
  off: '#8c8c8c',
  'best-effort': '#e69f00',
  barrier: '#0072b2',
};
const FALLBACK_COLORS = ['#009e73', '#cc79a7', '#d55e00', '#56b4e9'] as const;

/** The colour of a series: fixed for the three variants, then a colour-blind-safe cycle. */
export function colorFor(name: string, index: number): string {
  const base = name.split(' ')[0] ?? name;
  return PALETTE[base] ?? FALLBACK_COLORS[index % FALLBACK_COLORS.length] ?? '#000';
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

/** A short tick label: 1200 → 1.2k, 3_400_000 → 3.4M. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e3) return `${trim(v / 1e3)}k`;
  return trim(v);
}
const trim = (v: number): string => (Number.isInteger(v) ? String(v) : fixed(v, 2).replace(/\.?0+$/, ''));

function frame(title: string, yTicks: readonly number[], yMax: number, body: string, yLabel: string, tickFormat: (v: number) => string = shortNumber): string {
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (v: number) => MARGIN.top + plotH - (v / yMax) * plotH;
  const grid = yTicks
    .map(
      (t) =>
        `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e3e3e3"/>` +
        `<text x="${MARGIN.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${escapeXml(tickFormat(t))}</text>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeXml(title)}" font-family="system-ui, sans-serif" font-size="11" fill="#222">` +
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="13" font-weight="600">${escapeXml(title)}</text>` +
    `<text transform="translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>` +
    grid +
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#444"/>` +
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#444"/>` +
    body +
    `</svg>`
  );
}

/** Vertical bars, one per entry, value printed above each. A label `a @ b` is set on two lines. */
export function barChart(opts: { title: string; yLabel: string; bars: readonly Bar[]; format?: (v: number) => string; tickFormat?: (v: number) => string }): string {
  const format = opts.format ?? shortNumber;
  const ticks = niceTicks(Math.max(0, ...opts.bars.map((b) => b.value)));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotW / Math.max(1, opts.bars.length);
  const barW = Math.min(64, slot * 0.6);
  const body = opts.bars
    .map((b, i) => {
      const h = (b.value / yMax) * plotH;
      const x = MARGIN.left + slot * i + (slot - barW) / 2;
      const y = MARGIN.top + plotH - h;
      const cx = x + barW / 2;
      return (
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${colorFor(b.label, i)}"><title>${escapeXml(`${b.label}: ${format(b.value)}`)}</title></rect>` +
        `<text x="${cx.toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${escapeXml(format(b.value))}</text>` +
        `<text x="${cx.toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${labelLines(b.label, cx)}</text>`
      );
    })
    .join('');
  return frame(opts.title, ticks, yMax, body, opts.yLabel, opts.tickFormat);
}

/** `best-effort @ 1MiB` → two tspans, the second starting with `@`. */
function labelLines(label: string, x: number): string {
  const [first = '', ...rest] = label.split(' @ ');
  const lines = [first, ...rest.map((r) => `@ ${r}`)];
  return lines.map((l, i) => `<tspan x="${x.toFixed(1)}" dy="${i === 0 ? 0 : 13}">${escapeXml(l)}</tspan>`).join('');
}

/** Lines over categorical x values (evenly spaced), one per series, with a legend below. */
export function lineChart(opts: { title: string; xLabel: string; yLabel: string; xs: readonly string[]; series: readonly Series[] }): string {
  const ticks = niceTicks(Math.max(0, ...opts.series.flatMap((s) => s.values)));
  const yMax = ticks[ticks.length - 1] ?? 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const n = opts.xs.length;
  const x = (i: number) => MARGIN.left + (n <= 1 ? plotW / 2 : 12 + (i * (plotW - 24)) / (n - 1));
  const y = (v: number) => MARGIN.top + plotH - (v / yMax) * plotH;
  const xLabels = opts.xs
    .map((label, i) => `<text x="${x(i).toFixed(1)}" y="${MARGIN.top + plotH + 15}" text-anchor="middle">${escapeXml(label)}</text>`)
    .join('');
  const lines = opts.series
    .map((s, si) => {
      const color = colorFor(s.name, si);
      const pts = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      const dots = s.values
        .map((v, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"><title>${escapeXml(`${s.name} @ ${opts.xs[i] ?? ''}: ${shortNumber(v)}`)}</title></circle>`)
        .join('');
      return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>${dots}`;
    })
    .join('');
  const legend = opts.series
    .map((s, si) => {
      const lx = MARGIN.left + si * 120;
      const ly = HEIGHT - 12;
      return `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${colorFor(s.name, si)}"/><text x="${lx + 14}" y="${ly}">${escapeXml(s.name)}</text>`;
    })
    .join('');
  const xTitle = `<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 31}" text-anchor="middle">${escapeXml(opts.xLabel)}</text>`;
  return frame(opts.title, ticks, yMax, xLabels + lines + xTitle + legend, opts.yLabel);
}
