import { describe, expect, it } from 'vitest';
import { main } from './cli.ts';
import { COLUMN_NAMES, TABLE_WIDTH, columnTable } from './compare-columns.ts';
import { captureIo } from './io.ts';
import { comparisonGrid, renderComparison } from './render.ts';
import type { Comparison, Figures, Setup } from './types.ts';
import { VARIANTS } from './variants/index.ts';

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Small runs of every scenario and of the flags that add columns. */
const SMALL = ['--workers', '8', '--intervals', '4'];
const CASES: readonly (readonly string[])[] = [
  ['--scenario', 'steady', '--rows', '200'],
  ['--scenario', 'hydration', '--rows', '2000'],
  ['--scenario', 'small-writes', '--rows', '200'],
  ['--rows', '200', '--faults'],
  ['--rows', '8', '--row-bytes', '5000', '--no-data', 'both'],
  ['--rows', '200', '--replicas', '2', '--processes', '2', '--stragglers', '20%,100'],
  ['--rows', '200', '--sweep', 'threshold=0,4KiB,unlimited'],
];

const longest = (text: string): number => Math.max(...text.split('\n').map((l) => l.length));

/** The table's lines: the header row, the rule and the rows up to the first blank line after it. */
function tableOf(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l, i) => /^-+( {2}-+)+$/.test(lines[i + 1] ?? ''));
  const end = lines.findIndex((l, i) => i > start + 1 && !/\S {2,}\S/.test(l));
  return lines.slice(start, end < 0 ? undefined : end);
}

/** Each row of a table as header → cell (the n-th "% off" keyed by the column before it). */
function cellsByHeader(lines: readonly string[]): Record<string, string>[] {
  const [header = '', rule = '', ...rows] = lines;
  const spans: [number, number][] = [];
  for (const m of rule.matchAll(/-+/g)) spans.push([m.index, m.index + m[0].length]);
  const cut = (l: string) => spans.map(([a, b], i) => l.slice(i === 0 ? 0 : a, i === spans.length - 1 ? undefined : (spans[i + 1]?.[0] ?? b)).trim());
  const names = cut(header).map((h, i, all) => (h === '% off' ? `% off of ${all[i - 1] ?? ''}` : h));
  return rows.map((r) => Object.fromEntries(cut(r).map((c, i) => [names[i] ?? '', c])));
}

