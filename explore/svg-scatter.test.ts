/** The trade-off chart (svg-scatter.ts): numeric axes, a series per condition, every point labelled. */
import { describe, expect, it } from 'vitest';
import { scatterChart } from './svg-scatter.ts';

describe('scatterChart', () => {
  const svg = scatterChart({
    title: 'Parts vs p99',
    subtitle: 'what ran',
    xLabel: 'parts per append',
    yLabel: 'p99 (virtual ms)',
    series: [
      { name: 'stragglers 5%', points: [{ x: 1.4, y: 115, label: 'T=0' }, { x: 1, y: 124, label: 'T=inf' }] },
      { name: 'stragglers 20%', points: [{ x: 2.4, y: 116, label: 'T=0' }, { x: 1, y: 124, label: 'T=inf' }] },
    ],
  });

  it('has a title, subtitle, both axis titles and a legend entry per series', () => {
    expect(svg).toMatch(/<text class="chart-title"[^>]*>Parts vs p99<\/text>/);
    expect(svg).toMatch(/<text class="chart-subtitle"[^>]*>what ran<\/text>/);
    expect(svg).toMatch(/<text class="axis-title x"[^>]*>parts per append<\/text>/);
    expect(svg).toMatch(/<text class="axis-title y"[^>]*>p99 \(virtual ms\)<\/text>/);
    expect(svg.match(/<g class="legend">.*<\/g>/)?.[0]).toContain('>stragglers 20%</text>');
  });

  it('draws every point where its values say, labelled, each series in its own colour and dash', () => {
    expect(svg.match(/<text class="point-label"[^>]*>([^<]+)<\/text>/g)?.map((t) => t.replace(/<[^>]+>/g, ''))).toEqual(['T=0', 'T=inf', 'T=0', 'T=inf']);
    const series = svg.match(/<g class="series">.*?<\/g>/g) ?? [];
    expect(series).toHaveLength(2);
    expect(series[0]).not.toContain('stroke-dasharray');
    expect(series[1]).toContain('stroke-dasharray');
    // x ticks run 0 … 2.5 over the 472-wide plot: x = 1 sits at 64 + 472 · 1/2.5
    expect(series[0]).toContain(`${(64 + (472 * 1) / 2.5).toFixed(1)},`);
    expect(svg).toContain('<title>stragglers 5%, T=0: 1.4, 115</title>');
  });
});
