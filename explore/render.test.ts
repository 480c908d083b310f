import { describe, expect, it } from 'vitest';
import { UNLIMITED } from './args.ts';
import { casesFor } from './cases.ts';
import { comparisonGrid, renderComparison, renderSweep } from './render.ts';
import { evaluateCriteria, renderCriteria } from './criteria.ts';
import type { Comparison, Figures, Setup, SweepResult } from './types.ts';
import { bytes, fixed, percent, seconds, thousands } from './format.ts';
import { captureIo } from './io.ts';
import { SHOW_AFTER_MS, createProgress, renderBar } from './progress.ts';
import { reflow } from './report/check.ts';
import { compareCommand } from './report/context.ts';
import { htmlTable, leadWith } from './report/html.ts';
import { renderReport } from './report/index.ts';
import { sweepPivot } from './report/sweeps.ts';
import { barChart, byteUnit, lineChart, niceTicks, shortNumber, spreadLabels } from './svg.ts';
import { renderTable } from './table.ts';
import { sequenceOf } from './sequence.ts';
import type { CoverageResult } from './coverage.ts';

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
  latencyP50Ms: 20,
  latencyP99Ms: 25,
  latencyMaxMs: 30,
  writeP50Ms: 12,
  writeP99Ms: 14,
  writeMaxMs: 15,
  shardParts: ppa * 100,
  maxBuilderShare: 1 / ppa,
  faultsInjected: 0,
  retries: 0,
  aborts: 0,
  restarts: 0,
  leakedByAborts: 0,
  collected: 0,
  modelAgrees: true,
  modelDetail: '100/100 appends predicted exactly',
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
    expect(barrier).toMatch(/^barrier\s+100\s+1\.00\s+100\s+13%/);
    const wide = renderComparison(comparison, { kind: 'wide' }).split('\n').find((l) => l.startsWith('barrier'));
    expect(wide).toMatch(/^barrier\s+100\s+1\.00\s+1\.00\s+100\s+13%/);
    expect(comparisonGrid({ ...comparison, rows: comparison.rows.slice(1) }).columns.map((c) => c.header)).not.toContain('% off');
  });

  it('ends each row with the model column and prints where the model diverged under the table', () => {
    const clean = renderComparison(comparison).split('\n');
    expect(clean[2]).toMatch(/\s+audit\s+model$/);
    expect(clean.filter((l) => /\sagrees$/.test(l))).toHaveLength(3);
    expect(clean.join('\n')).not.toContain('DIVERGES');
    const detail = 'diverged at event #9 (r0 w6 open id=0) after 0/100 appends predicted exactly';
    const text = renderComparison({ ...comparison, rows: [fig('off', 8, 800), fig('best-effort', 1.4, 140, { modelAgrees: false, modelDetail: detail }), fig('barrier', 1, 100)] });
    expect(text.split('\n').find((l) => l.startsWith('best-effort'))).toMatch(/\sDIVERGES$/);
    expect(text.endsWith(`model DIVERGES on best-effort: ${detail}\n`)).toBe(true);
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
    // each variant's own criteria in registry order (explore/variants/), then the shared ones per row
    expect(misses).toEqual([
      'best-effort strictly between barrier (1.0) and off',
      'barrier: exactly one part per append',
      'barrier blob PUTs at most 20% of off',
      'barrier: nothing lost, duplicated or leaked',
    ]);
    // A variant that did not run is not judged; one whose criteria read a variant that did not run misses.
    expect(evaluateCriteria({ ...comparison, rows: [fig('off', 8, 8)] }).every((c) => c.ok)).toBe(true);
    expect(evaluateCriteria({ ...comparison, rows: [fig('best-effort', 1.5, 150)] }).filter((c) => !c.ok)).toEqual([
      { name: 'best-effort: its criteria compare it with off', ok: false, detail: 'run compare with --variants best-effort,off' },
    ]);
    expect(evaluateCriteria({ ...comparison, rows: [] })[0]?.ok).toBe(false);
  });

  it('has one model criterion per variant, ok exactly when the model agreed, with its detail', () => {
    const detail = 'diverged at event #9 (r0 w6 open id=0) after 0/100 appends predicted exactly: …';
    const bad: Comparison = { ...comparison, rows: [fig('off', 8, 800), fig('best-effort', 1.4, 140, { modelAgrees: false, modelDetail: detail }), fig('barrier', 1, 100)] };
    const model = evaluateCriteria(bad).filter((c) => c.name.endsWith('model predicts every append'));
    expect(model.map((c) => [c.name, c.ok])).toEqual([
      ['off: model predicts every append', true],
      ['best-effort: model predicts every append', false],
      ['barrier: model predicts every append', true],
    ]);
    expect(model[1]?.detail).toBe(detail);
    expect(renderCriteria(model)).toContain(`MISS best-effort: model predicts every append (${detail})`);
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
    const bars = barChart({ title: 'Parts <per> append', xLabel: 'variant', yLabel: 'parts', bars: [{ label: 'off', value: 8 }, { label: 'barrier', value: 1 }] });
    expect(bars.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(bars.match(/<rect /g)).toHaveLength(2);
    expect(bars).toContain('Parts &lt;per&gt; append');
    const lines = lineChart({ title: 't', xLabel: 'workers', yLabel: 'y', xs: ['1', '2', '4'], series: [{ name: 'off', values: [1, 2, 4] }, { name: 'barrier', values: [1, 1, 1] }] });
    expect(lines.match(/<polyline /g)).toHaveLength(2);
    // one marker per point, plus one per legend entry
    expect(lines.match(/<(circle|path) /g)).toHaveLength(6 + 2);
  });

  it('gives every chart a title, both axis titles and (for lines) a legend and end labels', () => {
    const bars = barChart({ title: 'PUTs', subtitle: 'steady · seed 1', xLabel: 'variant', yLabel: 'blob PUTs (count)', bars: [{ label: 'off', value: 800 }], refs: [{ value: 1, label: 'ideal: 1 part' }] });
    expect(bars).toContain('<title>PUTs</title>');
    expect(bars).toMatch(/<text class="chart-title"[^>]*>PUTs<\/text>/);
    expect(bars).toMatch(/<text class="chart-subtitle"[^>]*>steady · seed 1<\/text>/);
    expect(bars).toMatch(/<text class="axis-title x"[^>]*>variant<\/text>/);
    expect(bars).toMatch(/<text class="axis-title y"[^>]*>blob PUTs \(count\)<\/text>/);
    expect(bars).toMatch(/<line class="ref"/);
    expect(bars).toMatch(/<text class="ref-label"[^>]*>ideal: 1 part<\/text>/);
    const lines = lineChart({ title: 'L', xLabel: 'workers per process', yLabel: 'parts per append', xs: ['1', '2'], series: [{ name: 'off', values: [1, 2] }, { name: 'best-effort', values: [1, 1.35] }, { name: 'barrier', values: [1, 1] }], format: (v) => v.toFixed(2) });
    const legend = lines.match(/<g class="legend">(.*?)<\/g>/)?.[1] ?? '';
    for (const n of ['off', 'best-effort', 'barrier']) expect(legend).toContain(`>${n}</text>`);
    expect(lines.match(/<text class="end-label"[^>]*>[^<]+<\/text>/g)?.map((t) => t.replace(/<[^>]+>/g, ''))).toEqual(['off 2.00', 'best-effort 1.35', 'barrier 1.00']);
    // each variant is told apart by more than colour: barrier is dashed, off is drawn widest underneath
    expect(lines).toMatch(/stroke="#0072b2" stroke-width="2" stroke-linejoin="round" stroke-dasharray/);
    expect(lines).toMatch(/stroke="#8c8c8c" stroke-width="5"/);
  });

  it('keeps end labels apart and picks byte units', () => {
    const ys = spreadLabels([100, 101, 50], 13, 0, 200);
    expect(ys[2]).toBe(50);
    expect(Math.abs((ys[0] ?? 0) - (ys[1] ?? 0))).toBeGreaterThanOrEqual(13);
    const bottom = spreadLabels([200, 200], 13, 0, 200);
    expect(Math.max(...bottom)).toBeLessThanOrEqual(200);
    expect(byteUnit(15_000)).toEqual({ unit: 'KiB', size: 1024 });
    expect(byteUnit(500)).toEqual({ unit: 'B', size: 1 });
    expect(byteUnit(3 * 1024 * 1024)).toEqual({ unit: 'MiB', size: 1024 * 1024 });
  });
});

