/**
 * The main job, one sequence of steps for `npm start` (main.ts) and `sbkit report` (`runJob`): the
 * headline comparison, the model check, the conformance check with faults and coverage, the sweeps, the
 * latency and straggler sweep, small writes, hydration and the gallery; then the job's reasons and exit
 * code, and writing the report file. Each step is a function of its own here.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { BUG_NAMES, type BugName, type Variant } from '../vocab/index.ts';
import { BUG_DESCRIPTIONS } from '../impl/bugs.ts';
import { type Reason, exitCodeOf, violation } from './command.ts';
import { type CheckFailure, runConformance } from './commands/check.ts';
import { DEFAULT_CHECK_RUNS } from './budgets.ts';
import { runComparison, runSweeps } from './compare.ts';
import type { Comparison, Setup, SweepResult, SweepSpec } from './types.ts';
import { type Criterion, evaluateCriteria } from './criteria.ts';
import { loadDiagrams } from './diagrams.ts';
import { DEFAULT_MODEL_CHECK, type ModelCheckResult, modelCheckReasons, runModelCheck } from './model-check.ts';
import type { Io } from './io.ts';
import { createProgress, withProgress } from './progress.ts';
import { type CheckSection, type CoverageSection, type FaultsSection, type GalleryEntry, type GallerySection, type LatencySection, type RenderedSection, type ReportData, type SmallWritesSection, renderReport } from './report/index.ts';
import { compareCommand } from './report/context.ts';
import { SCENARIO_DEFAULTS } from './setup-flags.ts';
import { type CoverageCollector, coverageCollector, coverageReasons, coverageResult } from './coverage.ts';
import { modelCounterexampleSequence } from './model-diagram.ts';
import { failureSequence } from './sequence.ts';
import { EXPLORE_VARIANTS, type ExploreVariant } from './variants/index.ts';

/** The gallery's model counterexample: the review bug of #37591, under the first variant whose gallery
 * lists it (vocab VariantMeta.galleryBugs). */
const MODEL_BUG = 'sweep-upgrade-race';
const MODEL_BUG_VARIANT = EXPLORE_VARIANTS.find((v) => v.meta.galleryBugs.includes(MODEL_BUG))?.meta.name as Variant;

export const DEFAULT_REPORT_PATH = 'report/index.html';

/** The sweeps the report shows unless told otherwise. */
export const DEFAULT_SWEEPS: readonly SweepSpec[] = [
  { param: 'threshold', values: [0, 4096, 65536, 1024 * 1024] },
  { param: 'workers', values: [1, 2, 4, 8, 16] },
];

/** Sweeps run on fewer intervals than the headline comparison: ratios settle long before 100. */
export const DEFAULT_SWEEP_INTERVALS = 20;

/**
 * The report's straggler sweep: larger intervals than the headline (500 updates of ~1 KB: ~500 KB per
 * interval, ~62 KB per worker at 8), so the size of one upload shows; 100 intervals so p99 is not the max.
 */
export const DEFAULT_STRAGGLER_SWEEP = { rows: 500, rowBytes: 1000, intervals: 100, probabilities: [0, 0.05, 0.2] } as const;

export interface StragglerSweepOptions {
  readonly rows: number;
  readonly rowBytes: number;
  readonly intervals: number;
  readonly probabilities: readonly number[];
}

/** Latency: the headline's percentiles, and a sweep over the straggler probability. */
export async function runLatency(io: Io, headline: Comparison, variants: readonly Variant[], opts: StragglerSweepOptions = DEFAULT_STRAGGLER_SWEEP): Promise<LatencySection> {
  const base: Setup = { ...headline.setup, rows: opts.rows, rowBytes: opts.rowBytes, intervals: opts.intervals };
  const [stragglers] = await withProgress(io, { title: 'stragglers' }, (update) => runSweeps('steady', base, variants, [{ param: 'stragglers', values: opts.probabilities }], update));
  if (stragglers === undefined) throw new Error('the straggler sweep ran no point');
  return { headline, stragglers };
}

/** The report sections the report's variants add (explore/variants/: a variant's `sections`), each run
 * from the headline's setup and rendered. */
export async function runVariantSections(io: Io, setup: Setup, variants: readonly Variant[], registry: readonly ExploreVariant[] = EXPLORE_VARIANTS, stragglers: StragglerSweepOptions = DEFAULT_STRAGGLER_SWEEP): Promise<RenderedSection[]> {
  const out: RenderedSection[] = [];
  for (const v of registry.filter((x) => variants.includes(x.meta.name))) {
    for (const s of v.sections ?? []) {
      const html = await withProgress(io, { title: s.title }, (progress) => s.render({ setup, variants, progress, compareCommand, stragglers }));
      out.push({ id: s.id, title: s.title, html });
    }
  }
  return out;
}

