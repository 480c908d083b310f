/**
 * The flags that describe an experiment (shared by `compare` and `report`) and how they resolve into a
 * `Setup`. Scenario-dependent defaults are resolved here, in one place.
 */
import { BUG_NAMES, type BugName, NO_DATA_POLICIES, type NoDataPolicy, type Variant } from '../vocab/index.ts';
import { VARIANTS } from './variants/index.ts';
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
  rateFlag,
} from './args.ts';
import { SCENARIOS, type FixedSweepParam, type Scenario, type Setup, type Stragglers, type SweepParam, type SweepSpec } from './types.ts';
import { optionParam, sweepParamNames, sweptVariant } from './sweep-params.ts';
import { thousands } from './format.ts';
import { DEFAULT_STRAGGLER_SLOWDOWN } from './timing.ts';
import { OPTION_FLAGS, VARIANT_OPTION_FLAGS, optionFlag, optionsFromFlags, type OptionFlag } from './variant-options.ts';

/** Defaults per scenario for the workload flags a scenario changes. */
export const SCENARIO_DEFAULTS: Readonly<Record<Scenario, { readonly intervals: number; readonly rows: number; readonly rowBytes: number }>> = {
  steady: { intervals: 100, rows: 1000, rowBytes: 100 },
  hydration: { intervals: 3, rows: 12_000, rowBytes: 1000 },
  // ~2.5 KB per worker at 8 workers: below persist's 4 KiB inline limit for every worker, while the
  // process's shared batch (~20 KB) is not. 40 intervals keep off's inline bytes in state (~800 KB; nothing
  // compacts here) below the 1 MiB inline backpressure limit, which would flush them to blob.
  'small-writes': { intervals: 40, rows: 1000, rowBytes: 20 },
};

export const DEFAULT_SEED = 1;
export const DEFAULT_THRESHOLD = 1024 * 1024;
/** Updates per run at most (all intervals): keeps a mistyped flag from exhausting memory. */
export const MAX_UPDATES = 5_000_000;

/** A probability: a decimal number from 0 to 1, or a percentage (`0.05`, `5%`). */
function parseProbability(raw: string): Parsed<number> {
  const t = raw.trim();
  const pct = t.endsWith('%');
  const digits = pct ? t.slice(0, -1).trim() : t;
  const n = Number(digits) / (pct ? 100 : 1);
  if (!/^\d*\.?\d+$/.test(digits) || !(n >= 0 && n <= 1)) return bad(`expected a probability from 0 to 1 (or 0% to 100%), got ${JSON.stringify(raw)}`);
  return good(n);
}

/** The most a straggler may be slowed down (keeps virtual time finite and readable). */
export const MAX_STRAGGLER_SLOWDOWN = 100_000;

/** `P` or `P,SLOWDOWN`: the straggler probability per worker and description, and how much slower a straggler is. */
export function parseStragglers(raw: string): Parsed<Stragglers> {
  const [p = '', slowdown, ...rest] = raw.split(',');
  if (rest.length > 0) return bad(`expected P or P,SLOWDOWN (e.g. 0.05,100), got ${JSON.stringify(raw)}`);
  const probability = parseProbability(p);
  if (!probability.ok) return probability;
  if (slowdown === undefined) return good({ probability: probability.value, slowdown: DEFAULT_STRAGGLER_SLOWDOWN });
  const s = Number(slowdown.trim());
  if (!/^\d*\.?\d+$/.test(slowdown.trim()) || !(s >= 1 && s <= MAX_STRAGGLER_SLOWDOWN)) {
    return bad(`SLOWDOWN: expected a factor from 1 to ${thousands(MAX_STRAGGLER_SLOWDOWN)}, got ${JSON.stringify(slowdown)}`);
  }
  return good({ probability: probability.value, slowdown: s });
}

const STRAGGLERS_HELP =
  `stragglers: each worker is, per description, a straggler with probability P (0.05 or 5%); a straggler becomes ready ` +
  `SLOWDOWN times later (default ${DEFAULT_STRAGGLER_SLOWDOWN}: its readiness draw, mean 0.25 ms, then has mean 25 ms)`;

