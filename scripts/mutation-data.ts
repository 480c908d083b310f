/**
 * Pure: Stryker JSON reports (mutation-testing-report-schema), their tallies and honest score, and the
 * evidence of the survivors judged equivalent (mutation/evidence.ts). Used by scripts/mutation-summary.ts
 * (the figures) and scripts/mutants-doc.ts (docs/quality/mutants.md).
 *
 * The honest score is killed ÷ (killed + survived): a survivor counts against it whether or not it is
 * judged equivalent; timeouts are reported apart (Stryker counts them as detected; a loaded machine can
 * time out a survivor). Equivalent survivors are counted apart, and only with evidence: an entry of
 * mutation/evidence.ts matching the mutant's file, mutator, replacement and the source text it replaces
 * (not its line, so that evidence survives code moving around it).
 */
import type { Evidence } from '../mutation/evidence.ts';

export interface Mutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly statusReason?: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number }; readonly end: { readonly line: number; readonly column: number } };
}

export interface ReportFile {
  readonly source: string;
  readonly mutants: readonly Mutant[];
}

export interface Report {
  readonly projectRoot?: string;
  readonly files: Readonly<Record<string, ReportFile>>;
}

/** A mutant's identity within one source: where, which mutator, what replacement. */
const mutantKey = (m: Mutant): string =>
  `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement ?? ''}`;

/**
 * A newer run's results for one file merged into the kept ones. Over the same source, mutant by mutant
 * (a targeted run of a few lines, `SBKIT_MUTATE=file:from-to`, replaces only the mutants it ran); over
 * a changed source, the newer run's file whole (the kept results were made from code that is gone).
 */
export function mergeFile(kept: ReportFile | undefined, run: ReportFile): ReportFile {
  if (kept === undefined || kept.source !== run.source) return run;
  const byKey = new Map(kept.mutants.map((m) => [mutantKey(m), m]));
  for (const m of run.mutants) byKey.set(mutantKey(m), m);
  const mutants = [...byKey.values()].sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
  return { ...run, mutants };
}

export type Tally = Record<'mutants' | 'killed' | 'timeout' | 'survived' | 'noCoverage' | 'compileError' | 'runtimeError' | 'ignored' | 'evidenced', number>;

export const emptyTally = (): Tally => ({ mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, compileError: 0, runtimeError: 0, ignored: 0, evidenced: 0 });

/** A surviving mutant, located and with the source text it replaces. */
export interface Survivor {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly mutator: string;
  readonly replacement: string;
  readonly original: string;
  readonly evidence: Evidence | undefined;
}

/** The text of `source` between two 1-based (line, column) positions (Stryker's locations). */
export function textAt(source: string, loc: Mutant['location']): string {
  const lines = source.split('\n');
  if (loc.start.line === loc.end.line) return (lines[loc.start.line - 1] ?? '').slice(loc.start.column - 1, loc.end.column - 1);
  const out = [(lines[loc.start.line - 1] ?? '').slice(loc.start.column - 1)];
  for (let l = loc.start.line + 1; l < loc.end.line; l++) out.push(lines[l - 1] ?? '');
  out.push((lines[loc.end.line - 1] ?? '').slice(0, loc.end.column - 1));
  return out.join('\n');
}

/** Whitespace collapsed: evidence matches code reformatted around it. */
const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The evidence entry of a mutant, if any: same file, mutator, replacement and replaced text. */
export function evidenceFor(evidence: readonly Evidence[], file: string, mutator: string, replacement: string, original: string): Evidence | undefined {
  return evidence.find((e) => e.file === file && e.mutator === mutator && norm(e.replacement) === norm(replacement) && norm(e.original) === norm(original));
}

export interface Summary {
  readonly byDir: ReadonlyMap<string, Tally>;
  readonly total: Tally;
  /** Every survivor (and mutant without coverage), sorted by file, line, column. */
  readonly survivors: readonly Survivor[];
  /** Evidence entries that match no survivor of a file the reports cover. */
  readonly stale: readonly Evidence[];
}

/** `file` relative to the repository, for a report whose keys are relative to `projectRoot`. */
export type Relative = (report: Report, name: string) => string;

export function summarize(reports: readonly Report[], evidence: readonly Evidence[], relative: Relative): Summary {
  const byDir = new Map<string, Tally>();
  const total = emptyTally();
  const survivors: Survivor[] = [];
  const covered = new Set<string>();
  const used = new Set<Evidence>();
  for (const report of reports) {
    for (const [name, f] of Object.entries(report.files)) {
      const file = relative(report, name);
      covered.add(file);
      const dir = file.slice(0, file.lastIndexOf('/'));
      const t = byDir.get(dir) ?? emptyTally();
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
        if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
        const original = textAt(f.source, m.location);
        const replacement = m.replacement ?? '';
        const e = evidenceFor(evidence, file, m.mutatorName, replacement, original);
        if (e !== undefined) {
          used.add(e);
          t.evidenced += 1;
          total.evidenced += 1;
        }
        survivors.push({ file, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName, replacement, original, evidence: e });
      }
    }
  }
  survivors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { byDir, total, survivors, stale: evidence.filter((e) => covered.has(e.file) && !used.has(e)) };
}

const pct = (n: number, d: number): string => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}%`);

/** The honest score: killed ÷ (killed + survived); a mutant without coverage counts as a survivor. */
export function honestScore(t: Tally): string {
  return pct(t.killed, t.killed + t.survived + t.noCoverage);
}

/** The figures as a Markdown table, per directory and in total. */
export function scoreTable(s: Summary): string {
  const head = '| directory | mutants | killed | timeout | survived | of them evidenced equivalent | compile error | runtime error | ignored | killed ÷ (killed + survived) |';
  const rule = '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
  const row = (name: string, t: Tally): string =>
    `| ${name} | ${t.mutants} | ${t.killed} | ${t.timeout} | ${t.survived + t.noCoverage} | ${t.evidenced} | ${t.compileError} | ${t.runtimeError} | ${t.ignored} | ${honestScore(t)} |`;
  return [head, rule, ...[...s.byDir].sort(([a], [b]) => (a < b ? -1 : 1)).map(([d, t]) => row(d, t)), row('**total**', s.total)].join('\n');
}
