/**
 * What makes an entry of mutation/evidence.ts admissible, checked against the repository as it is: the
 * mutated file exists and still holds the replaced text (whitespace aside), the entry says why, and a
 * `test` proof names a test file that exists and holds a test of that title. An entry that fails any of
 * these proves nothing, so mutation/evidence.test.ts fails on it.
 */
import type { Evidence } from './evidence.ts';

/** Whitespace collapsed, as evidence is matched (scripts/mutation-data.ts). */
const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The problems of each entry, each naming the entry; `read` gives a repository file's text or undefined. */
export function evidenceProblems(entries: readonly Evidence[], read: (path: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const e of entries) {
    const name = `${e.file} ${e.mutator} ${JSON.stringify(e.original)} → ${JSON.stringify(e.replacement)}`;
    const source = read(e.file);
    if (source === undefined) problems.push(`${name}: ${e.file} does not exist`);
    else if (!norm(source).includes(norm(e.original))) problems.push(`${name}: ${e.file} no longer holds the replaced text`);
    if (e.why.trim() === '') problems.push(`${name}: says nothing about why no behaviour changes`);
    if (e.proof.kind === 'test') {
      const test = read(e.proof.file);
      const title = e.proof.test;
      if (test === undefined) problems.push(`${name}: its proof ${e.proof.file} does not exist`);
      else if (!['\'', '"', '`'].some((q) => test.includes(`${q}${title}${q}`))) {
        problems.push(`${name}: ${e.proof.file} has no test titled ${JSON.stringify(title)}`);
      }
    }
  }
  return problems;
}
