/** `sbkit report`: compare, sweeps, hydration, check and the model's diagrams in one self-contained HTML file. */
import { intFlag, optional, stringFlag, switchFlag } from '../args.ts';
import { type Command, usageError, withArgs } from '../command.ts';
import { renderCriteria } from '../criteria.ts';
import {
  DEFAULT_REPORT_PATH,
  DEFAULT_SWEEPS,
  DEFAULT_SWEEP_INTERVALS,
  jobExitCode,
  runDefaultModelCheck,
  runGallery,
  runHeadline,
  runHydration,
  runLatency,
  runReportCheckWithCoverage,
  runReportSweeps,
  runSmallWrites,
  writeReport,
} from '../job.ts';
import type { CoverageSection, GallerySection } from '../report-sections.ts';
import type { CheckSection } from '../report.ts';
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
  runs: optional(intFlag({ help: 'conformance check runs per variant', defaultValue: 300, min: 1, max: 10_000_000 }), 'conformance DEFAULT_RUNS'),
  out: stringFlag({ help: 'where to write the report', placeholder: 'PATH', defaultValue: DEFAULT_REPORT_PATH }),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Writes a self-contained HTML report (no network): the comparison table with its done-criteria,\n' +
    "SVG charts, the sweeps, commit latency and a straggler sweep, small writes, the hydration scenario,\n" +
    "the exhaustive model check (sbkit model --check on its defaults), the conformance check's result, the\n" +
    "counterexample gallery as sequence diagrams, the model's transition coverage and its Mermaid diagrams.\n" +
    'Prints the path.',
};

export const reportCommand: Command = {
  name: 'report',
  summary: 'write the HTML report (tables, SVG charts, check result, model diagrams)',
  run: (argv, io) =>
    withArgs(HELP, REPORT_FLAGS, argv, io, async (v) => {
      const resolved = resolveSetup({ ...v, scenario: 'steady' }, v.sweep);
      if (!resolved.ok) return usageError(io, USAGE, resolved.reason);
      const { setup, variants } = resolved.value;
      try {
        const { comparison, criteria } = await runHeadline(io, setup, variants);
        const sweeps = await runReportSweeps(io, setup, variants, v.sweep.length > 0 ? v.sweep : DEFAULT_SWEEPS, v['sweep-intervals']);
        const hydration = v['skip-hydration'] ? undefined : await runHydration(io, setup, variants, v['hydration-rows']);
        const latency = await runLatency(io, comparison, variants);
        const smallWrites = await runSmallWrites(io, setup, variants);
        const checked = v['skip-check'] ? undefined : await runReportCheckWithCoverage(io, v.runs, setup.seed);
        const check: CheckSection = checked?.check ?? { kind: 'skipped', reason: '--skip-check was given' };
        const coverage: CoverageSection = checked?.coverage ?? { kind: 'skipped', reason: '--skip-check was given' };
        const gallery: GallerySection = v['skip-gallery'] ? { kind: 'skipped', reason: '--skip-gallery was given' } : await runGallery(io, setup.seed);
        const modelCheck = await runDefaultModelCheck(io);
        const path = await writeReport(
          io,
          { command: ['sbkit report', ...argv].join(' '), comparison, criteria, sweeps, hydration, check, modelCheck: { kind: 'ran', result: modelCheck }, latency, smallWrites, gallery, coverage },
          v.out,
        );
        io.out(renderCriteria(criteria));
        io.out(`report written to ${path}\n`);
        return jobExitCode(criteria, modelCheck, check, { gallery, coverage });
      } catch (e) {
        return reportRunError(io, USAGE, e);
      }
    }),
};