/** The flag behind `--sweep stragglers=P1,P2,…`: the probability (the slowdown comes from --stragglers). */
const STRAGGLER_PROBABILITY: Flag<number> = {
  help: 'straggler probability',
  placeholder: 'P',
  takesValue: true,
  repeatable: false,
  defaultValue: 0,
  parse: (raw) => parseProbability(raw),
};

const BASE = {
  workers: intFlag({ help: 'workers per process (timely -w)', defaultValue: 8, min: 1, max: 128 }),
  processes: intFlag({ help: 'processes per replica (timely -n)', defaultValue: 1, min: 1, max: 16 }),
  replicas: intFlag({ help: 'replicas writing the same shard', defaultValue: 1, min: 1, max: 4 }),
  intervals: intFlag({ help: 'batch intervals', defaultValue: SCENARIO_DEFAULTS.steady.intervals, min: 1, max: 100_000 }),
  rows: intFlag({ help: 'updates per interval, spread over workers by key hash', defaultValue: SCENARIO_DEFAULTS.steady.rows, min: 0, max: MAX_UPDATES }),
  'row-bytes': bytesFlag({ help: 'encoded bytes per update, about', defaultValue: SCENARIO_DEFAULTS.steady.rowBytes, min: 1 }),
  threshold: bytesFlag({ help: 'shared_batch_max_bytes: 0 disables sharing, "unlimited" never falls back', defaultValue: DEFAULT_THRESHOLD, min: 0 }),
  seed: intFlag({ help: 'seed of the workload and the timing model', defaultValue: DEFAULT_SEED, min: 0, max: 0xffff_ffff }),
  stragglers: STRAGGLER_PROBABILITY,
} as const;

/** `PARAM=V1,V2,…`: a fixed parameter or a variant's option (`flags`: the registered variants' options). */
export function parseSweep(raw: string, flags: readonly OptionFlag[] = OPTION_FLAGS): Parsed<SweepSpec> {
  const eq = raw.indexOf('=');
  const name = raw.slice(0, eq < 0 ? raw.length : eq).trim();
  const param = sweepParamNames(flags).find((p) => p === name);
  if (param === undefined) return bad(`expected PARAM=V1,V2,… with PARAM one of ${sweepParamNames(flags).join(', ')}, got ${JSON.stringify(raw)}`);
  const option = optionParam(param, flags);
  if (eq < 0 || raw.slice(eq + 1).trim() === '') return bad(`${param}: give at least one value, e.g. ${param}=${option === undefined ? '1,2,4' : '0,5ms'}`);
  // Every sweep parameter is one of the flags, under the same name (a fixed one of the base flags, a
  // variant's option its option flag): its values parse the same way.
  const flag: Flag<number> = option === undefined ? BASE[param as FixedSweepParam] : { ...optionFlag(option), defaultValue: option.spec.default } as Flag<number>;
  const values: number[] = [];
  for (const part of raw.slice(eq + 1).split(',')) {
    const v = flag.parse(part, flag.defaultValue);
    if (!v.ok) return bad(`${param}=${part}: ${v.reason}`);
    values.push(v.value);
  }
  return good({ param, values });
}