/** Rows per interval of the report's small-writes table (1000: the PR's "1000-row writes"). */
export const DEFAULT_SMALL_WRITES_ROWS: readonly number[] = [30, 100, 1000];

/** The small-writes scenario on the headline's system, and a sweep over rows per interval. */
export async function runSmallWrites(io: Io, setup: Setup, variants: readonly Variant[], rows: readonly number[] = DEFAULT_SMALL_WRITES_ROWS, intervals?: number): Promise<SmallWritesSection> {
  const d = SCENARIO_DEFAULTS['small-writes'];
  const base: Setup = { ...setup, intervals: intervals ?? d.intervals, rows: d.rows, rowBytes: d.rowBytes };
  return withProgress(io, { title: 'small writes' }, async (update) => {
    const comparison = await runComparison('small-writes', base, variants, (f, l) => update(f / 2, l));
    const [sweep] = await runSweeps('small-writes', base, variants, [{ param: 'rows', values: rows }], (f, l) => update(0.5 + f / 2, l));
    if (sweep === undefined) throw new Error('the small-writes sweep ran no point');
    return { comparison, rows: sweep };
  });
}

/** Every gallery bug found and shrunk by the check (seeded), as a sequence diagram; and the model's review-bug counterexample. */
export async function runGallery(io: Io, seed: number, bugs: readonly BugName[] = BUG_NAMES): Promise<GallerySection> {
  const entries: GalleryEntry[] = [];
  const progress = createProgress(io, { json: false, title: 'gallery' });
  for (const [i, bug] of bugs.entries()) {
    progress.update(i / (bugs.length + 1), bug);
    const r = await runConformance({ variant: 'all', seed, bug });
    const command = `npx sbkit check --bug ${bug} --seed ${seed} --emit-diagram ${bug}.md`;
    const ce = r.counterexample;
    entries.push({
      bug,
      description: BUG_DESCRIPTIONS[bug],
      summary: r.summary.replace(/^sbkit check: /, ''),
      command,
      ...(ce === undefined ? { missing: `the check did not fail (${r.summary}): the bug went unnoticed` } : { sequence: failureSequence(ce.run, ce.token) }),
    });
  }
  progress.update(bugs.length / (bugs.length + 1), 'model');
  const model = await runModelCheck({ ...DEFAULT_MODEL_CHECK, variants: [MODEL_BUG_VARIANT], modelBug: MODEL_BUG }, { now: () => io.now() });
  progress.done();
  const sequence = modelCounterexampleSequence(model);
  return {
    kind: 'ran',
    entries,
    ...(sequence === undefined ? {} : { model: { sequence, command: `npx sbkit model --check --variant ${MODEL_BUG_VARIANT} --model-bug ${MODEL_BUG} --emit-diagram race.md` } }),
  };
}

/** The fault rate of the report's fault section (conformance/faults.ts DEFAULT_FAULT_RATE). */
export const REPORT_FAULT_RATE = 0.1;

/** The fault world: the check with faults on every variant, and the headline comparison with faults. */
export async function runFaults(io: Io, setup: Setup, variants: readonly Variant[], runs: number | undefined, coverage?: CoverageCollector): Promise<Extract<FaultsSection, { kind: 'ran' }> & { readonly reasons: readonly Reason[]; readonly failures: readonly CheckFailure[] }> {
  const r = await runConformance({ variant: 'all', runs, seed: setup.seed, faults: REPORT_FAULT_RATE, onRun: coverage?.onRun }, createProgress(io, { json: false, title: 'check --faults' }));
  const comparison = await withProgress(io, { title: 'compare --faults' }, (update) => runComparison('steady', { ...setup, faults: REPORT_FAULT_RATE }, variants, update));
  const reasons = r.reasons.map((x) => ({ ...x, text: `check --faults ${REPORT_FAULT_RATE}: ${x.text}` }));
  return { kind: 'ran', rate: REPORT_FAULT_RATE, seed: setup.seed, check: { exitCode: r.exitCode, summary: r.summary, variants: r.variants }, comparison, reasons, failures: r.failure === undefined ? [] : [r.failure] };
}

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

/** The conformance check on every variant (`sbkit check --variant all`), as the report shows it; `coverage` sees its runs. */
export async function runReportCheck(io: Io, runs: number | undefined, seed: number, coverage?: CoverageCollector): Promise<Extract<CheckSection, { kind: 'ran' }> & { readonly reasons: readonly Reason[]; readonly failures: readonly CheckFailure[] }> {
  const r = await runConformance({ variant: 'all', runs, seed, onRun: coverage?.onRun }, createProgress(io, { json: false, title: 'check' }));
  return { kind: 'ran', exitCode: r.exitCode, summary: r.summary, output: r.output, reasons: r.reasons.map((x) => ({ ...x, text: `check: ${x.text}` })), failures: r.failure === undefined ? [] : [r.failure] };
}

