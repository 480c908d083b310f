import { describe, expect, it } from 'vitest';
import { UNLIMITED } from './args.ts';
import { casesFor } from './cases.ts';
import { comparisonGrid, renderComparison, renderSweep } from './render.ts';
import { evaluateCriteria, renderCriteria } from './criteria.ts';
import type { Comparison, Figures, Setup, SweepResult } from './types.ts';
import { bytes, fixed, percent, seconds, thousands } from './format.ts';
import { captureIo } from './io.ts';
import { SHOW_AFTER_MS, createProgress, renderBar } from './progress.ts';
import { renderReport } from './report.ts';
import { barChart, lineChart, niceTicks, shortNumber } from './svg.ts';
import { renderTable } from './table.ts';

const setup: Setup = { replicas: 1, processes: 1, workers: 8, intervals: 100, rows: 1000, rowBytes: 100, threshold: 1 << 20, seed: 1 };

const fig = (variant: Figures['variant'], ppa: number, puts: number, over: Partial<Figures> = {}): Figures => ({
  variant,
  threshold: setup.threshold,
  appends: 100,
  partsPerAppend: ppa,
  batchesPerAppend: ppa,
  blobPuts: puts,
  blobBytes: puts * 12_000,
  consensusCommands: 100,
  stateDiffBytes: puts * 150,
  inlineParts: 0,
  hollowParts: puts,
  updatesWritten: 100_000,
  updatesAppended: 100_000,
  lost: 0,
  duplicated: 0,
  leakedBlobs: 0,
  simulatedMs: 100_000,
  meanAppendLatencyMs: 20,
  maxBuilderShare: 1 / ppa,
  ...over,
});

const comparison: Comparison = {
  scenario: 'steady',
  setup,
  variants: ['off', 'best-effort', 'barrier'],
  rows: [fig('off', 8, 800), fig('best-effort', 1.4, 140), fig('barrier', 1, 100)],
};

describe('format', () => {
  it('formats numbers locale-independently', () => {
    expect(thousands(1234567)).toBe('1,234,567');
    expect(thousands(-1000)).toBe('-1,000');
    expect(fixed(1234.5678, 2)).toBe('1,234.57');
    expect(fixed(Number.NaN, 2)).toBe('—');
    expect(bytes(512)).toBe('512 B');
    expect(bytes(1536)).toBe('1.50 KiB');
    expect(bytes(10 * 1024 * 1024)).toBe('10.0 MiB');
    expect(percent(1, 8)).toBe('13%');
    expect(percent(1, 20)).toBe('5.0%');
    expect(percent(1, 0)).toBe('—');
    expect(seconds(1500)).toBe('1.50 s');
  });
});

describe('tables', () => {
  it('aligns columns', () => {
    const t = renderTable(
      [
        { header: 'name', align: 'left' },
        { header: 'n', align: 'right' },
      ],
      [
        ['a', '1'],
        ['bbb', '100'],
      ],
    );
    expect(t.split('\n')).toEqual(['name    n', '----  ---', 'a       1', 'bbb   100']);
  });

  it('renders the comparison with % of off', () => {
    const text = renderComparison(comparison);
    expect(text).toContain('scenario steady: 1 replica × 1 process × 8 workers, 100 intervals × 1,000 updates of ~100 B, threshold 1MiB, seed 1');
    const barrier = text.split('\n').find((l) => l.startsWith('barrier'));
    expect(barrier).toMatch(/^barrier\s+100\s+1\.00\s+1\.00\s+100\s+13%/);
    expect(comparisonGrid({ ...comparison, rows: comparison.rows.slice(1) }).columns.map((c) => c.header)).not.toContain('% off');
  });

  it('labels hydration cases with their threshold', () => {
    expect(casesFor('hydration', ['off', 'barrier'], 1 << 20)).toEqual([
      { variant: 'off', threshold: 1 << 20 },
      { variant: 'barrier', threshold: 1 << 20 },
      { variant: 'barrier', threshold: UNLIMITED },
    ]);
    const h: Comparison = { ...comparison, scenario: 'hydration', rows: [fig('off', 8, 8), fig('barrier', 8, 8), fig('barrier', 1, 1, { threshold: UNLIMITED })] };
    const text = renderComparison(h);
    expect(text).toContain('barrier @ 1MiB');
    expect(text).toContain('barrier @ unlimited');
    expect(text).toContain('max builder share');
  });

  it('renders a sweep as one table', () => {
    const s: SweepResult = { param: 'workers', base: setup, scenario: 'steady', points: [1, 2].map((w) => ({ value: w, comparison: { ...comparison, setup: { ...setup, workers: w } } })) };
    const text = renderSweep(s);
    expect(text).toContain('sweep workers over 1, 2');
    expect(text.split('\n').filter((l) => /^[12]\s+(off|best-effort|barrier)/.test(l))).toHaveLength(6);
  });
});