const sweep = (param: 'threshold' | 'workers', values: number[]): SweepResult => ({
  param,
  base: { ...setup, intervals: 20 },
  scenario: 'steady',
  points: values.map((v) => ({ value: v, comparison: { ...comparison, setup: { ...setup, intervals: 20, ...(param === 'threshold' ? { threshold: v } : { workers: v }) }, rows: comparison.rows.map((r) => (param === 'threshold' ? { ...r, threshold: v } : r)) } })),
});

const fullInputs = () => ({
    command: 'test',
    comparison,
    criteria: evaluateCriteria(comparison),
    sweeps: [sweep('threshold', [0, 4096]), sweep('workers', [1, 2, 4])],
    hydration: { ...comparison, scenario: 'hydration', setup: { ...setup, intervals: 3, rows: 12_000, rowBytes: 1000 }, rows: [fig('off', 8, 24), fig('barrier', 8, 24), fig('barrier', 1, 3, { threshold: UNLIMITED, maxBuilderShare: 1 })] },
    check: { kind: 'ran', exitCode: 0, summary: 'sbkit check: ok', output: 'off 300 runs' },
    diagrams: { kind: 'ok', diagrams: [{ name: 'handle', mermaid: 'stateDiagram-v2\n  [*] --> a\n  a --> b : GO' }, { name: 'mint', mermaid: 'stateDiagram-v2\n  a --> b' }] },
  }) as const;
