/**
 * The scores of Stryker JSON reports (mutation-testing-report-schema), per directory and in total:
 *
 *   npx tsx scripts/mutation-summary.ts .sbkit/mutation/check-shared.json [more.json …] [--survivors] [--stale]
 *
 * Counts killed, timed out, survived, no coverage, compile and runtime errors, ignored (out of every score:
 * mutation/gallery-ignorer.mjs's gallery-only code, or a `Stryker disable`); `equivalent` = survivors
 * that conformance/EQUIVALENT-MUTANTS.md lists (a line naming `file:line` and the mutator). Scores:
 * Stryker's (detected / valid), and the same with the equivalent survivors left out of `valid`.
 * `--survivors` also prints every surviving mutant not judged equivalent: file:line, mutator, replacement.
 * `--stale` prints the document's equivalence entries that match no surviving mutant of a file the
 * reports cover (killed since, ignored, or no longer compiling): entries to prune.
 * Markdown output (it goes to a GitHub job summary as is).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Mutant {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}
interface Report {
  readonly projectRoot?: string;
  readonly files: Readonly<Record<string, { readonly mutants: readonly Mutant[] }>>;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const survivors = args.includes('--survivors');
const stale = args.includes('--stale');
const paths = args.filter((a) => !a.startsWith('--'));
if (paths.length === 0) {
  console.error('usage: tsx scripts/mutation-summary.ts REPORT.json [REPORT.json …] [--survivors] [--stale]');
  process.exit(2);
}

const docPath = join(root, 'conformance', 'EQUIVALENT-MUTANTS.md');
const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8').split('\n') : [];
/**
 * Listed as equivalent: a line of an equivalence section of the document (a heading starting "##
 * Equivalent") naming where: `file:line`, `file:line:column`, `file:first-last`, or, after a file on the
 * same line, `:line` / `:line:column` for that file. A line that names Stryker mutators covers only those;
 * one that names none covers every mutant at its places (a range says "this whole block").
 */
const MUTATORS = ['ArithmeticOperator', 'ArrayDeclaration', 'ArrowFunction', 'AssignmentOperator', 'BlockStatement', 'BooleanLiteral', 'ConditionalExpression', 'EqualityOperator', 'LogicalOperator', 'MethodExpression', 'ObjectLiteral', 'OptionalChaining', 'Regex', 'StringLiteral', 'UnaryOperator', 'UpdateOperator'];
interface Place {
  readonly file: string;
  readonly first: number;
  readonly last: number;
  readonly column?: number;
  readonly mutators: readonly string[];
  /** The document's line number (1-based), for `--stale`. */
  readonly docLine: number;
}
const places: Place[] = (() => {
  const out: Place[] = [];
  let inEquivalent = false;
  for (const [i, l] of doc.entries()) {
    if (l.startsWith('## ')) {
      inEquivalent = l.startsWith('## Equivalent');
      continue;
    }
    if (!inEquivalent) continue;
    const mutators = MUTATORS.filter((m) => l.includes(m));
    let file: string | undefined;
    for (const [, token] of l.matchAll(/`([^`]+)`/g)) {
      const m = /^([\w./-]*\.ts)?:(\d+)(?:-(\d+)|:(\d+))?$/.exec(token ?? '');
      if (m === null) continue;
      if (m[1] !== undefined) file = m[1];
      if (file === undefined) continue;
      const first = Number(m[2]);
      out.push({ file, first, last: m[3] === undefined ? first : Number(m[3]), ...(m[4] === undefined ? {} : { column: Number(m[4]) }), mutators, docLine: i + 1 });
    }
  }
  return out;
})();
const covers = (p: Place, file: string, m: Mutant): boolean =>
  p.file === file &&
  m.location.start.line >= p.first &&
  m.location.start.line <= p.last &&
  (p.column === undefined || p.column === m.location.start.column) &&
  (p.mutators.length === 0 || p.mutators.includes(m.mutatorName));
const used = new Set<Place>();
const reported = new Set<string>();
const isEquivalent = (file: string, m: Mutant): boolean => {
  const hits = places.filter((p) => covers(p, file, m));
  for (const p of hits) used.add(p);
  return hits.length > 0;
};

type Tally = Record<'mutants' | 'killed' | 'timeout' | 'survived' | 'noCoverage' | 'compileError' | 'runtimeError' | 'ignored' | 'equivalent', number>;
const empty = (): Tally => ({ mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, compileError: 0, runtimeError: 0, ignored: 0, equivalent: 0 });
const byDir = new Map<string, Tally>();
const total = empty();
const open: string[] = [];

for (const p of paths) {
  const report = JSON.parse(readFileSync(p, 'utf8')) as Report;
  for (const [name, f] of Object.entries(report.files)) {
    const file = relative(root, join(report.projectRoot ?? root, name));
    reported.add(file);
    const dir = dirname(file);
    const t = byDir.get(dir) ?? empty();
    byDir.set(dir, t);
    for (const m of f.mutants) {
      for (const x of [t, total]) {
        x.mutants += 1;
        if (m.status === 'Killed') x.killed += 1;
        else if (m.status === 'Timeout') x.timeout += 1;
        else if (m.status === 'Survived') x.survived += 1;
        else if (m.status === 'NoCoverage') x.noCoverage += 1;
        else if (m.status === 'CompileError') x.compileError += 1;
        else if (m.status === 'RuntimeError') x.runtimeError += 1;
        else x.ignored += 1;
      }
      const undetected = m.status === 'Survived' || m.status === 'NoCoverage';
      if (undetected && isEquivalent(file, m)) {
        t.equivalent += 1;
        total.equivalent += 1;
      } else if (undetected) {
        open.push(`${file}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')}`);
      }
    }
  }
}

const pct = (n: number, d: number): string => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}%`);
const row = (name: string, t: Tally): string => {
  const detected = t.killed + t.timeout;
  const valid = detected + t.survived + t.noCoverage;
  return `| ${name} | ${t.mutants} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${t.equivalent} | ${t.compileError} | ${t.runtimeError} | ${t.ignored} | ${pct(detected, valid)} | ${pct(detected, valid - t.equivalent)} |`;
};
console.log(`### ${paths.join(', ')}\n`);
console.log('| directory | mutants | killed | timeout | survived | no coverage | equivalent | compile error | runtime error | ignored | score | score w/o equivalent |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [dir, t] of [...byDir].sort()) console.log(row(dir, t));
console.log(row('**total**', total));
if (stale) {
  const unused = places.filter((p) => reported.has(p.file) && !used.has(p));
  console.log(`\nequivalence entries matching no survivor (${unused.length}):\n`);
  for (const p of unused) console.log(`- EQUIVALENT-MUTANTS.md:${p.docLine} ${p.file}:${p.first}${p.last === p.first ? '' : `-${p.last}`}${p.column === undefined ? '' : `:${p.column}`} ${p.mutators.join(', ')}`);
}
if (survivors) {
  console.log(`\nsurvivors not listed as equivalent (${open.length}):\n`);
  for (const s of open) console.log(`- ${s}`);
}
