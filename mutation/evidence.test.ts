import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVIDENCE, type Evidence } from './evidence.ts';
import { evidenceProblems } from './evidence-check.ts';

const root = join(import.meta.dirname, '..');
const read = (path: string): string | undefined => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);

describe('the evidence of equivalent survivors', () => {
  it('every entry of mutation/evidence.ts is admissible in the repository as it is', () => {
    expect(evidenceProblems(EVIDENCE, read)).toEqual([]);
  });

  it('refuses an entry whose code moved away, whose proof names no test, or that gives no reason', () => {
    const good: Evidence = {
      file: 'impl/persist/shard-writer.ts',
      mutator: 'EqualityOperator',
      original: 'head.seqNo  <=  have',
      replacement: 'head.seqNo < have',
      why: 'stated',
      proof: { kind: 'test', file: 'scripts/mutation-data.test.ts', test: 'reads the replaced source text, over lines too' },
    };
    expect(evidenceProblems([good], read)).toEqual([]);
    expect(evidenceProblems([{ ...good, original: 'head.seqNo === have' }], read)).toEqual([expect.stringMatching(/no longer holds the replaced text$/)]);
    expect(evidenceProblems([{ ...good, file: 'impl/persist/gone.ts' }], read)).toEqual([expect.stringMatching(/gone\.ts does not exist$/)]);
    expect(evidenceProblems([{ ...good, proof: { kind: 'test', file: 'scripts/mutation-data.test.ts', test: 'no such title' } }], read)).toEqual([expect.stringMatching(/has no test titled "no such title"$/)]);
    expect(evidenceProblems([{ ...good, why: ' ' }], read)).toEqual([expect.stringMatching(/says nothing about why/)]);
  });
});