const fullReport = () => renderReport(fullInputs());

const svgsOf = (html: string): string[] => html.match(/<svg [\s\S]*?<\/svg>/g) ?? [];
const textOf = (svg: string, cls: string): string => svg.match(new RegExp(`<text class="${cls}"[^>]*>([^<]*)</text>`))?.[1] ?? '';

describe('report', () => {
  it('is self-contained, deterministic HTML with tables, charts, check and diagrams', () => {
    const html = fullReport();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(/i);
    expect(fullReport()).toBe(html);
    // 3 comparison bars + 2 lines per sweep + the cost/benefit scatter (a threshold sweep ran) + 2 hydration bars
    expect(svgsOf(html)).toHaveLength(3 + 2 * 2 + 1 + 2);
    expect(html).toContain('a --&gt; b');
    expect(html).toContain('sbkit check: ok');
    expect(html).toContain('<dt>parts/append</dt>');
  });

  it('gives every chart a title, a subtitle saying what ran, and both axis titles', () => {
    const svgs = svgsOf(fullReport());
    for (const svg of svgs) {
      const title = textOf(svg, 'chart-title');
      expect(title.length).toBeGreaterThan(3);
      expect(svg).toContain(`<title>${title}</title>`);
      expect(textOf(svg, 'chart-subtitle')).toMatch(/seed 1$/);
      expect(textOf(svg, 'axis-title x').length).toBeGreaterThan(0);
      expect(textOf(svg, 'axis-title y').length).toBeGreaterThan(0);
    }
    const titles = svgs.map((s) => textOf(s, 'chart-title'));
    expect(titles).toContain('Parts per append vs workers');
    // a sweep's subtitle never names the swept parameter's base value
    const workersSweep = svgs.find((s) => textOf(s, 'chart-title') === 'Parts per append vs workers') ?? '';
    expect(textOf(workersSweep, 'chart-subtitle')).toBe('sweep of workers · 20 intervals · 1,000 updates of ~100 B · seed 1');
    // byte charts name their unit on the axis; counts say they are counts
    const diff = svgs.find((s) => textOf(s, 'chart-title').startsWith('Consensus state-diff bytes')) ?? '';
    expect(textOf(diff, 'axis-title y')).toBe('state-diff bytes (KiB)');
    const lines = svgs.filter((s) => s.includes('<polyline'));
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(l).toMatch(/<g class="legend">.*>best-effort<\/text>/);
  });

  it('says what ran: setup, seed, variants, timing and how to reproduce', () => {
    const html = fullReport();
    expect(html).toContain('<dt>seed</dt><dd>1:');
    for (const v of ['off', 'best-effort', 'barrier']) expect(html).toContain(`<dt>${v}</dt>`);
    expect(html).toContain('#37617');
    expect(html).toMatch(/<dt>time<\/dt><dd>virtual \(no wall clock\): frontier advances every 1,000 ms/);
    expect(html).toContain(`<code>${compareCommand('steady', setup)}</code>`);
    expect(compareCommand('steady', setup)).toBe('npx sbkit compare --replicas 1 --processes 1 --workers 8 --intervals 100 --rows 1000 --row-bytes 100 --threshold 1MiB --seed 1');
    expect(html).toContain('--sweep workers=1,2,4');
    expect(html).toContain('--scenario hydration');
    expect(html).toContain('All 10 done-criteria hold.');
  });

  it('groups table columns, explains each header, and marks the audit', () => {
    const table = htmlTable(comparisonGrid(comparison));
    expect(table).toMatch(/<tr class="groups"><th colspan="1"><\/th><th colspan="3">appends<\/th><th colspan="3">blob storage<\/th><th colspan="4">consensus<\/th><th colspan="2">updates<\/th><th colspan="3">commit latency<\/th><th colspan="3"[^>]*>audit<\/th><th colspan="1">model<\/th><\/tr>/);
    expect(table).toContain('<th class="r" title="parts (hollow + inline) per successful append: ~workers for off, 1.0 ideal">parts/<wbr>append</th>');
    expect(table.match(/<td class="r zero">0<\/td>/g)).toHaveLength(9);
    expect(table.match(/<td class="l zero">agrees<\/td>/g)).toHaveLength(3);
    const bad = htmlTable(comparisonGrid({ ...comparison, rows: [fig('off', 8, 800, { lost: 2 })] }));
    expect(bad).toContain('<td class="r bad">2</td>');
    const diverged = htmlTable(comparisonGrid({ ...comparison, rows: [fig('off', 8, 800, { modelAgrees: false, modelDetail: 'diverged at event #3' })] }));
    expect(diverged).toContain('<td class="l bad">DIVERGES</td>');
    const moved = leadWith(comparisonGrid({ ...comparison, scenario: 'hydration' }), ['max builder share', 'mint→append']);
    expect(moved.columns.slice(0, 3).map((c) => c.header)).toEqual(['variant', 'max builder share', 'mint→append']);
    expect(moved.rows[0]?.slice(0, 3)).toEqual(['off', '13%', '20 ms']);
  });

  it('pivots a sweep to one row per value, with the full table folded away', () => {
    const p = sweepPivot(sweep('workers', [1, 2, 4]));
    expect(p.grid.rows).toHaveLength(3);
    expect(p.groups.map((g) => g.label)).toEqual(['', 'parts per append', 'blob PUTs (% of off)', 'state-diff bytes (% of off)', 'audit', 'model']);
    expect(p.grid.rows[0]).toEqual(['1', '8.00', '1.40', '1.00', '800', '140 (18%)', '100 (13%)', '117 KiB', '20.5 KiB (18%)', '14.6 KiB (13%)', '0', 'agrees']);
    expect(fullReport()).toMatch(/<details><summary>All figures per workers and variant <span class="note">\(9 rows\)<\/span><\/summary><div class="scroll"><table>/);
  });

  it('draws each machine (when its graph is there) with its Mermaid source folded beneath and the command that prints it', () => {
    const html = fullReport();
    expect(html).toContain('npx sbkit model --mermaid');
    expect(html).toContain('<h3 id="machine-handle">handle <span class="note">— 1 transitions · <code>npx sbkit model --mermaid --machine handle</code></span></h3>');
    const blocks = html.match(/<details class="diagram"[\s\S]*?<\/details>/g) ?? [];
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('<pre class="mermaid-src"><code>stateDiagram-v2\n  [*] --&gt; a\n  a --&gt; b : GO</code></pre>');
    expect(html).not.toContain('class="machine"'); // no graph given: the source only
    const drawn = renderReport({ ...fullInputs(), diagrams: { kind: 'ok', diagrams: [{ name: 'handle', mermaid: '', graph: { name: 'handle', states: ['a', 'b'], initial: 'a', finals: ['b'], transitions: [{ from: 'a', to: 'b', event: 'GO', guard: null }] } }] } });
    expect(drawn).toMatch(/<div class="machine-chart"><svg [^>]*class="machine"/);
  });

  it('flags misses in the headline', () => {
    const bad: Comparison = { ...comparison, rows: [fig('off', 8, 800), fig('best-effort', 1.4, 140), fig('barrier', 1, 100, { lost: 3 })] };
    const html = renderReport({ command: 't', comparison: bad, criteria: evaluateCriteria(bad), sweeps: [], hydration: undefined, check: { kind: 'ran', exitCode: 1, summary: 'FAILED', output: '' }, diagrams: { kind: 'unavailable', reason: 'x' } });
    expect(html).toContain('<div class="findings missed"><p class="verdict"><strong class="miss">1 of 10 done-criteria missed.</strong></p>');
    expect(html).toContain('Storage audit FAILED for barrier.');
  });

  it('says in the headline what failed, each line in the colour of what it says', () => {
    const base = { command: 't', comparison, criteria: evaluateCriteria(comparison), sweeps: [], hydration: undefined, check: { kind: 'skipped', reason: 'x' }, diagrams: { kind: 'unavailable', reason: 'x' } } as const;
    const gap = renderReport({ ...base, reasons: [{ exit: 4, text: 'model coverage: 1 reachable transition never taken in 50 runs per variant' }] });
    expect(gap).toContain('<div class="findings incomplete"><p class="verdict"><strong class="warn">Incomplete: model coverage: 1 reachable transition never taken in 50 runs per variant</strong></p><p class="verdict"><strong class="ok">All 10 done-criteria hold.</strong></p>');
    const failed = renderReport({ ...base, reasons: [{ exit: 1, text: 'check: best-effort: [audit] x failed' }, { exit: 4, text: 'model check: y' }] });
    expect(failed).toContain('<div class="findings missed"><p class="verdict"><strong class="miss">Failed: check: best-effort: [audit] x failed</strong></p><p class="verdict"><strong class="warn">Incomplete: model check: y</strong></p>');
    const clean = renderReport({ ...base, reasons: [] });
    expect(clean).toContain('<div class="findings"><p class="verdict"><strong class="ok">All 10 done-criteria hold.</strong></p><p class="verdict"><strong class="ok">Every check passed.</strong></p>');
  });

  it('says in the findings whether the model agreed with every run, and names where it diverged', () => {
    const clean = fullReport();
    expect(clean).toMatch(/Model cross-check: the model replayed the trace of every run in this report \(\d+ runs\) and predicted every append's batches and parts exactly\./);
    const detail = 'diverged at event #9 (r0 w6 open id=0) after 0/100 appends predicted exactly: predicted field differs: open.created expected true, got false';
    const bad: Comparison = { ...comparison, rows: [fig('off', 8, 800), fig('best-effort', 1.4, 140, { modelAgrees: false, modelDetail: detail }), fig('barrier', 1, 100)] };
    const html = renderReport({ command: 't', comparison: bad, criteria: evaluateCriteria(bad), sweeps: [], hydration: undefined, check: { kind: 'skipped', reason: 'x' }, diagrams: { kind: 'unavailable', reason: 'x' } });
    expect(html).toContain('<div class="findings missed"><p class="verdict"><strong class="miss">1 of 10 done-criteria missed.</strong></p>');
    expect(html).toContain('Model cross-check: the model DIVERGED from 1 of 3 runs: best-effort (comparison): diverged at event #9 (r0 w6 open id=0)');
    expect(html).toContain('<td class="r bad">DIVERGES</td>');
  });

  it('wraps long check output under its label', () => {
    const line = `x   orders: ${Array.from({ length: 12 }, (_, i) => `item-${i} ${i}`).join(', ')}`;
    const out = reflow(line, 40).split('\n');
    expect(out.length).toBeGreaterThan(1);
    expect(out.every((l) => l.length <= 40)).toBe(true);
    expect(out[1]?.startsWith(' '.repeat('x   orders: '.length) + 'item')).toBe(true);
    expect(reflow('short, line', 40)).toBe('short, line');
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

describe('report: latency, small writes, gallery, coverage', () => {
  const straggled = (p: number, extra: number): Comparison => ({
    ...comparison,
    setup: { ...setup, rows: 500, rowBytes: 1000, ...(p === 0 ? {} : { stragglers: { probability: p, slowdown: 100 } }) },
    rows: [
      fig('off', 8, 800, { latencyP50Ms: 15, latencyP99Ms: 16 + extra, latencyMaxMs: 17 + extra }),
      fig('best-effort', 1.4, 140, { latencyP50Ms: 24, latencyP99Ms: 25 + (p === 0 ? 0 : extra - 9), latencyMaxMs: 26 + extra }),
      fig('barrier', 1, 100, { latencyP50Ms: 24, latencyP99Ms: 25 + extra, latencyMaxMs: 27 + extra }),
    ],
  });
  /** A row with distributions behind its summaries: 100 latency samples with its p50, p99 and max; its appends at its parts/append, rounded. */
  const withDistributions = (c: Comparison): Comparison => ({
    ...c,
    rows: c.rows.map((r) => ({ ...r, latencySamples: Array.from({ length: 100 }, (_, i) => (i < 50 ? r.latencyP50Ms : i < 99 ? r.latencyP99Ms : r.latencyMaxMs)), partsHistogram: [[Math.round(r.partsPerAppend), r.appends]] as const })),
  });
  const stragglers: SweepResult = { param: 'stragglers', base: { ...setup, rows: 500, rowBytes: 1000 }, scenario: 'steady', points: [0, 0.2].map((v) => ({ value: v, comparison: withDistributions(straggled(v, v === 0 ? 0 : 100)) })) };
  const small = (rows: number): Comparison => ({
    scenario: 'small-writes',
    setup: { ...setup, intervals: 40, rows, rowBytes: 20 },
    variants: ['off', 'best-effort', 'barrier'],
    rows: [
      fig('off', 8, 0, { appends: 40, inlineParts: 320, hollowParts: 0, shardParts: 320, latencyP50Ms: 4.7 }),
      fig('best-effort', 2.85, 65, { appends: 40, inlineParts: 49, hollowParts: 65, shardParts: 114, latencyP50Ms: 13 }),
      fig('barrier', 1, 40, { appends: 40, hollowParts: 40, shardParts: 40, latencyP50Ms: 13.3 }),
    ],
  });
  const seq = sequenceOf([{ kind: 'frontier', replica: 0, upper: 1 }], { title: 'a counterexample', mark: { index: 1, text: 'deadlock' }, notes: ['replay: x'] });
  const coverage: CoverageResult = {
    variants: ['off'],
    runs: { off: 3 },
    seed: 1,
    shapes: ['1 replica × 1 process × 2 workers, 1 interval'],
    rows: [
      { machine: 'worker', transition: 'handing --> done : HAND', cells: { off: { verdict: 'taken', taken: 9 } } },
      { machine: 'builder', transition: 'live --> live : PUSH', cells: { off: { verdict: 'unreached', taken: 0, why: 'off never shares' } } },
    ],
    gaps: [],
    exitCode: 0,
    summary: 'sbkit model --coverage: ok — 3 conformance runs (seed 1) took off 1 of 2 transitions',
  };
  const html = renderReport({
    command: 'test',
    comparison,
    criteria: evaluateCriteria(comparison),
    sweeps: [],
    check: { kind: 'skipped', reason: 'test' },
    diagrams: { kind: 'unavailable', reason: 'test' },
    latency: { headline: withDistributions(comparison), stragglers },
    smallWrites: { comparison: small(1000), rows: { param: 'rows', base: small(1000).setup, scenario: 'small-writes', points: [30, 1000].map((v) => ({ value: v, comparison: small(v) })) } },
    gallery: { kind: 'ran', entries: [{ bug: 'barrier-lost-wakeup', description: 'd', summary: 'FAILED', command: 'npx sbkit check --bug barrier-lost-wakeup --seed 1 --emit-diagram barrier-lost-wakeup.md', sequence: seq }] },
    coverage: { kind: 'ran', result: coverage },
  });

  it('adds the four sections to the page and its table of contents, each with a line that reproduces it', () => {
    for (const [id, h] of [['latency', 'Latency and stragglers'], ['small-writes', 'Small writes and compaction'], ['gallery', 'Counterexample gallery'], ['coverage', 'Model coverage']]) {
      expect(html).toContain(`<h2 id="${id}">${h}</h2>`);
      expect(html).toContain(`<a href="#${id}">`);
    }
    expect(html).toContain('npx sbkit compare --replicas 1 --processes 1 --workers 8 --intervals 100 --rows 500 --row-bytes 1000 --threshold 1MiB --seed 1 --sweep stragglers=0%,20%');
    expect(html).toContain('npx sbkit compare --scenario small-writes --replicas 1 --processes 1 --workers 8 --intervals 40 --rows 1000 --row-bytes 20');
    expect(html).toContain('--sweep rows=30,1000');
    expect(html).toContain('npx sbkit check --bug barrier-lost-wakeup --seed 1 --emit-diagram barrier-lost-wakeup.md');
    expect(html).toContain('npx sbkit model --coverage --seed 1');
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(/i);
  });

  it('gives every new chart a title, a subtitle ending in the seed, and both axis titles with units', () => {
    const charts = svgsOf(html).filter((s) => !s.includes('class="sequence"')).slice(3); // after the comparison's three
    const titles = charts.map((s) => textOf(s, 'chart-title'));
    expect(titles).toEqual([
      'Commit latency per interval, distribution',
      'p99 commit latency vs stragglers',
      'p50 commit latency vs stragglers',
      'What sharing adds to the p99, over off',
      'Commit latency with stragglers at 20%',
      'Parts per append with stragglers at 20%',
      'PUTs saved against p99 added, per sweep point',
      'Blob PUTs per append',
      'p50 commit latency',
      'Parts the shard holds after the run (compaction proxy)',
      'Reachable machine transitions taken by the conformance runs',
    ]);
    for (const svg of charts) {
      expect(textOf(svg, 'chart-subtitle')).toMatch(/seed 1$/);
      expect(textOf(svg, 'axis-title y')).toMatch(/\((virtual ms|count|%)\)$/);
      expect(textOf(svg, 'axis-title x').length).toBeGreaterThan(0);
    }
  });

  it('computes the straggler findings, shows the PR figures next to ours, and draws the counterexample', () => {
    expect(html).toContain('p99 commit latency from stragglers 0% to 20%: off 16 ms → 116 ms, best-effort 25 ms → 116 ms, barrier 25 ms → 125 ms.');
    expect(html).toContain("The barrier's p99 over best-effort's: 0.0 ms without stragglers, 9.0 ms with them.");
    // one row per rows-per-interval value and variant: the PR's figure beside the measured one
    expect(html).toMatch(/<td class="l"[^>]*>1,000-row<\/td><td class="l">off<\/td><td class="r">[^<]*<\/td><td class="r">7.8<\/td>/);
    for (const v of ['best-effort', 'barrier']) expect(html).toMatch(new RegExp(`<td class="l"[^>]*></td><td class="l">${v}</td><td class="r">[^<]*</td><td class="r">1.05</td>`));
    expect(html).toContain('<td class="r">about +10 ms</td><td class="r">+8.3 ms</td><td class="r">+8.6 ms</td>');
    expect(html).toContain('<td class="r">2.5×</td><td class="r">2.8×</td><td class="r">8.0×</td>');
    expect(svgsOf(html).filter((s) => s.includes('class="sequence"'))).toHaveLength(1);
    expect(html).toContain('✘ deadlock');
    expect(html).toContain('<td class="r never" title="off never shares">never</td>');
    expect(html).toContain('Model coverage: ok — 3 conformance runs');
  });
});
