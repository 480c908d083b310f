/**
 * The pieces of the main job, shared by `npm start` (main.ts) and `sbkit report`: the default sweeps,
 * the hydration scenario, the model check, and writing the report file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { Variant } from '../vocab/index.ts';
import { runComparison, runSweep } from './compare.ts';
import type { Comparison, Setup, SweepResult, SweepSpec } from './types.ts';
import type { Criterion } from './criteria.ts';
import { loadDiagrams } from './diagrams.ts';
import { DEFAULT_MODEL_CHECK, type ModelCheckResult, runModelCheck } from './model-check.ts';
import type { Io } from './io.ts';
import { createProgress } from './progress.ts';
import { type CheckSection, type ModelCheckSection, renderReport } from './report.ts';
import { SCENARIO_DEFAULTS } from './setup-flags.ts';

export const DEFAULT_REPORT_PATH = 'report/index.html';

/** The sweeps the report shows unless told otherwise. */
export const DEFAULT_SWEEPS: readonly SweepSpec[] = [
  { param: 'threshold', values: [0, 4096, 65536, 1024 * 1024] },
  { param: 'workers', values: [1, 2, 4, 8, 16] },
];

/** Sweeps run on fewer intervals than the headline comparison: ratios settle long before 100. */
export const DEFAULT_SWEEP_INTERVALS = 20;

export async function runSweeps(io: Io, setup: Setup, variants: readonly Variant[], sweeps: readonly SweepSpec[], sweepIntervals: number): Promise<SweepResult[]> {
  const progress = createProgress(io, { json: false, title: 'sweeps' });
  const out: SweepResult[] = [];
  const base = { ...setup, intervals: Math.min(setup.intervals, sweepIntervals) };
  for (const [i, s] of sweeps.entries()) {
    out.push(await runSweep('steady', base, variants, s, (f, label) => progress.update((i + f) / sweeps.length, label)));
  }
  progress.done();
  return out;
}

/** The hydration scenario on the same system: huge intervals, each sharing variant at the threshold and unlimited. */
export async function runHydration(io: Io, setup: Setup, variants: readonly Variant[], rows: number = SCENARIO_DEFAULTS.hydration.rows): Promise<Comparison> {
  const progress = createProgress(io, { json: false, title: 'hydration' });
  const d = SCENARIO_DEFAULTS.hydration;
  const c = await runComparison('hydration', { ...setup, intervals: d.intervals, rows, rowBytes: d.rowBytes }, variants, (f, l) => progress.update(f, l));
  progress.done();
  return c;
}

/** The exhaustive model check on its defaults (all variants; well under a second), with a progress bar. */
export async function runDefaultModelCheck(io: Io): Promise<ModelCheckResult> {
  const progress = createProgress(io, { json: false, title: 'model check' });
  const r = await runModelCheck(DEFAULT_MODEL_CHECK, { now: () => io.now(), onProgress: (f, l) => progress.update(f, l) });
  progress.done();
  return r;
}

export interface ReportInputs {
  readonly command: string;
  readonly comparison: Comparison;
  readonly criteria: readonly Criterion[];
  readonly sweeps: readonly SweepResult[];
  readonly hydration: Comparison | undefined;
  readonly check: CheckSection;
  readonly modelCheck?: ModelCheckSection;
}

/** Writes the report (creating its folder) and returns its path relative to `io.cwd` when inside it. */
export async function writeReport(io: Io, inputs: ReportInputs, out: string): Promise<string> {
  const html = renderReport({ ...inputs, diagrams: await loadDiagrams() });
  const path = resolve(io.cwd, out);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html, 'utf8');
  const rel = relative(io.cwd, path);
  return rel.startsWith('..') ? path : rel;
}
