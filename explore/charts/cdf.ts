/**
 * A distribution per series as a cumulative step line (an empirical CDF): x the value, y the share of
 * samples at or below it. Every sample is a step (the path's vertices are the sorted samples), so the
 * whole distribution shows — its body, its spread and its tail — not three summary points. Dashed
 * guides at 50% and 99%, and each series' p99 labelled at the right.
 */
import { quantile } from '../latency.ts';
import { BOLD_CHAR_EM, type ChartText, CHART_WIDTH, type Frame, escapeXml, f1, frame, legendRow, niceRange, plotSize, spreadLabels, styleFor } from '../svg.ts';

export interface Distribution {
  readonly name: string;
  readonly samples: readonly number[];
}

const MARGIN = { top: 66, right: 112, bottom: 48, left: 64 } as const;
const HEIGHT = 340;

/** The share guides drawn across the plot. */
const GUIDES = [0.5, 0.99] as const;

export function cdfChart(opts: ChartText & { readonly series: readonly Distribution[]; readonly width?: number }): string {
  const format = opts.format ?? ((v: number) => f1(v));
  // the right margin holds each series' p99 label: as wide as the longest
  const endWidth = Math.max(0, ...opts.series.map((s) => `${s.name} ${format(quantile([...s.samples].sort((a, b) => a - b), 0.99))}`.length)) * 11 * BOLD_CHAR_EM + 18;
  const f: Frame = { width: opts.width ?? CHART_WIDTH, height: HEIGHT, margin: { ...MARGIN, right: Math.max(MARGIN.right, Math.ceil(endWidth)) } };
  const all = opts.series.flatMap((s) => s.samples);
  const ticks = niceRange(Math.min(...all, Number.POSITIVE_INFINITY) === Number.POSITIVE_INFINITY ? 0 : Math.min(...all), Math.max(0, ...all));
  const lo = ticks[0] ?? 0;
  const hi = ticks[ticks.length - 1] ?? 1;
  const { w: plotW, h: plotH } = plotSize(f);
  const { left, top } = f.margin;
  const x = (v: number): number => left + ((v - lo) / (hi - lo || 1)) * plotW;
  const y = (share: number): number => top + plotH - share * plotH;
  const xTicks = ticks.map((t) => `<line x1="${f1(x(t))}" x2="${f1(x(t))}" y1="${top + plotH}" y2="${top + plotH + 4}" stroke="#444"/><text x="${f1(x(t))}" y="${top + plotH + 16}" text-anchor="middle">${escapeXml(format(t))}</text>`).join('');
  const guides = GUIDES.map(
    (q) =>
      `<line class="guide" x1="${left}" x2="${left + plotW}" y1="${f1(y(q))}" y2="${f1(y(q))}" stroke="#b00020" stroke-dasharray="4 3" stroke-width="0.8"/>` +
      `<text x="${left + 4}" y="${f1(y(q) - 3)}" fill="#b00020" font-size="10">${q === 0.5 ? 'p50' : 'p99'}</text>`,
  ).join('');
  const styled = opts.series.map((s, i) => ({ s, st: styleFor(s.name, i), sorted: [...s.samples].sort((a, b) => a - b) }));
  const lines = styled
    .map(({ s, st, sorted }) => {
      const n = sorted.length;
      if (n === 0) return `<g class="series" data-name="${escapeXml(s.name)}"></g>`;
      let d = `M${f1(x(sorted[0] ?? lo))} ${f1(y(0))}`;
      sorted.forEach((v, i) => {
        if (i > 0) d += `H${f1(x(v))}`;
        d += `V${f1(y((i + 1) / n))}`;
      });
      const dash = st.dash === '' ? '' : ` stroke-dasharray="${st.dash}"`;
      const p50 = quantile(sorted, 0.5);
      const p99 = quantile(sorted, 0.99);
      return (
        `<g class="series" data-name="${escapeXml(s.name)}" data-samples="${n}"><path fill="none" stroke="${st.color}" stroke-width="${Math.min(st.width, 3)}" stroke-linejoin="round"${dash} d="${d}"><title>${escapeXml(`${s.name}: ${n} samples, p50 ${format(p50)}, p99 ${format(p99)}, max ${format(sorted[n - 1] ?? 0)}`)}</title></path></g>`
      );
    })
    .join('');
  const p99s = styled.map(({ sorted }) => quantile(sorted, 0.99));
  const labelYs = spreadLabels(styled.map(() => y(0.99)), 13, top + 4, top + plotH);
  const endLabels = styled
    .map(({ s, st }, i) => `<text class="end-label" x="${f1(left + plotW + 6)}" y="${f1((labelYs[i] ?? 0) + 4)}" fill="${st.color}" font-weight="600">${escapeXml(`${s.name} ${format(p99s[i] ?? 0)}`)}</text>`)
    .join('');
  const legend = legendRow(styled.map(({ s, st }) => ({ name: s.name, style: st })), 8, f.width - 16, 50);
  const yTicks = [0, 0.25, 0.5, 0.75, 1];
  return frame(f, { ...opts, tickFormat: (v) => `${Math.round(v * 100)}%` }, yTicks, 1, xTicks + guides + lines + endLabels + legend);
}
