/**
 * `npm start`, the kit's main job (job.ts `runJob`, the same steps as `sbkit report`): compare the
 * variants on defaults, check the model exhaustively on its small default configuration (`sbkit model
 * --check`, well under a second), check every variant of the implementation against the model on its
 * default budget (and with faults), then the report's own runs; write report/index.html and print its
 * path, each step's result printed as it comes. Exit 0 only if every done-criterion holds and every check passes.
 */
import { VARIANTS } from './variants/index.ts';
import { reportRunError } from './commands/errors.ts';
import { exitWith } from './command.ts';
import { renderComparison } from './render.ts';
import { renderCriteria } from './criteria.ts';
import type { Setup } from './types.ts';
import { type Io, processIo } from './io.ts';
import type { BugName } from '../vocab/index.ts';
import { DEFAULT_REPORT_PATH, DEFAULT_SWEEPS, DEFAULT_SWEEP_INTERVALS, type JobNarrator, type StragglerSweepOptions, runJob, writeReport } from './job.ts';
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

/** What `npm start` prints after each step. */
function narrator(io: Io, seed: number): JobNarrator {
  return {
    headline: (comparison, criteria) => {
      io.out('== compare (npx sbkit compare) ==\n\n');
      io.out(renderComparison(comparison));
      io.out(`\ndone criteria:\n${renderCriteria(criteria)}`);
    },
    modelCheck: (result) => {
      io.out('\n== model check (npx sbkit model --check) ==\n\n');
      io.out(renderModelCheckTable(result));
    },
    checked: (check, faults, coverage) => {
      io.out('\n== check (npx sbkit check --variant all), then with faults (npx sbkit check --faults) ==\n\n');
      io.out(`${check.output}\n${check.summary}\n`);
      if (faults.kind === 'ran') {
        io.out(`${faults.check.summary}\n\n`);
        io.out(renderComparison(faults.comparison));
      }
      io.out(`\n== model coverage of those runs (npx sbkit model --coverage --seed ${seed}) ==\n\n`);
      if (coverage.kind === 'ran') io.out(coverageBrief(coverage.result));
    },
    reportRuns: () => io.out('\n== report (npx sbkit report) ==\n\n'),
  };
}

export async function runMain(io: Io, opts: MainOptions = {}): Promise<number> {
  const setup = opts.setup ?? DEFAULT_SETUP;
  try {
    const job = await runJob(
      io,
      {
        command: 'npm start',
        setup,
        variants: VARIANTS,
        runs: opts.runs,
        sweeps: DEFAULT_SWEEPS,
        sweepIntervals: opts.sweepIntervals ?? DEFAULT_SWEEP_INTERVALS,
        hydrationRows: opts.hydrationRows,
        stragglers: opts.stragglers,
        smallWritesRows: opts.smallWritesRows,
        smallWritesIntervals: opts.smallWritesIntervals,
        galleryBugs: opts.galleryBugs,
      },
      narrator(io, setup.seed),
    );
    const path = await writeReport(io, job.report, opts.out ?? DEFAULT_REPORT_PATH);
    io.out(`report: ${path}\n`);
    return exitWith(io, 'npm start', job.reasons);
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
