/**
 * The flags that describe an experiment (shared by `compare` and `report`) and how they resolve into a
 * `Setup`. Scenario-dependent defaults are resolved here, in one place.
 */
import { BUG_NAMES, type BugName, VARIANTS, type Variant } from '../vocab/index.ts';
import {
  type Flag,
  type FlagValues,
  type Parsed,
  bad,
  bytesFlag,
  choiceFlag,
  choiceListFlag,
  good,
  intFlag,
  optional,
} from './args.ts';
import { SCENARIOS, SWEEP_PARAMS, type Scenario, type Setup, type SweepParam, type SweepSpec } from './types.ts';
import { thousands } from './format.ts';

/** Defaults per scenario for the workload flags a scenario changes. */
export const SCENARIO_DEFAULTS: Readonly<Record<Scenario, { readonly intervals: number; readonly rows: number; readonly rowBytes: number }>> = {
  steady: { intervals: 100, rows: 1000, rowBytes: 100 },
  hydration: { intervals: 3, rows: 12_000, rowBytes: 1000 },
};

export const DEFAULT_SEED = 1;
export const DEFAULT_THRESHOLD = 1024 * 1024;
/** Updates per run at most (all intervals): keeps a mistyped flag from exhausting memory. */
export const MAX_UPDATES = 5_000_000;

const BASE = {
  workers: intFlag({ help: 'workers per process (timely -w)', defaultValue: 8, min: 1, max: 128 }),
  processes: intFlag({ help: 'processes per replica (timely -n)', defaultValue: 1, min: 1, max: 16 }),
  replicas: intFlag({ help: 'replicas writing the same shard', defaultValue: 1, min: 1, max: 4 }),
  intervals: intFlag({ help: 'batch intervals', defaultValue: SCENARIO_DEFAULTS.steady.intervals, min: 1, max: 100_000 }),
  rows: intFlag({ help: 'updates per interval, spread over workers by key hash', defaultValue: SCENARIO_DEFAULTS.steady.rows, min: 0, max: MAX_UPDATES }),
  'row-bytes': bytesFlag({ help: 'encoded bytes per update, about', defaultValue: SCENARIO_DEFAULTS.steady.rowBytes, min: 1 }),
  threshold: bytesFlag({ help: 'shared_batch_max_bytes: 0 disables sharing, "unlimited" never falls back', defaultValue: DEFAULT_THRESHOLD, min: 0 }),
  seed: intFlag({ help: 'seed of the workload and the timing model', defaultValue: DEFAULT_SEED, min: 0, max: 0xffff_ffff }),
} as const;

function parseSweep(raw: string): Parsed<SweepSpec> {
  const eq = raw.indexOf('=');
  const name = raw.slice(0, eq < 0 ? raw.length : eq).trim();
  const param = SWEEP_PARAMS.find((p) => p === name);
  if (param === undefined) return bad(`expected PARAM=V1,V2,… with PARAM one of ${SWEEP_PARAMS.join(', ')}, got ${JSON.stringify(raw)}`);
  if (eq < 0 || raw.slice(eq + 1).trim() === '') return bad(`${param}: give at least one value, e.g. ${param}=1,2,4`);
  // Every sweep parameter is one of the base flags, under the same name: its values parse the same way.
  const flag = BASE[param];
  const values: number[] = [];
  for (const part of raw.slice(eq + 1).split(',')) {
    const v = flag.parse(part, flag.defaultValue);
    if (!v.ok) return bad(`${param}=${part}: ${v.reason}`);
    values.push(v.value);
  }
  return good({ param, values });
}

export const SWEEP_FLAG: Flag<readonly SweepSpec[]> = {
  help: `run a series over one parameter (${SWEEP_PARAMS.join(', ')}); repeatable`,
  placeholder: 'PARAM=V1,V2,…',
  takesValue: true,
  repeatable: true,
  defaultValue: [],
  parse: (raw, prev) => {
    const s = parseSweep(raw);
    if (!s.ok) return s;
    if (prev.some((p) => p.param === s.value.param)) return bad(`${s.value.param} is swept twice`);
    return good([...prev, s.value]);
  },
};

export const SETUP_FLAGS = {
  workers: BASE.workers,
  processes: BASE.processes,
  replicas: BASE.replicas,
  intervals: optional(BASE.intervals, `${SCENARIO_DEFAULTS.steady.intervals}; hydration: ${SCENARIO_DEFAULTS.hydration.intervals}`),
  rows: optional(BASE.rows, `${SCENARIO_DEFAULTS.steady.rows}; hydration: ${SCENARIO_DEFAULTS.hydration.rows}`),
  'row-bytes': optional(BASE['row-bytes'], `${SCENARIO_DEFAULTS.steady.rowBytes}; hydration: ${SCENARIO_DEFAULTS.hydration.rowBytes}`),
  threshold: BASE.threshold,
  seed: BASE.seed,
  variants: choiceListFlag<Variant>({ help: 'variants to run, comma-separated', choices: VARIANTS, defaultValue: VARIANTS }),
  scenario: choiceFlag({ help: 'steady: the PR workload; hydration: a few huge intervals, threshold vs unlimited', choices: SCENARIOS, defaultValue: 'steady' }),
  bug: optional(choiceFlag<BugName>({ help: 'switch on a bug of the gallery (see sbkit bugs)', choices: BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' })),
} as const;

export interface ResolvedSetup {
  readonly scenario: Scenario;
  readonly setup: Setup;
  readonly variants: readonly Variant[];
}

/** Applies scenario defaults and cross-flag limits. An error names the flags involved. */
export function resolveSetup(v: FlagValues<typeof SETUP_FLAGS>, sweeps: readonly SweepSpec[] = []): Parsed<ResolvedSetup> {
  const d = SCENARIO_DEFAULTS[v.scenario];
  const setup: Setup = {
    replicas: v.replicas,
    processes: v.processes,
    workers: v.workers,
    intervals: v.intervals ?? d.intervals,
    rows: v.rows ?? d.rows,
    rowBytes: v['row-bytes'] ?? d.rowBytes,
    threshold: v.threshold,
    seed: v.seed,
    bug: v.bug,
  };
  const maxOf = (param: SweepParam, base: number) => Math.max(base, ...sweeps.filter((s) => s.param === param).flatMap((s) => s.values));
  const updates = maxOf('intervals', setup.intervals) * maxOf('rows', setup.rows);
  if (updates > MAX_UPDATES) {
    return bad(`--intervals × --rows: at most ${thousands(MAX_UPDATES)} updates per run, got ${thousands(updates)}`);
  }
  return good({ scenario: v.scenario, setup, variants: v.variants });
}