describe('sbkit compare: the table fits 120 columns by default', () => {
  it.each(CASES)('every line of the default output is at most 120 characters: %s', async (...argv) => {
    const r = await run(['compare', ...SMALL, ...argv]);
    expect(r.code).toBe(0);
    expect(longest(r.out)).toBeLessThanOrEqual(TABLE_WIDTH);
    // and --wide is wider: the default left columns out (and says which)
    const wide = await run(['compare', ...SMALL, ...argv, '--wide']);
    expect(longest(wide.out)).toBeGreaterThan(TABLE_WIDTH);
    expect(r.out).toMatch(/^more with --wide or --columns: /m);
  });

  it('shows the same numbers in every layout: each default cell is the wide table\'s cell under the same header', async () => {
    for (const argv of [CASES[0] ?? [], CASES[1] ?? [], CASES[3] ?? []]) {
      const narrow = cellsByHeader(tableOf((await run(['compare', ...SMALL, ...argv])).out));
      const wide = cellsByHeader(tableOf((await run(['compare', ...SMALL, ...argv, '--wide'])).out));
      expect(narrow.length).toBe(wide.length);
      narrow.forEach((row, i) => {
        const full = wide[i] ?? {};
        for (const [h, cell] of Object.entries(row)) {
          if (h === 'audit') expect(cell).toBe(full['lost'] === '0' && full['dup'] === '0' && full['leaked'] === '0' ? 'ok' : `lost ${full['lost']} dup ${full['dup']} leaked ${full['leaked']}`);
          else expect([h, cell]).toEqual([h, full[h]]);
        }
      });
    }
  });

  it('--columns picks columns by name in that order, the variant first; bad names and conflicting flags are refused (exit 2)', async () => {
    const r = await run(['compare', ...SMALL, '--columns', 'p99,parts,model']);
    expect(r.code).toBe(0);
    expect(tableOf(r.out)[0]).toMatch(/^variant +p99 +parts\/append +model$/);
    expect(r.out).not.toContain('more with --wide');
    const bad = await run(['compare', ...SMALL, '--columns', 'parts,colour']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('sbkit compare: --columns: expected one of variant, appends, parts,');
    for (const [argv, says] of [
      [['--columns', 'parts', '--wide'], '--columns and --wide both choose the columns'],
      [['--wide', '--json'], '--wide: chooses the table\'s columns; --json prints every figure'],
      [['--columns', 'parts', '--json'], '--columns: chooses'],
    ] as const) {
      const x = await run(['compare', ...SMALL, ...argv]);
      expect(x.code, argv.join(' ')).toBe(2);
      expect(x.err).toContain(says);
    }
  });
});

const setup: Setup = { replicas: 1, processes: 1, workers: 8, intervals: 100, rows: 1000, rowBytes: 100, threshold: 1 << 20, seed: 1 };
const fig = (variant: Figures['variant'], over: Partial<Figures> = {}): Figures => ({
  variant, threshold: setup.threshold, appends: 1_000_000, partsPerAppend: 1234.56, batchesPerAppend: 1234.56, blobPuts: 123_456_789, blobBytes: 9e12, consensusCommands: 1_000_000,
  stateDiffBytes: 8e11, inlineParts: 1_000_000, hollowParts: 1, updatesWritten: 1e9, updatesAppended: 1e9, lost: 0, duplicated: 0, leakedBlobs: 0, simulatedMs: 1, meanAppendLatencyMs: 1,
  latencyP50Ms: 123_456, latencyP99Ms: 123_456, latencyMaxMs: 123_456, writeP50Ms: 1, writeP99Ms: 1, writeMaxMs: 1, shardParts: 1, maxBuilderShare: 1, faultsInjected: 0, retries: 0,
  aborts: 0, restarts: 0, leakedByAborts: 0, collected: 0, modelAgrees: true, modelDetail: '', ...over,
});

describe('the default layout', () => {
  it('drops the least asked-for columns first when the numbers are wide: the audit and the model last, the variant never', () => {
    const c: Comparison = { scenario: 'steady', setup, variants: VARIANTS, rows: VARIANTS.map((v) => fig(v)) };
    const headers = comparisonGrid(c, { kind: 'default', width: 200 }).columns.map((x) => x.header);
    expect(headers[0]).toBe('variant');
    expect(headers).toContain('audit');
    expect(headers[headers.length - 1]).toBe('model');
    expect(longest(renderComparison(c))).toBeLessThanOrEqual(TABLE_WIDTH);
    // narrower limits drop more, the least asked-for first
    const dropped: string[] = [];
    for (let width = 200; width >= 30; width--) {
      const kept = comparisonGrid(c, { kind: 'default', width }).columns.map((x) => x.header);
      for (const h of headers) if (!kept.includes(h) && !dropped.includes(h)) dropped.push(h);
    }
    expect(dropped.filter((h) => h !== '% off')).toEqual(['appends', 'latency p50', 'state-diff bytes', 'p99', 'blob PUTs', 'parts/append']);
    expect(comparisonGrid(c, { kind: 'default', width: 30 }).columns.map((x) => x.header)).toEqual(['variant', 'audit', 'model']);
  });

  it('folds lost, dup and leaked into one audit cell: ok when all are 0, each count otherwise', () => {
    const c: Comparison = { scenario: 'steady', setup, variants: VARIANTS, rows: [fig(VARIANTS[0] ?? 'off'), fig(VARIANTS[1] ?? 'off', { lost: 2, leakedBlobs: 1 })] };
    const t = columnTable(
      c.rows.map((r) => ({ lead: [], label: r.variant, figures: r, context: { scenario: 'steady', setup, off: undefined, real: false } })),
      [],
      { kind: 'named', names: ['audit'] },
    );
    expect(t.rows.map((r) => r[1])).toEqual(['ok', 'lost 2 dup 0 leaked 1']);
  });

  it('names every column --columns accepts once', () => {
    expect(new Set(COLUMN_NAMES).size).toBe(COLUMN_NAMES.length);
    expect(COLUMN_NAMES).toEqual(expect.arrayContaining(['variant', 'parts', 'puts', 'state-diff', 'p50', 'p99', 'audit', 'model']));
  });
});
