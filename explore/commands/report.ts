/** `sbkit report`: compare, sweeps, hydration, check and the model's diagrams in one self-contained HTML file. */
import { intFlag, optional, stringFlag, switchFlag } from '../args.ts';
import { type Command, usageError, withArgs } from '../command.ts';
import { renderCriteria } from '../criteria.ts';
import { DEFAULT_REPORT_PATH, DEFAULT_SWEEPS, DEFAULT_SWEEP_INTERVALS, jobExitCode, runDefaultModelCheck, runHeadline, runHydration, runReportCheck, runReportSweeps, writeReport } from '../job.ts';
import type { CheckSection } from '../report.ts';
import { SCENARIO_DEFAULTS, SETUP_FLAGS, SWEEP_FLAG, resolveSetup } from '../setup-flags.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit report';

const { scenario: _scenario, ...SETUP_WITHOUT_SCENARIO } = SETUP_FLAGS;

export const REPORT_FLAGS = {
  ...SETUP_WITHOUT_SCENARIO,
  sweep: { ...SWEEP_FLAG, help: 'sweeps to chart instead of the defaults (threshold and workers); repeatable' },
  'sweep-intervals': intFlag({ help: 'intervals per sweep run', defaultValue: DEFAULT_SWEEP_INTERVALS, min: 1, max: 100_000 }),
  'skip-check': switchFlag('do not run the conformance check'),
  'skip-hydration': switchFlag('do not run the hydration scenario'),
  'hydration-rows': intFlag({ help: 'updates per hydration interval (of ~1000 B each)', defaultValue: SCENARIO_DEFAULTS.hydration.rows, min: 1, max: 1_000_000 }),
  runs: optional(intFlag({ help: 'conformance check runs per variant', defaultValue: 300, min: 1, max: 10_000_000 }), 'conformance DEFAULT_RUNS'),
  out: stringFlag({ help: 'where to write the report', placeholder: 'PATH', defaultValue: DEFAULT_REPORT_PATH }),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Writes a self-contained HTML report (no network): the comparison table with its done-criteria,\n' +
    "SVG charts, the sweeps, the hydration scenario, the exhaustive model check (sbkit model --check on\n" +
    "its defaults), the conformance check's result and the model's Mermaid diagrams. Prints the path.",
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
        const check: CheckSection = v['skip-check'] ? { kind: 'skipped', reason: '--skip-check was given' } : await runReportCheck(io, v.runs, setup.seed);
        const modelCheck = await runDefaultModelCheck(io);
        const path = await writeReport(io, { command: ['sbkit report', ...argv].join(' '), comparison, criteria, sweeps, hydration, check, modelCheck: { kind: 'ran', result: modelCheck } }, v.out);
        io.out(renderCriteria(criteria));
        io.out(`report written to ${path}\n`);
        return jobExitCode(criteria, modelCheck, check);
      } catch (e) {
        return reportRunError(io, USAGE, e);
      }
    }),
};

