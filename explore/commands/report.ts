/** `sbkit report`: the main job (job.ts `runJob`, the same steps as `npm start`) written as one self-contained HTML file. */
import { intFlag, optional, stringFlag, switchFlag } from '../args.ts';
import { DEFAULT_CHECK_RUNS } from '../budgets.ts';
import { type Command, EXIT, type Reason, exitCodeOf, exitWith, usageError, withArgs } from '../command.ts';
import { renderCriteria } from '../criteria.ts';
import { DEFAULT_REPORT_PATH, DEFAULT_SWEEPS, DEFAULT_SWEEP_INTERVALS, type JobResult, runJob, writeReport } from '../job.ts';
import { modelCheckJson } from '../model-check.ts';
import { describeWriteError, outputFlagProblem } from '../output-paths.ts';
import type { CheckSection, CoverageSection, FaultsSection, GallerySection } from '../report/index.ts';
import { SCENARIO_DEFAULTS, SETUP_FLAGS, SWEEP_FLAG, resolveSetup } from '../setup-flags.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit report';

const { scenario: _scenario, ...SETUP_WITHOUT_SCENARIO } = SETUP_FLAGS;

export const REPORT_FLAGS = {
  ...SETUP_WITHOUT_SCENARIO,
  sweep: { ...SWEEP_FLAG, help: 'sweeps to chart instead of the defaults (threshold and workers); repeatable' },
  'sweep-intervals': intFlag({ help: 'intervals per sweep run', defaultValue: DEFAULT_SWEEP_INTERVALS, min: 1, max: 100_000 }),
  'skip-check': switchFlag('do not run the conformance check (nor the model coverage counted from its runs)'),
  'skip-gallery': switchFlag('do not run the counterexample gallery (each bug found and drawn)'),
  'skip-hydration': switchFlag('do not run the hydration scenario'),
  'hydration-rows': intFlag({ help: 'updates per hydration interval (of ~1000 B each)', defaultValue: SCENARIO_DEFAULTS.hydration.rows, min: 1, max: 1_000_000 }),
  runs: optional(intFlag({ help: 'conformance check runs per variant (below the default, a coverage gap is incomplete: exit 4)', defaultValue: DEFAULT_CHECK_RUNS, min: 1, max: 10_000_000 }), String(DEFAULT_CHECK_RUNS)),
  out: stringFlag({ help: 'where to write the report (missing directories are created)', placeholder: 'PATH', defaultValue: DEFAULT_REPORT_PATH }),
  json: switchFlag('print one JSON object instead of the criteria (docs/reference/report.schema.json): the verdict, the reasons, and every failure with its replay command'),
} as const;

export const REPORT_HELP = {
  usage: USAGE,
  summary:
    'Writes a self-contained HTML report (no network): the comparison table with its done-criteria,\n' +
    "SVG charts, the sweeps, commit latency and a straggler sweep, small writes, the hydration scenario,\n" +
    "the exhaustive model check (sbkit model --check on its defaults), the conformance check's result, the\n" +
    "counterexample gallery as sequence diagrams, the model's transition coverage and its Mermaid diagrams.\n" +
    'Prints the done-criteria and the path. Exit 0 only if every criterion holds, every check passed, every\n' +
    'gallery bug was caught and the coverage has no gap; the headline of the report and the terminal say\n' +
    'what failed.',
};

type Judged = Pick<JobResult, 'criteria' | 'modelCheck' | 'check' | 'faults' | 'gallery' | 'coverage' | 'failures'>;

/** A section that ran (with `fields`) or was skipped (with why), as the JSON says it. */
function section(s: CheckSection | FaultsSection | GallerySection | CoverageSection, fields: () => object): object {
  return s.kind === 'skipped' ? { ran: false, reason: s.reason } : { ran: true, ...fields() };
}

/** `--json`: what a CI job needs from the report, the HTML aside. */
function reportJson(j: Judged, reasons: readonly Reason[], path: string | null, exitCode: number): string {
  const m = modelCheckJson(j.modelCheck) as { exitCode: number; summary: string; reasons: string[]; failures: unknown[] };
  const { check, faults, gallery, coverage } = j;
  return `${JSON.stringify(
    {
      exitCode,
      reasons: reasons.map((r) => r.text),
      path,
      criteria: j.criteria,
      modelCheck: { exitCode: m.exitCode, summary: m.summary, reasons: m.reasons, failures: m.failures },
      check: section(check, () => (check.kind === 'ran' ? { exitCode: check.exitCode, summary: check.summary } : {})),
      faults: section(faults, () => (faults.kind === 'ran' ? { exitCode: faults.check.exitCode, summary: faults.check.summary } : {})),
      failures: j.failures,
      gallery: section(gallery, () => (gallery.kind === 'ran' ? { entries: gallery.entries.map((e) => ({ bug: e.bug, caught: e.sequence !== undefined, summary: e.summary, command: e.command })) } : {})),
      coverage: section(coverage, () => (coverage.kind === 'ran' ? { summary: coverage.result.summary, gaps: coverage.result.gaps } : {})),
    },
    null,
    2,
  )}\n`;
}

export const reportCommand: Command = {
  name: 'report',
  help: REPORT_HELP,
  flags: REPORT_FLAGS,
  summary: 'write the HTML report (tables, SVG charts, check result, model diagrams)',
  run: (argv, io) =>
    withArgs(REPORT_HELP, REPORT_FLAGS, argv, io, async (v) => {
      const resolved = resolveSetup({ ...v, scenario: 'steady' }, v.sweep);
      if (!resolved.ok) return usageError(io, USAGE, resolved.reason);
      const unwritable = outputFlagProblem(io.cwd, [['--out', v.out, { makeDirs: true }]]);
      if (unwritable !== undefined) return usageError(io, USAGE, unwritable);
      const { setup, variants } = resolved.value;
      let job: JobResult;
      try {
        job = await runJob(io, {
          command: ['sbkit report', ...argv].join(' '),
          setup,
          variants,
          runs: v.runs,
          sweeps: v.sweep.length > 0 ? v.sweep : DEFAULT_SWEEPS,
          sweepIntervals: v['sweep-intervals'],
          hydrationRows: v['hydration-rows'],
          skip: {
            check: v['skip-check'] ? '--skip-check was given' : undefined,
            hydration: v['skip-hydration'],
            gallery: v['skip-gallery'] ? '--skip-gallery was given' : undefined,
          },
        });
      } catch (e) {
        return reportRunError(io, USAGE, e);
      }
      const judged: Judged = job;
      const reasons = job.reasons;
      let path: string;
      try {
        path = await writeReport(io, job.report, v.out);
      } catch (e) {
        // Everything ran: say what it found before the write error.
        io.out(v.json ? reportJson(judged, reasons, null, EXIT.internal) : renderCriteria(judged.criteria));
        exitWith(io, USAGE, reasons);
        io.err(`${USAGE}: --out: ${describeWriteError(v.out, e)}\n`);
        return EXIT.internal;
      }
      io.out(v.json ? reportJson(judged, reasons, path, exitCodeOf(reasons)) : `${renderCriteria(judged.criteria)}report written to ${path}\n`);
      return exitWith(io, USAGE, reasons);
    }),
};
