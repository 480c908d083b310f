/** Comparisons and sweeps: which cases a scenario runs, and running them on one shared workload. */
import type { Variant } from '../vocab/index.ts';
import { casesFor } from './cases.ts';
import { type PreparedWorkload, prepareWorkload, runCase } from './experiment.ts';
import { caseLabels } from './render.ts';
import { atSweepPoint, formatParam } from './sweep-params.ts';
import type { Case, Comparison, Figures, Scenario, Setup, SweepResult, SweepSpec } from './types.ts';

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
  /** One run per case and what it depends on: its variant's options, not the other variants' (a sweep
   * of one variant's option runs the other variants once). */
  readonly cases: Map<string, Figures>;
}

export const newRunMemo = (): RunMemo => ({ workloads: new Map(), comparisons: new Map(), cases: new Map() });

/** What a case's run depends on: the setup with only its variant's options. */
function caseKey(scenario: Scenario, setup: Setup, c: Case): string {
  const { variantOptions, ...rest } = setup;
  return JSON.stringify([scenario, rest, variantOptions?.[c.variant] ?? null, c]);
}

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
      const key = caseKey(scenario, setup, c);
      const known = memo.cases.get(key);
      const figures = known ?? (await runCase(setup, c, workload, (f) => progress?.((i + f) / cases.length, label)));
      memo.cases.set(key, figures);
      rows.push(figures);
      progress?.((i + 1) / cases.length, label);
    }
    return { scenario, setup, variants, rows };
  });
}

/** `setup` with the swept parameter at `value` (sweep-params.ts). */
export { atSweepPoint } from './sweep-params.ts';

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
