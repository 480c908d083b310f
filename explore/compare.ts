/** Comparisons and sweeps: which cases a scenario runs, and running them on one shared workload. */
import type { Variant } from '../vocab/index.ts';
import { casesFor } from './cases.ts';
import { prepareWorkload, runCase } from './experiment.ts';
import { caseLabel, formatParam } from './render.ts';
import type { Comparison, Figures, Scenario, Setup, SweepParam, SweepResult, SweepSpec } from './types.ts';

/** Reports progress as a fraction in [0, 1] of all the work a command will do. */
export type ProgressFn = (fraction: number, label: string) => void;

export async function runComparison(scenario: Scenario, setup: Setup, variants: readonly Variant[], progress?: ProgressFn): Promise<Comparison> {
  const cases = casesFor(scenario, variants, setup.threshold);
  const workload = prepareWorkload(setup);
  const rows: Figures[] = [];
  for (const [i, c] of cases.entries()) {
    const label = caseLabel(c, cases);
    rows.push(await runCase(setup, c, workload, (f) => progress?.((i + f) / cases.length, label)));
    progress?.((i + 1) / cases.length, label);
  }
  return { scenario, setup, variants, rows };
}

export function withParam(setup: Setup, param: SweepParam, value: number): Setup {
  switch (param) {
    case 'threshold':
      return { ...setup, threshold: value };
    case 'workers':
      return { ...setup, workers: value };
    case 'processes':
      return { ...setup, processes: value };
    case 'replicas':
      return { ...setup, replicas: value };
    case 'intervals':
      return { ...setup, intervals: value };
    case 'rows':
      return { ...setup, rows: value };
    case 'row-bytes':
      return { ...setup, rowBytes: value };
  }
}

export async function runSweep(scenario: Scenario, setup: Setup, variants: readonly Variant[], sweep: SweepSpec, progress?: ProgressFn): Promise<SweepResult> {
  const points: { value: number; comparison: Comparison }[] = [];
  const n = sweep.values.length;
  for (const [i, value] of sweep.values.entries()) {
    const label = `${sweep.param}=${formatParam(sweep.param, value)}`;
    const comparison = await runComparison(scenario, withParam(setup, sweep.param, value), variants, (f, l) => progress?.((i + f) / n, `${label} ${l}`));
    points.push({ value, comparison });
  }
  return { param: sweep.param, base: setup, scenario, points };
}
