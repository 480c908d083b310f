/**
 * The report's pictures, drawn from small real runs: every text inside its viewBox, one series per
 * variant, the points the data's, the timeline showing what the barrier waits for, the machines with
 * every state and transition. Structure, not pixels.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { machineGraphs } from '../../model/mermaid.ts';
import { machineSvg } from '../charts/machine.ts';
import { headlineRow } from '../cases.ts';
import { runComparison, runSweeps } from '../compare.ts';
import { evaluateCriteria } from '../criteria.ts';
import { barrierMeta } from '../../vocab/variants/barrier.ts';
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { loadDiagrams } from '../diagrams.ts';
import { quantile } from '../latency.ts';
import { sequenceOf, toSvg } from '../sequence.ts';
import { clippedTexts, svgsOf } from '../test-support/svg-bounds.ts';
import type { Comparison, Setup, SweepResult } from '../types.ts';
import { BASELINE, VARIANTS } from '../variants/index.ts';
import { transposedTable } from './html.ts';
import { renderReport } from './index.ts';
import { tradeoffPoints } from './tradeoff.ts';
import { comparisonGrid } from '../render.ts';

const setup: Setup = { replicas: 1, processes: 1, workers: 4, intervals: 12, rows: 200, rowBytes: 500, threshold: 1 << 20, seed: 3 };

let headline: Comparison;
let stragglers: SweepResult;
let threshold: SweepResult;
let html: string;

beforeAll(async () => {
  headline = await runComparison('steady', setup, VARIANTS);
  [stragglers] = (await runSweeps('steady', setup, VARIANTS, [{ param: 'stragglers', values: [0, 0.3] }])) as [SweepResult];
  [threshold] = (await runSweeps('steady', { ...setup, intervals: 6 }, VARIANTS, [{ param: 'threshold', values: [0, 4096, 1 << 20] }])) as [SweepResult];
  html = renderReport({
    command: 'test',
    comparison: headline,
    criteria: evaluateCriteria(headline),
    sweeps: [threshold],
    check: { kind: 'skipped', reason: 'test' },
    diagrams: await loadDiagrams(),
    latency: { headline, stragglers },
  });
});

const titled = (title: RegExp): string[] => svgsOf(html).filter((s) => title.test(/<title>([^<]*)<\/title>/.exec(s)?.[1] ?? ''));
const attrs = (svg: string, tag: string, name: string): string[] => [...svg.matchAll(new RegExp(`<${tag}[^>]*\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1] ?? '');

describe('the report\'s pictures', () => {
  it('keep every text inside the viewBox, in every picture of the page', () => {
    const svgs = svgsOf(html);
    expect(svgs.length).toBeGreaterThan(20);
    for (const svg of svgs) expect(clippedTexts(svg), /<title>([^<]*)</.exec(svg)?.[1]).toEqual([]);
  });

  it('draw commit latency as a distribution: one step line per variant whose steps are its intervals', () => {
    const [cdf] = titled(/^Commit latency per interval, distribution$/);
    expect(cdf).toBeDefined();
    const series = [...(cdf ?? '').matchAll(/<g class="series" data-name="([^"]*)" data-samples="(\d+)"><path[^>]* d="([^"]*)"/g)];
    expect(series.map((m) => m[1])).toEqual(headline.rows.map((r) => r.variant));
    const xs = (d: string): number[] => [Number(/^M([\d.]+)/.exec(d)?.[1]), ...[...d.matchAll(/H([\d.]+)/g)].map((m) => Number(m[1]))];
    const all = headline.rows.flatMap((r) => r.latencySamples ?? []);
    const [lo, hi] = [Math.min(...all), Math.max(...all)];
    // one pixel scale for every series: fitted on the extremes, it places every sample where the path steps
    const everyX = series.flatMap((m) => xs(m[3] ?? ''));
    const scale = (v: number): number => Math.min(...everyX) + ((v - lo) / (hi - lo)) * (Math.max(...everyX) - Math.min(...everyX));
    for (const [i, m] of series.entries()) {
      const sorted = [...(headline.rows[i]?.latencySamples ?? [])].sort((a, b) => a - b);
      expect(Number(m[2])).toBe(sorted.length);
      expect(sorted.length).toBe(setup.intervals);
      expect((m[3] ?? '').match(/V/g)?.length).toBe(sorted.length); // a rise per interval
      xs(m[3] ?? '').forEach((x, k) => expect(Math.abs(x - scale(sorted[k] ?? 0))).toBeLessThan(0.2 + Math.abs(scale(hi) - scale(lo)) * 0.002));
      // and the summaries compare prints are this distribution's
      expect(quantile(sorted, 0.99)).toBe(headline.rows[i]?.latencyP99Ms);
      expect(quantile(sorted, 0.5)).toBe(headline.rows[i]?.latencyP50Ms);
    }
  });

  it('draw parts per append as a distribution: per variant the share of its appends with each number of parts', () => {
    const [bars] = titled(/^Parts per append, distribution$/);
    const groups = [...(bars ?? '').matchAll(/<g class="series" data-name="([^"]*)">([\s\S]*?)<\/g>/g)];
    expect(groups.map((g) => g[1])).toEqual(headline.rows.map((r) => r.variant));
    for (const [i, g] of groups.entries()) {
      const r = headline.rows[i];
      const values = attrs(g[2] ?? '', 'rect', 'data-value').map(Number);
      expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 6);
      const hist = r?.partsHistogram ?? [];
      const appends = hist.reduce((a, [, n]) => a + n, 0);
      expect(appends).toBe(r?.appends);
      expect(hist.reduce((a, [p, n]) => a + p * n, 0) / appends).toBeCloseTo(r?.partsPerAppend ?? 0, 9); // the mean is compare's parts/append
    }
  });

  it('put each sharing variant of both sweeps on the cost/benefit scatter at its PUTs saved and p99 added', () => {
    const [scatter] = titled(/^PUTs saved against p99 added/);
    const points = [...(scatter ?? '').matchAll(/<g class="point" data-series="([^"]*)" data-group="([^"]*)" data-x="([^"]*)" data-y="([^"]*)">/g)];
    const sharing = VARIANTS.filter((v) => v !== BASELINE);
    expect(points).toHaveLength(sharing.length * (threshold.points.length + stragglers.points.length));
    for (const s of [threshold, stragglers]) {
      for (const p of s.points) {
        const off = headlineRow(p.comparison, BASELINE);
        for (const v of sharing) {
          const r = headlineRow(p.comparison, v);
          const x = (r?.latencyP99Ms ?? 0) - (off?.latencyP99Ms ?? 0);
          const y = 100 * (1 - (r?.blobPuts ?? 0) / (off?.blobPuts ?? 1));
          expect(points.some((m) => m[1] === v && m[2] === `${s.param} sweep` && Number(m[3]) === x && Number(m[4]) === y), `${v} ${s.param}=${p.value}`).toBe(true);
        }
      }
    }
    expect(tradeoffPoints([threshold, stragglers])).toHaveLength(points.length);
  });

  it('draw one description per variant on one time axis, and show the barrier waiting in finish() for its last worker', () => {
    const point = stragglers.points[stragglers.points.length - 1];
    const timelines = titled(/from mint to commit$/);
    expect(timelines).toHaveLength(VARIANTS.length);
    const rows = point?.comparison.rows ?? [];
    const ids = new Set(rows.map((r) => r.timeline?.sharedId));
    expect(ids.size).toBe(1); // the same description for every variant: readiness comes from the seed alone
    for (const [i, r] of rows.entries()) {
      const t = r.timeline;
      expect(t).toBeDefined();
      if (t === undefined) continue;
      const lanes = attrs(timelines[i] ?? '', 'g', 'data-lane');
      for (let w = 0; w < setup.workers; w++) expect(lanes).toContain(`worker ${w}`);
      expect(lanes[lanes.length - 1]).toBe('append');
      expect(t.commitAt).toBeGreaterThan(t.lastReady.at);
      const others = t.lanes.filter((l) => l.label.startsWith('worker') && l.label !== `worker ${t.lastReady.worker}`);
      const waitsUntilLast = others.filter((l) => l.spans.some((s) => s.kind === 'finish' && s.to >= t.lastReady.at));
      // the barrier's finish() returns once the last worker has arrived; best-effort's early finishes do not wait for it
      if (r.variant === barrierMeta.name) expect(waitsUntilLast).toHaveLength(others.length);
      if (r.variant === bestEffortMeta.name) expect(waitsUntilLast.length).toBeLessThan(others.length);
    }
  });

  it('draw every machine with every state and every transition label once', () => {
    for (const g of machineGraphs()) {
      const svg = machineSvg(g);
      expect(clippedTexts(svg), g.name).toEqual([]);
      expect(attrs(svg, 'g', 'data-state').sort()).toEqual([...g.states].sort());
      const texts = [...svg.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]?.replace(/&amp;/g, '&') ?? '');
      const labels = g.transitions.map((t) => (t.guard === null ? t.event : `${t.event} [${t.guard}]`));
      // each (from, to) pair's labels once; the same label may belong to several pairs
      const pairs = new Set(g.transitions.map((t) => `${t.from}>${t.to}>${t.guard === null ? t.event : `${t.event} [${t.guard}]`}`));
      expect(texts.length).toBe(pairs.size);
      for (const l of labels) expect(texts, `${g.name}: ${l}`).toContain(l);
    }
    expect(html).toContain('<div class="machine-chart"><svg');
  });

  it('print the divergence whole in a sequence diagram, however narrow', () => {
    const text = 'model diverged: [refinement] trace-refines-model: event #5 r0 w0 drop id=0 → closed=true: not enabled: drop (a handle dropped without finish) is the drop-without-finish bug; every model handle finishes';
    const svg = toSvg(sequenceOf([{ kind: 'frontier', replica: 0, upper: 1 }], { title: 'narrow', mark: { index: 0, text } }));
    const band = /<g class="seq-mark">([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? '';
    expect([...band.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]).join(' ')).toBe(`✘ ${text}`);
    expect(clippedTexts(svg)).toEqual([]);
  });
});

describe('the report\'s tables', () => {
  it('turn the comparison on its side: a column per variant, a row per figure, however many variants', () => {
    const twice: Comparison = { ...headline, rows: [...headline.rows, ...headline.rows] };
    const table = transposedTable(comparisonGrid(twice));
    expect(table.match(/<th class="r case">/g)).toHaveLength(2 * headline.rows.length);
    for (const figure of ['appends', 'parts/append', 'blob PUTs', 'state-diff bytes', 'latency p50', 'lost', 'dup', 'leaked', 'model']) expect(table).toContain(`>${figure}`);
  });
});
