/**
 * Checks derived from a run's configuration alone, as property streams of their own.
 *
 * Some checks never look at what a run did: the bad-input check corrupts the run's configuration and
 * asks the validation to refuse it (bad-input.ts), the misuse check drives a random program over the
 * implementation's own objects, chosen by a hash of the configuration (misuse/). Riding on every run
 * they cost a share of every run and try what the run's configuration happens to pick. As streams,
 * `sbkit check` runs each one over configurations drawn by the workload generator (workload.ts) with a
 * case index drawn beside it — which corruption, which misuse scenario — so every case comes up on
 * purpose, with the stream's own budget (`budget`), counted in the output. A failing stream is shrunk
 * by fast-check like a run (configuration and case together) and replays from a token carrying the
 * stream's name and case (token.ts): seed, shrunk input and replay command, as for any run.
 *
 * Checks over a run's own outcome (refinement, properties, audit, metrics, the writer registry, the
 * corruption of the history the run stored) stay on every run (harness.ts). `fold` puts these checks
 * back on every run (each run's configuration picking its case by its hash, as harness.ts
 * `configFailures` does): the same checks, the other configuration, for a side-by-side figure.
 *
 * A check that derives from the configuration alone belongs in CONFIG_CHECKS: its name (the failed
 * check's name), what one case is, how many cases a variant has, its budget, and its judge.
 */
import fc from 'fast-check';
import type { BugName, Variant } from '../vocab/index.ts';
import type { RunConfig } from '../impl/run-config.ts';
import { badInputRefused, corruptionFor, corruptionsFor } from './bad-input.ts';
import { misuseJudged, misuseSeed, runScenario, SCENARIOS, type MisuseVerdict, type Scenario } from './misuse/index.ts';
import { ChoiceScheduler } from './choice-scheduler.ts';
import type { RunReport } from './harness.ts';
import { runConfigOf } from './run-setup.ts';
import { FIFO } from './schedule.ts';
import { DEFAULT_BOUNDS, workloadArb, type Workload } from './workload.ts';

export interface ConfigCheck {
  /** The check's name in a failure (and the stream's in the output and the token). */
  readonly name: string;
  /** What one run of the stream tries, plural (the output's unit). */
  readonly unit: string;
  /** How many cases a variant's configurations can try (a drawn case is taken modulo this). */
  cases(variant: Variant): number;
  /** The stream's runs for a budget of `runs` runs of the check. */
  budget(runs: number, cases: number): number;
  /** Undefined when the configuration's case behaves as required; else why not. Without `pick`, the
   * case the configuration's own hash picks (a folded run's). */
  judge(config: RunConfig, pick?: number): Promise<string | undefined>;
}

const misuseWhy = (m: MisuseVerdict): string | undefined => (m.wrong.length === 0 ? undefined : `${m.scenario}: ${m.wrong.join('; ')} (program: ${m.program.join(', ')})`);

export const CONFIG_CHECKS: readonly ConfigCheck[] = [
  {
    // Validation is one synchronous call: every corruption tried many times costs little.
    name: 'bad-input-refused',
    unit: 'corrupted configurations',
    cases: (variant) => corruptionsFor(variant).length,
    budget: (runs, cases) => Math.max(2 * cases, Math.ceil(runs / 8)),
    judge: (c, pick) => badInputRefused(c, pick === undefined ? corruptionFor(c) : corruptionsFor(c.variant)[pick % corruptionsFor(c.variant).length]),
  },
  {
    // A program drives several objects through dozens of calls: one per four runs keeps hundreds of
    // programs per scenario in a default budget of every variant.
    name: 'misuse-refused',
    unit: 'misuse programs',
    cases: () => SCENARIOS.length,
    budget: (runs, cases) => Math.max(4 * cases, Math.ceil(runs / 4)),
    judge: async (c, pick) => misuseWhy(pick === undefined ? await misuseJudged(c) : await runScenario(SCENARIOS[pick % SCENARIOS.length] as Scenario, misuseSeed(c))),
  },
];

