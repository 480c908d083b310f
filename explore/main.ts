/**
 * `npm start`, the kit's main job: compare the three variants on defaults, check the model exhaustively
 * on its small default configuration (`sbkit model --check`, well under a second), check every variant
 * of the implementation against the model on its default budget, then write report/index.html and print
 * its path. Exit 0 only if every done-criterion holds and both checks pass.
 */
import { VARIANTS } from './variants/index.ts';
import { reportRunError } from './commands/errors.ts';
import { exitWith } from './command.ts';
import { renderComparison } from './render.ts';
import { renderCriteria } from './criteria.ts';
import type { Setup } from './types.ts';
import { type Io, processIo } from './io.ts';
import type { BugName } from '../vocab/index.ts';
import {
  DEFAULT_REPORT_PATH,
  DEFAULT_SWEEPS,
  DEFAULT_SWEEP_INTERVALS,
  type StragglerSweepOptions,
  jobReasons,
  runDefaultModelCheck,
  runGallery,
  runHeadline,
  runHydration,
  runLatency,
  runReportCheckWithCoverage,
  runReportSweeps,
  runSmallWrites,
  runVariantSections,
  writeReport,
} from './job.ts';
import type { renderCoverage } from './coverage.ts';
import { renderModelCheckTable } from './model-check.ts';
import { DEFAULT_SEED, DEFAULT_THRESHOLD, SCENARIO_DEFAULTS } from './setup-flags.ts';

export const DEFAULT_SETUP: Setup = {
  replicas: 1,
  processes: 1,
  workers: 8,
  ...SCENARIO_DEFAULTS.steady,
  threshold: DEFAULT_THRESHOLD,
  seed: DEFAULT_SEED,
};

export interface MainOptions {
  readonly setup?: Setup;
  /** Conformance runs per variant (default: conformance's DEFAULT_RUNS). */
  readonly runs?: number;
  readonly out?: string;
  readonly sweepIntervals?: number;
  /** Updates per hydration interval (default: the hydration scenario's). */
  readonly hydrationRows?: number;
  /** The straggler sweep (default: job.ts DEFAULT_STRAGGLER_SWEEP). */
  readonly stragglers?: StragglerSweepOptions;
  /** Rows per interval of the small-writes table, and its intervals (defaults: job.ts, the scenario's). */
  readonly smallWritesRows?: readonly number[];
  readonly smallWritesIntervals?: number;
  /** The gallery's bugs (default: all). */
  readonly galleryBugs?: readonly BugName[];
}

export async function runMain(io: Io, opts: MainOptions = {}): Promise<number> {
  const setup = opts.setup ?? DEFAULT_SETUP;
  try {
    io.out('== compare (npx sbkit compare) ==\n\n');
    const { comparison, criteria } = await runHeadline(io, setup, VARIANTS);
    io.out(renderComparison(comparison));
    io.out(`\ndone criteria:\n${renderCriteria(criteria)}`);

    io.out('\n== model check (npx sbkit model --check) ==\n\n');
    const modelCheck = await runDefaultModelCheck(io);
    io.out(renderModelCheckTable(modelCheck));

    io.out('\n== check (npx sbkit check --variant all), then with faults (npx sbkit check --faults) ==\n\n');
    const { check, faults, coverage, reasons: checkReasons } = await runReportCheckWithCoverage(io, opts.runs, setup, VARIANTS);
    io.out(`${check.output}\n${check.summary}\n`);
    if (faults.kind === 'ran') {
      io.out(`${faults.check.summary}\n\n`);
      io.out(renderComparison(faults.comparison));
    }

    io.out(`\n== model coverage of those runs (npx sbkit model --coverage --seed ${setup.seed}) ==\n\n`);
    if (coverage.kind === 'ran') io.out(coverageBrief(coverage.result));

    io.out('\n== report (npx sbkit report) ==\n\n');
    const sweeps = await runReportSweeps(io, setup, VARIANTS, DEFAULT_SWEEPS, opts.sweepIntervals ?? DEFAULT_SWEEP_INTERVALS);
    const latency = await runLatency(io, comparison, VARIANTS, opts.stragglers);
    const smallWrites = await runSmallWrites(io, setup, VARIANTS, opts.smallWritesRows, opts.smallWritesIntervals);
    const variantSections = await runVariantSections(io, setup, VARIANTS);
    const hydration = await runHydration(io, setup, VARIANTS, opts.hydrationRows);
    const gallery = await runGallery(io, setup.seed, opts.galleryBugs);
    const reasons = jobReasons({ criteria, modelCheck, check, checkReasons, gallery, coverage, faults, runs: opts.runs });
    const path = await writeReport(
      io,
      { command: 'npm start', comparison, criteria, sweeps, hydration, check, faults, modelCheck: { kind: 'ran', result: modelCheck }, latency, smallWrites, variantSections, gallery, coverage, reasons },
      opts.out ?? DEFAULT_REPORT_PATH,
    );
    io.out(`report: ${path}\n`);
    return exitWith(io, 'npm start', reasons);
  } catch (e) {
    return reportRunError(io, 'npm start', e);
  }
}

/** The coverage's summary line, after whatever was never taken without an explanation by variant or model bug (once per transition). */
function coverageBrief(r: Parameters<typeof renderCoverage>[0]): string {
  const lines = r.rows.flatMap((row) => {
    const vs = r.variants.filter((v) => row.cells[v]?.verdict === 'gap' || row.cells[v]?.verdict === 'unreached');
    const first = vs[0];
    return first === undefined ? [] : [`  never taken (${vs.join(', ')}): ${row.machine}: ${row.transition} — ${row.cells[first]?.why ?? ''}`];
  });
  return `${[...lines, r.summary].join('\n')}\n`;
}

// Run only as a script (tsx explore/main.ts), not when imported by tests.
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  process.exitCode = await runMain(processIo());
}
