/**
 * The pieces of the main job, shared by `npm start` (main.ts) and `sbkit report`: the headline comparison,
 * the sweeps, the hydration scenario, the model check and the conformance check, the job's exit code, and
 * writing the report file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { Variant } from '../vocab/index.ts';
import { EXIT } from './command.ts';
import { runConformance } from './commands/check.ts';
import { runComparison, runSweeps } from './compare.ts';
import type { Comparison, Setup, SweepResult, SweepSpec } from './types.ts';
import { type Criterion, evaluateCriteria } from './criteria.ts';
import { loadDiagrams } from './diagrams.ts';
import { DEFAULT_MODEL_CHECK, type ModelCheckResult, runModelCheck } from './model-check.ts';
import type { Io } from './io.ts';
import { createProgress, withProgress } from './progress.ts';
import { type CheckSection, type ReportData, renderReport } from './report.ts';
import { SCENARIO_DEFAULTS } from './setup-flags.ts';

export const DEFAULT_REPORT_PATH = 'report/index.html';

/** The sweeps the report shows unless told otherwise. */
export const DEFAULT_SWEEPS: readonly SweepSpec[] = [
  { param: 'threshold', values: [0, 4096, 65536, 1024 * 1024] },
  { param: 'workers', values: [1, 2, 4, 8, 16] },
];

/** Sweeps run on fewer intervals than the headline comparison: ratios settle long before 100. */
export const DEFAULT_SWEEP_INTERVALS = 20;

/** The headline: the steady scenario on `setup`, and the done-criteria evaluated on it. */
export async function runHeadline(io: Io, setup: Setup, variants: readonly Variant[]): Promise<{ comparison: Comparison; criteria: Criterion[] }> {
  const comparison = await withProgress(io, { title: 'compare' }, (update) => runComparison('steady', setup, variants, update));
  return { comparison, criteria: evaluateCriteria(comparison) };
}

/** The report's sweeps: steady, from `setup` on at most `sweepIntervals` intervals. */
export function runReportSweeps(io: Io, setup: Setup, variants: readonly Variant[], sweeps: readonly SweepSpec[], sweepIntervals: number): Promise<SweepResult[]> {
  const base = { ...setup, intervals: Math.min(setup.intervals, sweepIntervals) };
  return withProgress(io, { title: 'sweeps' }, (update) => runSweeps('steady', base, variants, sweeps, update));
}

/** The hydration scenario on the same system: huge intervals, each sharing variant at the threshold and unlimited. */
export function runHydration(io: Io, setup: Setup, variants: readonly Variant[], rows: number = SCENARIO_DEFAULTS.hydration.rows): Promise<Comparison> {
  const d = SCENARIO_DEFAULTS.hydration;
  return withProgress(io, { title: 'hydration' }, (update) => runComparison('hydration', { ...setup, intervals: d.intervals, rows, rowBytes: d.rowBytes }, variants, update));
}

/** The exhaustive model check on its defaults (all variants; well under a second), with a progress bar. */
export function runDefaultModelCheck(io: Io): Promise<ModelCheckResult> {
  return withProgress(io, { title: 'model check' }, (update) => runModelCheck(DEFAULT_MODEL_CHECK, { now: () => io.now(), onProgress: update }));
}

/** The conformance check on every variant (`sbkit check --variant all`), as the report shows it. */
export async function runReportCheck(io: Io, runs: number | undefined, seed: number): Promise<Extract<CheckSection, { kind: 'ran' }>> {
  const r = await runConformance({ variant: 'all', runs, seed }, createProgress(io, { json: false, title: 'check' }));
  return { kind: 'ran', exitCode: r.exitCode, summary: r.summary, output: r.output };
}

/** The job's exit code: ok only if every done-criterion holds and every check that ran passed. */
export function jobExitCode(criteria: readonly Criterion[], modelCheck: ModelCheckResult, check: CheckSection): number {
  const passed = criteria.every((c) => c.ok) && modelCheck.exitCode === 0 && (check.kind === 'skipped' || check.exitCode === 0);
  return passed ? EXIT.ok : EXIT.failed;
}

/** What the report shows; the diagrams are loaded when it is written. */
export type ReportInputs = Omit<ReportData, 'diagrams'>;

/** Writes the report (creating its folder) and returns its path relative to `io.cwd` when inside it. */
export async function writeReport(io: Io, inputs: ReportInputs, out: string): Promise<string> {
  const html = renderReport({ ...inputs, diagrams: await loadDiagrams() });
  const path = resolve(io.cwd, out);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html, 'utf8');
  const rel = relative(io.cwd, path);
  return rel.startsWith('..') ? path : rel;
}
