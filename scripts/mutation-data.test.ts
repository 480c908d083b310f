import { describe, expect, it } from 'vitest';
import type { Evidence } from '../mutation/evidence.ts';
import { evidenceFor, honestScore, mergeFile, scoreTable, summarize, textAt, type Report } from './mutation-data.ts';

const source = ['const a = 1;', 'if (a > 0) go();', 'while (x <= y) {', '  more();', '}'].join('\n');
const at = (line: number, column: number, endLine: number, endColumn: number) => ({ start: { line, column }, end: { line: endLine, column: endColumn } });
const report: Report = {
  files: {
    'impl/x.ts': {
      source,
      mutants: [
        { id: '1', mutatorName: 'EqualityOperator', replacement: 'a >= 0', status: 'Survived', location: at(2, 5, 2, 10) },
        { id: '2', mutatorName: 'ConditionalExpression', replacement: 'true', status: 'Survived', location: at(3, 8, 3, 14) },
        { id: '3', mutatorName: 'BlockStatement', replacement: '{}', status: 'Killed', location: at(3, 16, 5, 2) },
        { id: '4', mutatorName: 'StringLiteral', replacement: '""', status: 'CompileError', location: at(1, 1, 1, 2) },
        { id: '5', mutatorName: 'BooleanLiteral', replacement: 'false', status: 'Timeout', location: at(1, 1, 1, 2) },
      ],
    },
  },
};
const evidence: Evidence = { file: 'impl/x.ts', mutator: 'EqualityOperator', original: 'a  >  0', replacement: 'a >= 0', why: 'a is never 0', proof: { kind: 'type' } };

describe('Stryker reports: tallies, honest score, evidence', () => {
  it('reads the replaced source text, over lines too', () => {
    expect(textAt(source, at(2, 5, 2, 10))).toBe('a > 0');
    expect(textAt(source, at(3, 16, 5, 2))).toBe('{\n  more();\n}');
  });

  it('matches evidence by file, mutator, replacement and replaced text (whitespace aside), never by line', () => {
    expect(evidenceFor([evidence], 'impl/x.ts', 'EqualityOperator', 'a >= 0', 'a > 0')).toBe(evidence);
    expect(evidenceFor([evidence], 'impl/x.ts', 'EqualityOperator', 'a <= 0', 'a > 0')).toBeUndefined();
    expect(evidenceFor([evidence], 'impl/y.ts', 'EqualityOperator', 'a >= 0', 'a > 0')).toBeUndefined();
  });

  it('scores killed ÷ (killed + survived), timeouts apart, evidenced survivors counted apart and still survivors', () => {
    const s = summarize([report], [evidence], (_, name) => name);
    expect(s.total).toMatchObject({ mutants: 5, killed: 1, timeout: 1, survived: 2, compileError: 1, evidenced: 1 });
    expect(honestScore(s.total)).toBe('33.3%');
    expect(s.survivors.map((v) => `${v.line}:${v.column} ${v.evidence === undefined ? 'open' : 'evidenced'}`)).toEqual(['2:5 evidenced', '3:8 open']);
    expect(scoreTable(s)).toContain('| **total** | 5 | 1 | 1 | 2 | 1 | 1 | 0 | 0 | 33.3% |');
    expect(summarize([report], [{ ...evidence, original: 'b > 0' }], (_, name) => name).stale).toHaveLength(1);
  });

  it('merges a newer run mutant by mutant over the same source, and whole over a changed one', () => {
    const kept = report.files['impl/x.ts']!;
    const targeted = { source, mutants: [{ ...kept.mutants[1]!, status: 'Killed' }] };
    const merged = mergeFile(kept, targeted);
    expect(merged.mutants.map((m) => `${m.id} ${m.status}`)).toEqual(['4 CompileError', '5 Timeout', '1 Survived', '2 Killed', '3 Killed']);
    const moved = { source: `// moved\n${source}`, mutants: [kept.mutants[0]!] };
    expect(mergeFile(kept, moved)).toBe(moved);
    expect(mergeFile(undefined, targeted)).toBe(targeted);
  });
});
