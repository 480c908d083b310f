import { describe, expect, it } from 'vitest';
import { docRefs, drift, type FileCoverage, unreached } from './reach-data.ts';

/** c8's shape: one statement per line (count per line), one branch per block. */
function file(path: string, lineCounts: readonly number[], blocks: readonly { from: [number, number]; to: [number, number]; count: number }[]): FileCoverage {
  const statementMap: Record<string, { start: { line: number } }> = {};
  const s: Record<string, number> = {};
  lineCounts.forEach((n, i) => {
    statementMap[String(i)] = { start: { line: i + 1 } };
    s[String(i)] = n;
  });
  const branchMap: FileCoverage['branchMap'] = Object.fromEntries(
    blocks.map((b, i) => [String(i), { loc: { start: { line: b.from[0], column: b.from[1] }, end: { line: b.to[0], column: b.to[1] } } }]),
  );
  const b = Object.fromEntries(blocks.map((x, i) => [String(i), [x.count]]));
  return { path, statementMap, s, branchMap, b };
}

const cov = {
  '/r/impl/a.ts': file(
    '/r/impl/a.ts',
    [1, 1, 0, 0, 1, 1, 0, 1],
    [
      { from: [2, 10], to: [4, 1], count: 0 }, // the if whose body (3-4) never ran: the line range
      { from: [6, 20], to: [6, 30], count: 0 }, // `?? x` on a line that ran: a branch of its own
      { from: [1, 0], to: [8, 1], count: 5 },
    ],
  ),
};

describe('unreached', () => {
  it('lists line ranges, and only the blocks no line range covers', () => {
    expect(unreached(cov, '/r')).toEqual([
      { file: 'impl/a.ts', from: 3, to: 4, kind: 'lines' },
      { file: 'impl/a.ts', from: 6, to: 6, kind: 'branch', at: '6:20-6:30' },
      { file: 'impl/a.ts', from: 7, to: 7, kind: 'lines' },
    ]);
  });
});

describe('drift from unreached.md', () => {
  const items = unreached(cov, '/r');

  it('agrees when every item is listed and every listed range is unreached', () => {
    const doc = '- `impl/a.ts:3-4` (a) a typed error\n- `impl/a.ts:6` and `impl/a.ts:7` (b) reachable: needs …\n- `impl/b.ts` whole file, excluded\n';
    expect(docRefs(doc)).toHaveLength(3);
    expect(drift(items, docRefs(doc))).toEqual({ unlisted: [], stale: [] });
  });

  it('fails on an unlisted item and on a listed range that is reached now', () => {
    const doc = '- `impl/a.ts:3-4` listed\n- `impl/a.ts:1` reached: stale\n';
    const d = drift(items, docRefs(doc));
    expect(d.unlisted.map((u) => `${u.from}-${u.to}`)).toEqual(['6-6', '7-7']);
    expect(d.stale).toEqual([{ file: 'impl/a.ts', from: 1, to: 1, docLine: 2 }]);
  });
});