describe('criteria', () => {
  it('holds on the PR-like figures', () => {
    const cs = evaluateCriteria(comparison);
    expect(cs.every((c) => c.ok)).toBe(true);
    expect(renderCriteria(cs)).toContain('ok   barrier: exactly one part per append');
  });

  it('reports misses', () => {
    const bad: Comparison = { ...comparison, rows: [fig('off', 8, 800), fig('best-effort', 1, 100), fig('barrier', 1.01, 300, { lost: 3 })] };
    const misses = evaluateCriteria(bad).filter((c) => !c.ok).map((c) => c.name);
    expect(misses).toEqual([
      'barrier: exactly one part per append',
      'best-effort strictly between barrier (1.0) and off',
      'barrier blob PUTs at most 20% of off',
      'barrier: nothing lost, duplicated or leaked',
    ]);
    expect(evaluateCriteria({ ...comparison, rows: [fig('off', 8, 8)] })[0]?.ok).toBe(false);
  });
});

describe('svg', () => {
  it('picks round ticks', () => {
    expect(niceTicks(7.8)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(shortNumber(12_345)).toBe('12.35k');
    expect(shortNumber(3_400_000)).toBe('3.4M');
  });

  it('draws bars and lines as standalone SVG', () => {
    const bars = barChart({ title: 'Parts <per> append', yLabel: 'parts', bars: [{ label: 'off', value: 8 }, { label: 'barrier', value: 1 }] });
    expect(bars.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(bars.match(/<rect /g)).toHaveLength(2);
    expect(bars).toContain('Parts &lt;per&gt; append');
    const lines = lineChart({ title: 't', xLabel: 'workers', yLabel: 'y', xs: ['1', '2', '4'], series: [{ name: 'off', values: [1, 2, 4] }, { name: 'barrier', values: [1, 1, 1] }] });
    expect(lines.match(/<polyline /g)).toHaveLength(2);
    expect(lines.match(/<circle /g)).toHaveLength(6);
  });
});

describe('report', () => {
  it('is self-contained HTML with tables, charts, check and diagrams', () => {
    const html = renderReport({
      command: 'test',
      comparison,
      criteria: evaluateCriteria(comparison),
      sweeps: [{ param: 'threshold', base: setup, scenario: 'steady', points: [0, 4096].map((t) => ({ value: t, comparison: { ...comparison, setup: { ...setup, threshold: t } } })) }],
      hydration: undefined,
      check: { kind: 'ran', exitCode: 0, summary: 'sbkit check: ok', output: 'off 300 runs' },
      diagrams: { kind: 'ok', diagrams: [{ name: 'handle', mermaid: 'stateDiagram-v2\n  a --> b' }] },
    });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(/i);
    expect(html.match(/<svg /g)?.length).toBe(5);
    expect(html).toContain('a --&gt; b');
    expect(html).toContain('sbkit check: ok');
    expect(html).toContain('<dt>parts/append</dt>');
  });

  it('says when the check or the diagrams are missing', () => {
    const html = renderReport({
      command: 'test',
      comparison,
      criteria: [],
      sweeps: [],
      hydration: undefined,
      check: { kind: 'skipped', reason: '--skip-check was given' },
      diagrams: { kind: 'unavailable', reason: 'no model' },
    });
    expect(html).toContain('Not run: --skip-check was given');
    expect(html).toContain('Not available: no model');
  });
});

describe('progress', () => {
  it('stays silent off a terminal, with --json, and during the first second', () => {
    let t = 0;
    const offTty = captureIo({ tty: false, now: () => t });
    const p1 = createProgress(offTty, { json: false, title: 'x' });
    t = 5000;
    p1.update(0.5, 'a');
    p1.done();
    expect(offTty.stderr()).toBe('');

    t = 0;
    const json = captureIo({ tty: true, now: () => t });
    const p2 = createProgress(json, { json: true, title: 'x' });
    t = 5000;
    p2.update(0.5, 'a');
    expect(json.stderr()).toBe('');

    t = 0;
    const tty = captureIo({ tty: true, now: () => t });
    const p3 = createProgress(tty, { json: false, title: 'compare' });
    t = SHOW_AFTER_MS - 1;
    p3.update(0.1, 'off');
    expect(tty.stderr()).toBe('');
    t = SHOW_AFTER_MS + 1;
    p3.update(0.5, 'barrier');
    expect(tty.stderr()).toContain('[############------------]  50% compare barrier');
    p3.done();
    expect(tty.stderr().endsWith('\r')).toBe(true);
  });

  it('clamps and fits the bar', () => {
    expect(renderBar(2, 'x', 40)).toHaveLength(39);
    expect(renderBar(Number.NaN, 'x', 80)).toContain('  0%');
  });
});
