/** The scatter (charts/scatter.ts) as a trade-off curve: numeric axes, a series per condition, its
 * points joined in order, every point labelled. */
import { describe, expect, it } from 'vitest';
import { scatterChart } from './scatter.ts';

describe('scatterChart, joined', () => {
  const points = [
    { series: 'stragglers 5%', group: 'deadline', x: 1.4, y: 115, label: 'T=0' },
    { series: 'stragglers 5%', group: 'deadline', x: 1, y: 124, label: 'T=inf' },
    { series: 'stragglers 20%', group: 'deadline', x: 2.4, y: 116, label: 'T=0' },
    { series: 'stragglers 20%', group: 'deadline', x: 1, y: 130, label: 'T=inf' },
  ];
  const chart = (joined: boolean): string =>
    scatterChart({ title: 'Parts vs p99', subtitle: 'what ran', xLabel: 'parts per append', yLabel: 'p99 (virtual ms)', points, groups: [], joined });
  const svg = chart(true);

  it('has a title, subtitle, both axis titles and a legend entry per series', () => {
    expect(svg).toMatch(/<text class="chart-title"[^>]*>Parts vs p99<\/text>/);
    expect(svg).toMatch(/<text class="chart-subtitle"[^>]*>what ran<\/text>/);
    expect(svg).toMatch(/<text class="axis-title x"[^>]*>parts per append<\/text>/);
    expect(svg).toMatch(/<text class="axis-title y"[^>]*>p99 \(virtual ms\)<\/text>/);
    expect(svg.match(/<g class="legend">.*<\/g>/)?.[0]).toContain('>stragglers 20%</text>');
  });

  it('joins each series in the order given, in its own colour and dash, and labels every point', () => {
    const lines = svg.match(/<polyline class="series-line"[^>]*>/g) ?? [];
    expect(lines).toHaveLength(2);
    const attr = (line: string, name: string): string | undefined => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1];
    expect(attr(lines[0] ?? '', 'stroke')).not.toBe(attr(lines[1] ?? '', 'stroke'));
    expect(attr(lines[0] ?? '', 'stroke-dasharray')).not.toBe(attr(lines[1] ?? '', 'stroke-dasharray'));
    // Two points per line, the first series' first point right of its second (x 1.4 then 1).
    const xs = (attr(lines[0] ?? '', 'points') ?? '').split(' ').map((p) => Number(p.split(',')[0]));
    expect(xs).toHaveLength(2);
    expect(xs[0]).toBeGreaterThan(xs[1] ?? Infinity);
    const labels = svg.match(/<text class="point-label"[^>]*>([^<]+)<\/text>/g)?.map((t) => t.replace(/<[^>]+>/g, '')) ?? [];
    expect(labels.join(' ')).toMatch(/T=0.*T=inf|T=inf.*T=0/);
    expect(svg).toContain('<title>stragglers 5%, deadline T=0: 115 at 1.4</title>');
  });

  it('draws no lines unless joined', () => {
    expect(chart(false)).not.toContain('series-line');
  });
});