export const SWEEP_FLAG: Flag<readonly SweepSpec[]> = {
  help: `run a series over one parameter (${sweepParamNames().join(', ')}; a variant's option sweeps that variant's runs); repeatable`,
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

/** How a scenario-dependent default reads in help: `100; hydration: 3; small-writes: 100`. */
function scenarioDefaults(field: 'intervals' | 'rows' | 'rowBytes'): string {
  return SCENARIOS.map((sc) => (sc === 'steady' ? `${SCENARIO_DEFAULTS[sc][field]}` : `${sc}: ${SCENARIO_DEFAULTS[sc][field]}`)).join('; ');
}

const FIXED_SETUP_FLAGS = {
  workers: BASE.workers,
  processes: BASE.processes,
  replicas: BASE.replicas,
  intervals: optional(BASE.intervals, scenarioDefaults('intervals')),
  rows: optional(BASE.rows, scenarioDefaults('rows')),
  'row-bytes': optional(BASE['row-bytes'], scenarioDefaults('rowBytes')),
  threshold: BASE.threshold,
  seed: BASE.seed,
  stragglers: optional<Stragglers>({
    help: STRAGGLERS_HELP,
    placeholder: 'P[,SLOWDOWN]',
    takesValue: true,
    repeatable: false,
    defaultValue: { probability: 0, slowdown: DEFAULT_STRAGGLER_SLOWDOWN },
    parse: (raw) => parseStragglers(raw),
  }, 'none'),
  variants: choiceListFlag<Variant>({ help: 'variants to run, comma-separated', choices: VARIANTS, defaultValue: VARIANTS }),
  scenario: choiceFlag({ help: 'steady: the PR workload; hydration: a few huge intervals, threshold vs unlimited; small-writes: per-worker data below the inline limit', choices: SCENARIOS, defaultValue: 'steady' }),
  bug: optional(choiceFlag<BugName>({ help: 'switch on a bug of the gallery (see sbkit bugs)', choices: BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' })),
  'no-data': choiceFlag<NoDataPolicy | 'default' | 'both'>({
    help:
      "what a worker with no data for a shared interval does: skip (nothing; a skip under the barrier), finish (opens a handle on the shared id and finishes it empty, as #37591's doc asks), " +
      'default (finish under the barrier, skip otherwise), or both (each sharing variant under skip and under finish, side by side: what each costs)',
    choices: ['default', ...NO_DATA_POLICIES, 'both'],
    defaultValue: 'default',
  }),
  faults: rateFlag({
    help: 'storage faults at RATE per call (transient RATE, permanent RATE/20, indeterminate RATE/4 of writes) and replica crashes (RATE/10 per replica and interval), with leaked-blob cleanup',
    whenAlone: 0.1,
  }),
} as const;

/** The experiment's flags, then every registered variant's options (variant-options.ts: `--barrier-timeout T`
 * …), which resolveSetup reads by their flag names. */
export const SETUP_FLAGS = { ...FIXED_SETUP_FLAGS, ...VARIANT_OPTION_FLAGS } as typeof FIXED_SETUP_FLAGS;

export interface ResolvedSetup {
  readonly scenario: Scenario;
  readonly setup: Setup;
  readonly variants: readonly Variant[];
}

/** Applies scenario defaults and cross-flag limits. An error names the flags involved. */
export function resolveSetup(v: FlagValues<typeof SETUP_FLAGS>, sweeps: readonly SweepSpec[] = []): Parsed<ResolvedSetup> {
  const d = SCENARIO_DEFAULTS[v.scenario];
  const variantOptions = optionsFromFlags(v);
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
    ...(v.stragglers === undefined || v.stragglers.probability === 0 ? {} : { stragglers: v.stragglers }),
    ...(v.faults === undefined ? {} : { faults: v.faults }),
    ...(v['no-data'] === 'default' ? {} : { noData: v['no-data'] }),
    ...(variantOptions === undefined ? {} : { variantOptions }),
  };
  for (const s of sweeps) {
    const variant = sweptVariant(s.param);
    if (variant !== undefined && !v.variants.includes(variant)) {
      return bad(`--sweep ${s.param}: it sweeps an option of variant ${variant}, which --variants does not run (${v.variants.join(', ')})`);
    }
  }
  const maxOf = (param: SweepParam, base: number) => Math.max(base, ...sweeps.filter((s) => s.param === param).flatMap((s) => s.values));
  const updates = maxOf('intervals', setup.intervals) * maxOf('rows', setup.rows);
  if (updates > MAX_UPDATES) {
    return bad(`--intervals × --rows: at most ${thousands(MAX_UPDATES)} updates per run, got ${thousands(updates)}`);
  }
  return good({ scenario: v.scenario, setup, variants: v.variants });
}
