/** Comparisons and sweeps: which cases a scenario runs, and running them on one shared workload. */
import type { Variant } from '../vocab/index.ts';
import { casesFor } from './cases.ts';
import { type PreparedWorkload, prepareWorkload, runCase } from './experiment.ts';
import { caseLabels, formatParam } from './render.ts';
import { DEFAULT_STRAGGLER_SLOWDOWN } from './timing.ts';
import type { Comparison, Figures, Scenario, Setup, SweepParam, SweepResult, SweepSpec } from './types.ts';

/** Reports progress as a fraction in [0, 1] of all the work a command will do. */
export type ProgressFn = (fraction: number, label: string) => void;

/**
 * What the comparisons of one command share, so nothing is done twice: a workload is generated once per
 * shape, and a comparison runs once per scenario, setup and variants (e.g. the report's threshold and
 * workers sweeps meet at the defaults). Runs are deterministic, so reusing one changes no figure.
 */
export interface RunMemo {
  readonly workloads: Map<string, PreparedWorkload>;
  readonly comparisons: Map<string, Promise<Comparison>>;
}

export const newRunMemo = (): RunMemo => ({ workloads: new Map(), comparisons: new Map() });

function remembered<T>(known: Map<string, T>, key: string, make: () => T): T {
  const found = known.get(key);
  if (found !== undefined) return found;
  const made = make();
  known.set(key, made);
  return made;
}

export function runComparison(
  scenario: Scenario,
  setup: Setup,
  variants: readonly Variant[],
  progress?: ProgressFn,
  memo: RunMemo = newRunMemo(),
): Promise<Comparison> {
  return remembered(memo.comparisons, JSON.stringify([scenario, setup, variants]), async () => {
    const cases = casesFor(scenario, variants, setup.threshold, setup.noData);
    const labels = caseLabels(cases);
    // The workload depends on these fields of the setup alone (experiment.ts prepareWorkload).
    const workload = remembered(memo.workloads, JSON.stringify([setup.seed, setup.intervals, setup.rows, setup.rowBytes]), () => prepareWorkload(setup));
    const rows: Figures[] = [];
    for (const [i, c] of cases.entries()) {
      const label = labels[i] ?? c.variant;
      rows.push(await runCase(setup, c, workload, (f) => progress?.((i + f) / cases.length, label)));
      progress?.((i + 1) / cases.length, label);
    }
    return { scenario, setup, variants, rows };
  });
}

/** The field of `Setup` each numeric sweep parameter sets. */
const SWEPT_FIELD = {
  threshold: 'threshold',
  workers: 'workers',
  processes: 'processes',
  replicas: 'replicas',
  intervals: 'intervals',
  rows: 'rows',
  'row-bytes': 'rowBytes',
} as const satisfies Record<Exclude<SweepParam, 'stragglers'>, keyof Setup>;

/** `setup` with the swept parameter at `value`. `stragglers` sweeps the probability; the slowdown stays (default 100). */
export function atSweepPoint(setup: Setup, param: SweepParam, value: number): Setup {
  if (param !== 'stragglers') return { ...setup, [SWEPT_FIELD[param]]: value };
  const { stragglers: _drop, ...rest } = setup;
  return value === 0 ? rest : { ...rest, stragglers: { probability: value, slowdown: setup.stragglers?.slowdown ?? DEFAULT_STRAGGLER_SLOWDOWN } };
}

async function runSweep(scenario: Scenario, setup: Setup, variants: readonly Variant[], sweep: SweepSpec, progress: ProgressFn, memo: RunMemo): Promise<SweepResult> {
  const points: { value: number; comparison: Comparison }[] = [];
  const n = sweep.values.length;
  for (const [i, value] of sweep.values.entries()) {
    const label = `${sweep.param}=${formatParam(sweep.param, value)}`;
    const point = atSweepPoint(setup, sweep.param, value);
    const comparison = await runComparison(scenario, point, variants, (f, l) => progress((i + f) / n, `${label} ${l}`), memo);
    points.push({ value, comparison });
  }
  return { param: sweep.param, base: setup, scenario, points };
}

/** Runs each sweep from `setup`; a point two sweeps share (or a repeated value) runs once. */
export async function runSweeps(scenario: Scenario, setup: Setup, variants: readonly Variant[], sweeps: readonly SweepSpec[], progress?: ProgressFn): Promise<SweepResult[]> {
  const memo = newRunMemo();
  const out: SweepResult[] = [];
  for (const [i, s] of sweeps.entries()) {
    out.push(await runSweep(scenario, setup, variants, s, (f, label) => progress?.((i + f) / sweeps.length, label), memo));
  }
  return out;
}
