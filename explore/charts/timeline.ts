/**
 * One description in virtual time (explore/timeline.ts), one row per lane: each worker from the mint to
 * its readiness (grey), its encoding (blue), its own upload (orange) and its wait in finish() (yellow,
 * hatched: what the barrier makes it wait for), the shared builder's uploads, the append operator's
 * consensus round trip (green); ticks where a worker became ready, diamonds where it handed its batch,
 * a red line at the commit. Several timelines drawn with one `xMax` share their time axis.
 */
import { BOLD_CHAR_EM, CHAR_EM, escapeXml, f1, niceRange } from '../svg.ts';
import type { IntervalTimeline, SpanKind } from '../timeline.ts';

const RIGHT = 24;
const TOP = 74;
const ROW = 20;
const BOTTOM = 46;
const LEGEND_ROW = 16;

const KIND: Readonly<Record<SpanKind, { readonly fill: string; readonly label: string }>> = {
  'not-ready': { fill: '#d9d9d9', label: 'not ready yet (waits for its data)' },
  encode: { fill: '#7fb3e0', label: 'encoding its pushes' },
  upload: { fill: '#e69f00', label: 'uploading a part (blob PUT)' },
  finish: { fill: '#f5d76e', label: 'in finish(): waiting for the batch' },
  consensus: { fill: '#56b87a', label: 'compare-and-append (consensus)' },
};