/**
 * The conformance check, then the fault world (the check with faults and compare with faults), with model
 * coverage counted from the runs of both (`sbkit model --coverage` on the same runs).
 */
export async function runReportCheckWithCoverage(
  io: Io,
  runs: number | undefined,
  setup: Setup,
  variants: readonly Variant[],
): Promise<{ check: Extract<CheckSection, { kind: 'ran' }>; faults: FaultsSection; coverage: CoverageSection; reasons: readonly Reason[]; failures: readonly CheckFailure[] }> {
  const collector = await coverageCollector();
  const check = await runReportCheck(io, runs, setup.seed, collector);
  const faults = await runFaults(io, setup, variants, runs, collector);
  const result = await withProgress(io, { title: 'coverage' }, (update) => coverageResult(collector, setup.seed, update));
  return { check, faults, coverage: { kind: 'ran', result }, reasons: [...check.reasons, ...faults.reasons], failures: [...check.failures, ...faults.failures] };
}

/** What the job judged: each part that ran (omitted or skipped: not judged). */
export interface JobVerdicts {
  readonly criteria: readonly Criterion[];
  readonly modelCheck: ModelCheckResult;
  readonly check: CheckSection;
  /** The checks' own reasons (runReportCheckWithCoverage): failures with their replay tokens. */
  readonly checkReasons?: readonly Reason[];
  readonly gallery?: GallerySection;
  readonly coverage?: CoverageSection;
  /** Conformance runs per variant behind the coverage (default: the check's default budget). */
  readonly runs?: number | undefined;
  readonly faults?: FaultsSection;
}

/**
 * Why the job exits non-zero, one line each with what would change it: a missed done-criterion, a
 * failed check (with its replay command), a model-check violation or incomplete search, a gallery bug
 * the check missed, faults that cost data, a coverage gap. Empty: exit 0.
 */
export function jobReasons(j: JobVerdicts): Reason[] {
  const out: Reason[] = [];
  for (const c of j.criteria.filter((x) => !x.ok)) out.push(violation(`done-criterion missed: ${c.name} (${c.detail}; measured on this workload: --workers, --rows, --row-bytes and --threshold change it, the defaults meet it)`));
  out.push(...modelCheckReasons(j.modelCheck).map((r) => ({ ...r, text: `model check: ${r.text}` })));
  if (j.modelCheck.exitCode !== 0 && modelCheckReasons(j.modelCheck).length === 0) out.push(violation(`model check: ${j.modelCheck.summary}`));
  const given = j.checkReasons ?? [];
  out.push(...given);
  if (j.check.kind === 'ran' && j.check.exitCode !== 0 && !given.some((r) => r.text.startsWith('check: '))) out.push(violation(j.check.summary));
  const f = j.faults;
  if (f?.kind === 'ran') {
    if (f.check.exitCode !== 0 && !given.some((r) => r.text.startsWith('check --faults'))) out.push(violation(`check --faults ${f.rate}: ${f.check.summary}`));
    for (const r of f.comparison.rows.filter((x) => !x.modelAgrees || x.lost + x.duplicated + x.leakedBlobs > 0)) {
      out.push(violation(`compare --faults ${f.rate}: ${r.variant} lost ${r.lost}, duplicated ${r.duplicated}, leaked ${r.leakedBlobs}${r.modelAgrees ? '' : `, the model diverged (${r.modelDetail})`}`));
    }
  }
  if (j.gallery?.kind === 'ran') {
    for (const e of j.gallery.entries.filter((x) => x.sequence === undefined)) out.push(violation(`gallery: ${e.bug} went uncaught (${e.missing ?? 'no counterexample'}; another --seed)`));
  }
  if (j.coverage?.kind === 'ran') out.push(...coverageReasons(j.coverage.result, j.runs ?? DEFAULT_CHECK_RUNS));
  return out;
}

/** The job's exit code: 0 only if nothing in `jobReasons`; 1 with a violation; 4 if only incomplete. */
export function jobExitCode(
  criteria: readonly Criterion[],
  modelCheck: ModelCheckResult,
  check: CheckSection,
  extra: { gallery?: GallerySection; coverage?: CoverageSection; faults?: FaultsSection; runs?: number } = {},
): number {
  return exitCodeOf(jobReasons({ criteria, modelCheck, check, ...extra }));
}

/** What the report shows; the diagrams are loaded when it is written. */
export type ReportInputs = Omit<ReportData, 'diagrams'>;