export const CONFIG_CHECK_NAMES: readonly string[] = CONFIG_CHECKS.map((c) => c.name);

export function configCheck(name: string): ConfigCheck | undefined {
  return CONFIG_CHECKS.find((c) => c.name === name);
}

export interface StreamFailure {
  readonly workload: Workload;
  readonly pick: number;
  readonly why: string;
  /** The stream's run that failed first (1-based), and fast-check's shrinking steps. */
  readonly runsToFailure: number;
  readonly shrinks: number;
}

export interface StreamOutcome {
  readonly name: string;
  readonly runs: number;
  readonly failure?: StreamFailure;
}

/** A stream's seed from the job's: its own, so that adding a stream changes no other stream or run. */
export function streamSeed(seed: number, name: string): number {
  let k = seed >>> 0;
  for (let i = 0; i < name.length; i++) k = Math.imul(k ^ name.charCodeAt(i), 16777619) >>> 0;
  return k & 0x7fff_ffff;
}

/** One stream: `runs` configurations of `variant` × cases, from `seed`; shrunk on a failure. */
export async function runStream(check: ConfigCheck, variant: Variant, runs: number, seed: number, bug: BugName | undefined, stopped?: () => boolean): Promise<StreamOutcome> {
  const cases = check.cases(variant);
  let executed = 0;
  let first = 0;
  const property = fc.asyncProperty(workloadArb(variant, DEFAULT_BOUNDS), fc.nat({ max: cases - 1 }), async (workload: Workload, pick: number) => {
    if (first === 0 && stopped?.() === true) return;
    const why = await check.judge(streamConfig(workload, bug), pick);
    if (first === 0) executed += 1;
    if (why !== undefined) {
      if (first === 0) first = executed;
      throw new Error(why);
    }
  });
  const details = await fc.check(property, { seed: streamSeed(seed, check.name), numRuns: runs });
  if (!details.failed || details.counterexample === null) return { name: check.name, runs: executed };
  const [workload, pick] = details.counterexample;
  const why = (await check.judge(streamConfig(workload, bug), pick)) ?? 'failed while shrinking, passes on its own (not deterministic)';
  return { name: check.name, runs: executed, failure: { workload, pick, why, runsToFailure: first, shrinks: details.numShrinks } };
}

/** A stream's configuration for a workload: the run's own (harness.ts runConfigOf), never started. */
export function streamConfig(workload: Workload, bug: BugName | undefined): RunConfig {
  return runConfigOf(workload, new ChoiceScheduler([]), bug).config;
}

/** A stream's case judged again on its configuration (a replay token's). */
export async function judgeStreamCase(check: ConfigCheck, workload: Workload, pick: number, bug: BugName | undefined): Promise<string | undefined> {
  return check.judge(streamConfig(workload, bug), pick);
}

/** Every check of CONFIG_CHECKS on one run's configuration, each on the case the configuration picks:
 * the checks folded back into a run. */
export async function configFailures(config: RunConfig): Promise<{ readonly check: string; readonly why: string }[]> {
  const out: { check: string; why: string }[] = [];
  for (const check of CONFIG_CHECKS) {
    const why = await check.judge(config);
    if (why !== undefined) out.push({ check: check.name, why });
  }
  return out;
}

/** A stream's failure as a run's report: no run started, the one failed check, the case it tried. */
export function streamReport(check: string, pick: number, workload: Workload, why: string, bug: BugName | undefined): RunReport {
  return {
    workload,
    schedule: FIFO,
    bug,
    trace: [],
    schedulerLog: '',
    outcome: 'settled',
    failures: [{ kind: 'impl-error', check, why }],
    witnessed: [],
    faults: { injected: {}, aborts: 0, restarts: 0, leaked: 0, collected: 0 },
    stream: { check, pick },
  };
}