const ms = (v: number): string => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`;

export function timelineChart(t: IntervalTimeline, opts: { readonly title: string; readonly subtitle: string; readonly xMax?: number; readonly width?: number }): string {
  const width = opts.width ?? 1040;
  const lanes = t.lanes;
  const straggler = `worker ${t.lastReady.worker}`;
  const laneLabel = (label: string): string => (label === straggler ? `${label} (last ready)` : label);
  const LEFT = Math.ceil(Math.max(60, ...lanes.map((l) => laneLabel(l.label).length * 11 * BOLD_CHAR_EM)) + 16);
  const plotW = width - LEFT - RIGHT;
  const plotH = lanes.length * ROW;
  // the legend in rows that fit the width
  const legendItems = (Object.keys(KIND) as SpanKind[]).map((k) => ({ k, w: 24 + KIND[k].label.length * 10 * CHAR_EM }));
  const legendRows: { k: SpanKind; x: number }[][] = [[]];
  let lx = 12;
  for (const it of legendItems) {
    if (lx + it.w > width - 8 && (legendRows[legendRows.length - 1]?.length ?? 0) > 0) {
      legendRows.push([]);
      lx = 12;
    }
    legendRows[legendRows.length - 1]?.push({ k: it.k, x: lx });
    lx += it.w;
  }
  const height = TOP + plotH + BOTTOM + legendRows.length * LEGEND_ROW + 6;
  const end = Math.max(opts.xMax ?? 0, t.commitAt ?? 0, ...lanes.flatMap((l) => l.spans.map((s) => s.to)));
  const ticks = niceRange(0, end, 8);
  const xHi = ticks[ticks.length - 1] ?? 1;
  const x = (v: number): number => LEFT + (v / xHi) * plotW;
  const rows = lanes
    .map((l, i) => {
      const y = TOP + i * ROW;
      const isStraggler = l.label === straggler;
      const spans = l.spans
        .map((s) => {
          const w = Math.max(0.8, x(s.to) - x(s.from));
          const tip = `${l.label}: ${KIND[s.kind].label}, ${ms(s.from)} → ${ms(s.to)}${s.bytes === undefined ? '' : ` (${s.bytes} B)`}`;
          const hatch = s.kind === 'finish' ? ' stroke="#b8860b" stroke-width="0.6"' : '';
          return `<rect class="span ${s.kind}" x="${f1(x(s.from))}" y="${y + 4}" width="${f1(w)}" height="${ROW - 8}" fill="${KIND[s.kind].fill}"${hatch}><title>${escapeXml(tip)}</title></rect>`;
        })
        .join('');
      const marks = l.marks
        .map((m) => {
          const cx = x(m.at);
          const tip = `${l.label}: ${m.kind === 'ready' ? 'ready' : m.kind === 'hand' ? 'handed its batch' : 'committed'} at ${ms(m.at)}`;
          if (m.kind === 'ready') return `<line class="mark ready" x1="${f1(cx)}" x2="${f1(cx)}" y1="${y + 2}" y2="${y + ROW - 2}" stroke="#222" stroke-width="1.5"><title>${escapeXml(tip)}</title></line>`;
          if (m.kind === 'hand') return `<path class="mark hand" d="M${f1(cx)} ${y + 5}L${f1(cx + 5)} ${y + ROW / 2}L${f1(cx)} ${y + ROW - 5}L${f1(cx - 5)} ${y + ROW / 2}Z" fill="#333"><title>${escapeXml(tip)}</title></path>`;
          return '';
        })
        .join('');
      return (
        `<g class="lane" data-lane="${escapeXml(l.label)}">` +
        (i % 2 === 0 ? `<rect x="${LEFT}" y="${y}" width="${plotW}" height="${ROW}" fill="#fafafa"/>` : '') +
        `<text x="${LEFT - 8}" y="${y + ROW / 2 + 4}" text-anchor="end"${isStraggler ? ' fill="#b00020" font-weight="700"' : ''}>${escapeXml(laneLabel(l.label))}</text>` +
        spans +
        marks +
        `</g>`
      );
    })
    .join('');
  const axis = ticks
    .map((v) => `<line x1="${f1(x(v))}" x2="${f1(x(v))}" y1="${TOP}" y2="${TOP + plotH + 4}" stroke="#e3e3e3"/><text x="${f1(x(v))}" y="${TOP + plotH + 16}" text-anchor="middle">${escapeXml(`${v}`)}</text>`)
    .join('');
  const commit =
    t.commitAt === undefined
      ? ''
      : `<g class="commit"><line x1="${f1(x(t.commitAt))}" x2="${f1(x(t.commitAt))}" y1="${TOP - 4}" y2="${TOP + plotH}" stroke="#b00020" stroke-width="1.5"/>` +
        `<text x="${f1(x(t.commitAt))}" y="${TOP - 8}" text-anchor="${x(t.commitAt) > width - RIGHT - 60 ? 'end' : x(t.commitAt) < LEFT + 60 ? 'start' : 'middle'}" fill="#b00020" font-weight="600">${escapeXml(`commit ${ms(t.commitAt)}`)}</text></g>`;
  const legend = legendRows
    .flatMap((row, r) =>
      row.map(({ k, x: x0 }) => {
        const y = TOP + plotH + BOTTOM + r * LEGEND_ROW;
        return `<rect x="${f1(x0)}" y="${y - 9}" width="14" height="10" fill="${KIND[k].fill}"/><text x="${f1(x0 + 18)}" y="${y}" font-size="10">${escapeXml(KIND[k].label)}</text>`;
      }),
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(opts.title)}" font-family="system-ui, sans-serif" font-size="11" fill="#222">` +
    `<title>${escapeXml(opts.title)}</title>` +
    `<text class="chart-title" x="${width / 2}" y="18" text-anchor="middle" font-size="13.5" font-weight="600">${escapeXml(opts.title)}</text>` +
    `<text class="chart-subtitle" x="${width / 2}" y="35" text-anchor="middle" fill="#666">${escapeXml(opts.subtitle)}</text>` +
    `<text class="axis-title y" x="12" y="${TOP - 8}" font-weight="600">lane</text>` +
    `<text class="axis-title x" x="${f1(LEFT + plotW / 2)}" y="${TOP + plotH + 34}" text-anchor="middle" font-weight="600">virtual ms after the description was minted</text>` +
    axis +
    rows +
    commit +
    `<g class="legend">${legend}</g>` +
    `</svg>`
  );
}