/** What one run of the job does: the setup, the budgets, and which steps it leaves out (and why). */
export interface JobPlan {
  /** The command that runs it, as the report names it (`npm start`, `sbkit report …`). */
  readonly command: string;
  readonly setup: Setup;
  readonly variants: readonly Variant[];
  /** Conformance runs per variant (default: the check's). */
  readonly runs?: number | undefined;
  readonly sweeps: readonly SweepSpec[];
  readonly sweepIntervals: number;
  /** Updates per hydration interval (default: the hydration scenario's). */
  readonly hydrationRows?: number | undefined;
  /** The straggler sweep (default: DEFAULT_STRAGGLER_SWEEP). */
  readonly stragglers?: StragglerSweepOptions | undefined;
  /** Rows per interval of the small-writes table, and its intervals (defaults: DEFAULT_SMALL_WRITES_ROWS, the scenario's). */
  readonly smallWritesRows?: readonly number[] | undefined;
  readonly smallWritesIntervals?: number | undefined;
  /** The gallery's bugs (default: all). */
  readonly galleryBugs?: readonly BugName[] | undefined;
  /** Steps left out, each with the reason the report gives. */
  readonly skip?: { readonly check?: string | undefined; readonly hydration?: boolean | undefined; readonly gallery?: string | undefined } | undefined;
}

/** Called after the steps whose results a caller prints as it goes (`npm start` does). */
export interface JobNarrator {
  readonly headline?: (comparison: Comparison, criteria: readonly Criterion[]) => void;
  readonly modelCheck?: (result: ModelCheckResult) => void;
  readonly checked?: (check: Extract<CheckSection, { kind: 'ran' }>, faults: FaultsSection, coverage: CoverageSection) => void;
  /** Before the runs only the report shows (sweeps, latency, small writes, hydration, gallery). */
  readonly reportRuns?: () => void;
}

/** What the job judged and what the report shows. */
export interface JobResult {
  readonly report: ReportInputs;
  readonly criteria: readonly Criterion[];
  readonly modelCheck: ModelCheckResult;
  readonly check: CheckSection;
  readonly faults: FaultsSection;
  readonly gallery: GallerySection;
  readonly coverage: CoverageSection;
  /** Every failure the checks found, with its replay token. */
  readonly failures: readonly CheckFailure[];
  /** Why the job exits non-zero (`jobReasons`); empty: exit 0. */
  readonly reasons: readonly Reason[];
}

/** The job's steps in their one order; the report's file is written by the caller (`writeReport`). */
export async function runJob(io: Io, plan: JobPlan, narrate: JobNarrator = {}): Promise<JobResult> {
  const { setup, variants } = plan;
  const { comparison, criteria } = await runHeadline(io, setup, variants);
  narrate.headline?.(comparison, criteria);
  const modelCheck = await runDefaultModelCheck(io);
  narrate.modelCheck?.(modelCheck);
  const skipped = (reason: string) => ({ kind: 'skipped', reason }) as const;
  const checked = plan.skip?.check === undefined ? await runReportCheckWithCoverage(io, plan.runs, setup, variants) : undefined;
  if (checked !== undefined) narrate.checked?.(checked.check, checked.faults, checked.coverage);
  const why = plan.skip?.check ?? '';
  const check: CheckSection = checked?.check ?? skipped(why);
  const faults: FaultsSection = checked?.faults ?? skipped(why);
  const coverage: CoverageSection = checked?.coverage ?? skipped(why);
  narrate.reportRuns?.();
  const sweeps = await runReportSweeps(io, setup, variants, plan.sweeps, plan.sweepIntervals);
  const latency = await runLatency(io, comparison, variants, plan.stragglers);
  const smallWrites = await runSmallWrites(io, setup, variants, plan.smallWritesRows, plan.smallWritesIntervals);
  const variantSections = await runVariantSections(io, setup, variants, EXPLORE_VARIANTS, plan.stragglers);
  const hydration = plan.skip?.hydration === true ? undefined : await runHydration(io, setup, variants, plan.hydrationRows);
  const gallery: GallerySection = plan.skip?.gallery === undefined ? await runGallery(io, setup.seed, plan.galleryBugs) : skipped(plan.skip.gallery);
  const reasons = jobReasons({ criteria, modelCheck, check, checkReasons: checked?.reasons ?? [], gallery, coverage, faults, runs: plan.runs });
  const report: ReportInputs = { command: plan.command, comparison, criteria, sweeps, hydration, check, faults, modelCheck: { kind: 'ran', result: modelCheck }, latency, smallWrites, variantSections, gallery, coverage, reasons };
  return { report, criteria, modelCheck, check, faults, gallery, coverage, failures: checked?.failures ?? [], reasons };
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
