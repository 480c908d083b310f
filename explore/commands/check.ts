/**
 * `sbkit check`: the conformance check (conformance/check.ts) from the command line. All the checking
 * lives in conformance/; this file only maps flags to `runCheck` options and its result to output, JSON,
 * the files it writes and the exit code with its reasons. conformance/ is imported lazily where it can be.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BUG_NAMES, type BugName, type Variant } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import { choiceFlag, intFlag, optional, rateFlag, shardFlag, stringFlag, switchFlag } from '../args.ts';
import { DEFAULT_CHECK_RUNS, DEFAULT_FAULT_RATE } from '../budgets.ts';
import { type Command, EXIT, type Reason, exitCodeOf, exitWith, usageError, violation, withArgs } from '../command.ts';
import type { Io } from '../io.ts';
import { describeWriteError, outputFlagProblem } from '../output-paths.ts';
import { type Progress, createProgress } from '../progress.ts';
import { type FailedRun, diagramFile, failureSequence } from '../sequence.ts';
import { reportRunError } from './errors.ts';
import { defaultJobs } from '../../conformance/parallel.ts';
import type { RunReport } from '../../conformance/harness.ts';

const USAGE = 'sbkit check';

/** The strategies, repeated here so that `--help` does not load conformance/ (mirrors conformance/schedule.ts). */
const STRATEGIES = ['random', 'pct', 'mixed', 'steer'] as const;
type Strategy = (typeof STRATEGIES)[number];

export const CHECK_VARIANTS = [...VARIANTS, 'all'] as const;
export type CheckVariant = (typeof CHECK_VARIANTS)[number];

export const CHECK_FLAGS = {
  variant: optional(choiceFlag<CheckVariant>({ help: 'which variant to check (with --bug: the variants where it can show)', choices: CHECK_VARIANTS, defaultValue: 'all' }), 'all'),
  runs: optional(intFlag({ help: 'random workloads × schedules per variant', defaultValue: DEFAULT_CHECK_RUNS, min: 1, max: 10_000_000 }), String(DEFAULT_CHECK_RUNS)),
  seed: optional(intFlag({ help: 'fast-check seed (printed; reuse it to reproduce)', defaultValue: 0, min: 0, max: 0x7fff_ffff }), 'from the clock'),
  bug: optional(choiceFlag<BugName>({ help: 'switch on a bug of the gallery (sbkit bugs lists them): the check must then fail; narrows --variant to where it shows, and turns --faults on for a fault-world bug (both said)', choices: BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' })),
  replay: optional(stringFlag({ help: 'rerun one counterexample from the token a failure printed (the token fixes the variant, bug, faults, workload and schedule: only --emit-test, --emit-diagram and --json go with it)', placeholder: 'TOKEN', defaultValue: '' })),
  strategy: optional(choiceFlag<Strategy>({ help: 'how runs are drawn: uniform choices, PCT priorities (Burckhardt et al.), both, or steer, coverage-guided (runs derived from earlier runs that reached something new, fresh runs chosen for new configurations, the least reached rare paths on purpose; mixed steers a smaller share)', choices: STRATEGIES, defaultValue: 'mixed' }), 'mixed'),
  jobs: optional(intFlag({ help: 'jobs to split each variant\'s runs over (job 0 on this thread, the rest on worker threads)', defaultValue: 1, min: 1, max: 256 }), 'half the cores'),
  faults: rateFlag({
    help: 'storage faults and replica aborts at RATE per fault site (transient RATE, indeterminate RATE/4, permanent RATE/20; aborts in 4·RATE of runs), then a healed liveness phase',
    whenAlone: DEFAULT_FAULT_RATE,
  }),
  shard: shardFlag('run one shard of a budget spread over N machines (each runs --runs per variant from its own seeds)', 'the whole budget'),
  'emit-test': optional(stringFlag({ help: 'on a failure, also write the counterexample as a standalone vitest file (its directory must exist)', placeholder: 'FILE', defaultValue: '' })),
  'emit-diagram': optional(stringFlag({ help: 'on a failure, also write the counterexample as a Mermaid sequenceDiagram (FILE.md: fenced in Markdown; its directory must exist)', placeholder: 'FILE', defaultValue: '' })),
  'no-shrink': switchFlag('stop at the first failing run and report it as found, unshrunk (canaries, mutation testing: only the verdict matters)'),
  'fold-streams': switchFlag('run the checks derived from the configuration alone (bad input, misuse) on every run, each on the case the run\'s configuration picks, instead of as streams of their own (the side-by-side configuration)'),
  json: switchFlag('print one JSON object instead of text (docs/reference/check.schema.json): the verdict, the reasons, and per failure its token, failed checks, shrunk events, seed and replay command'),
} as const;

/** The flags a replay token fixes (given beside --replay: exit 2). */
const REPLAY_CONFLICTS = ['variant', 'runs', 'seed', 'bug', 'strategy', 'jobs', 'faults', 'shard', 'no-shrink', 'fold-streams'] as const;

export const CHECK_HELP = {
  usage: USAGE,
  summary:
    'Checks the implementation against the model under random worker interleavings: every event of\n' +
    "impl's trace must be enabled in the model with equal predicted fields, every property in spec/ must\n" +
    'hold, and the shard audit must find nothing lost, duplicated or leaked. A failure is shrunk and\n' +
    'printed with its replay token. Exit 0 = every check held, 1 = a check failed.',
  notes: [
    'Examples:\n  sbkit check\n  sbkit check --variant barrier --runs 2000 --seed 7\n  sbkit check --bug sweep-upgrade-race   # must fail: the canary\n  sbkit check --bug barrier-lost-wakeup --emit-diagram lost-wakeup.md\n  sbkit check --runs 10000 --shard 3/8   # the third machine of an 8-machine CI matrix',
    'Every seed is derived from (--seed, shard, job): the same flags run the same checks; a failure prints a\ntoken that replays it on one machine, whatever --jobs and --shard found it.',
    'What a passing check prints per variant:\n' +
      '  orders, limits and paths reached (runs): how many runs took each interleaving or path the check\n' +
      '    exists to exercise (conformance/reach.ts): late-handle (a handle opened after its builder finished),\n' +
      '    finishes-racing, sweep-races-finish, replica-overtakes, the persist limits exactly and at ±1\n' +
      '    (inline-single=, inline-total+1, blob-target=, threshold=, backpressure), bump, barrier-flag-flip,\n' +
      '    empty-finish, supersede, stale-deleted, ids-across-times, two-sinks …\n' +
      '    A passing check on runs that never took such a path proves nothing about it: at the default budget\n' +
      `    (${DEFAULT_CHECK_RUNS} runs per variant) a path it must take that no run took fails the check ("FAILED (vacuous)").\n` +
      "  sometimes-properties witnessed (runs): runs showing each `sometimes` property of spec/ (non-vacuity).\n" +
      '  faults injected and survived: with --faults, what the fault world did (by kind, aborts, restarts, leaks).',
  ],
};

export interface CheckRequest {
  readonly variant: Variant | 'all';
  readonly runs?: number | undefined;
  readonly seed?: number | undefined;
  readonly bug?: BugName | undefined;
  readonly replay?: string | undefined;
  readonly strategy?: Strategy | undefined;
  /** Jobs; undefined: 1 (in-process). The CLI passes half the cores by default (parallel.ts defaultJobs). */
  readonly jobs?: number | undefined;
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
  /** Fault rate (conformance/faults.ts); undefined: none. */
  readonly faults?: number | undefined;
  /** False: the first failing run is reported unshrunk. */
  readonly shrink?: boolean | undefined;
  /** True: the configuration-derived checks ride on every run (conformance/streams.ts). */
  readonly fold?: boolean | undefined;
  /** Sees every run of the budget (explore/coverage.ts counts the model transitions it takes). */
  readonly onRun?: ((report: FailedRun & { readonly workload: { readonly variant: Variant } }) => void) | undefined;
}

/** One failure as `--json` carries it: what a CI job needs to see and replay it. */
export interface CheckFailure {
  readonly variant: Variant;
  readonly bug: BugName | null;
  /** The seed of the check that found it (null: replayed from a token). */
  readonly seed: number | null;
  readonly token: string;
  readonly replay: string;
  readonly failed: readonly { readonly kind: string; readonly check: string; readonly why: string }[];
  /** The shrunk run's executed protocol events, one line each (0-based, as in the text output). */
  readonly events: readonly string[];
  /** The event where the model diverged (0-based), or null when a property, the audit or liveness failed. */
  readonly divergedAt: number | null;
  readonly workload: string;
  readonly schedule: string;
  readonly shrunk: boolean;
}

export interface CheckOutcome {
  readonly exitCode: 0 | 1;
  /** The seed the check ran with (drawn from the clock when none was given); undefined for a replay. */
  readonly seed?: number;
  /** The shrunk failing run and its replay token (the report draws it). */
  readonly counterexample?: { readonly run: RunReport; readonly token: string };
  readonly failure?: CheckFailure;
  readonly output: string;
  readonly summary: string;
  /** Why it exits non-zero, one line each. */
  readonly reasons: readonly Reason[];
  readonly variants: readonly { readonly variant: Variant; readonly runs: number; readonly failed: boolean; readonly faults: FaultTallyView }[];
}

/** What the fault world did in one variant's runs (conformance/harness.ts FaultTally). */
export interface FaultTallyView {
  readonly injected: Readonly<Record<string, number>>;
  readonly aborts: number;
  readonly restarts: number;
  readonly leaked: number;
  readonly collected: number;
}

/** Runs the conformance check (lazily loading conformance/). Used by `check`, `bugs`, `report` and main. */
export async function runConformance(req: CheckRequest, progress?: Progress): Promise<CheckOutcome> {
  const [{ runCheck, unreachedPaths, describeWorkload }, { formatEvent }, { describeSchedule }] = await Promise.all([
    import('../../conformance/check.ts'),
    import('../../conformance/harness.ts'),
    import('../../conformance/schedule.ts'),
  ]);
  // The seed is drawn here (as runCheck would) so that the outcome can name it.
  const seed = req.replay === undefined ? (req.seed ?? Date.now() % 2 ** 31) : undefined;
  const r = await runCheck({
    variant: req.variant,
    ...(req.runs === undefined ? {} : { runs: req.runs }),
    ...(seed === undefined ? {} : { seed }),
    ...(req.bug === undefined ? {} : { bug: req.bug }),
    ...(req.replay === undefined ? {} : { replay: req.replay }),
    ...(req.strategy === undefined ? {} : { strategy: req.strategy }),
    ...(req.jobs === undefined ? {} : { jobs: req.jobs }),
    ...(req.shard === undefined ? {} : { shard: req.shard }),
    ...(req.faults === undefined ? {} : { faults: req.faults }),
    ...(req.shrink === false ? { shrink: false } : {}),
    ...(req.fold === true ? { fold: true } : {}),
    ...(req.onRun === undefined ? {} : { onRun: req.onRun }),
    onProgress: (done, total) => progress?.update(total === 0 ? 1 : done / total, `${done}/${total} runs`),
  });
  progress?.done();
  const failedOutcome = r.variants.find((o) => o.failed);
  const report = failedOutcome?.report;
  const counterexample = report === undefined || r.token === undefined ? undefined : { run: report, token: r.token };
  const failure: CheckFailure | undefined =
    report === undefined || r.token === undefined
      ? undefined
      : {
          variant: report.workload.variant,
          bug: report.bug ?? null,
          seed: seed ?? null,
          token: r.token,
          replay: `sbkit check --replay ${r.token}`,
          failed: report.failures.map((f) => ({ kind: f.kind, check: f.check, why: f.why })),
          events: report.trace.map((e, i) => `${String(i).padStart(3)} ${formatEvent(e)}`),
          divergedAt: report.failures.find((f) => f.at !== undefined)?.at ?? null,
          workload: describeWorkload(report.workload),
          schedule: describeSchedule(report.schedule),
          shrunk: req.shrink !== false && req.replay === undefined,
        };
  const reasons: Reason[] = [];
  if (failure !== undefined) {
    const checks = failure.failed.map((f) => `[${f.kind}] ${f.check}`).join(', ');
    const cause = failure.bug === null ? '' : ` (expected: --bug ${failure.bug} switched the bug on)`;
    reasons.push(violation(`${failure.variant}: ${checks} failed${cause}; replay: ${failure.replay}`));
  } else if (r.exitCode !== 0) {
    // Every check held, but at the default budget or above a path the check must take was never taken.
    const unreached = unreachedPaths(r.variants).map((u) => `${u.variant}: ${u.paths.join(', ')}`);
    reasons.push(violation(`paths the default budget takes were never reached (${unreached.join('; ')}): the implementation or the generators lost them; another --seed tells chance from loss`));
  }
  return {
    exitCode: r.exitCode,
    output: r.output,
    summary: r.summary,
    reasons,
    variants: r.variants.map((o) => ({ variant: o.variant, runs: o.runs, failed: o.failed, faults: o.faults })),
    ...(seed === undefined ? {} : { seed }),
    ...(counterexample === undefined ? {} : { counterexample }),
    ...(failure === undefined ? {} : { failure }),
  };
}

/** What `--bug` changed beside the bug itself, said before the run (and in the JSON's `notes`). */
async function bugNotes(bug: BugName, variantGiven: boolean, faultsGiven: boolean): Promise<string[]> {
  const { bugNeedsFaults, bugVariants } = await import('../bug-facts.ts');
  const notes: string[] = [];
  if (!variantGiven && bugVariants(bug).length < VARIANTS.length) notes.push(`--bug ${bug}: checks ${bugVariants(bug).join(', ')} only (where the bug can show; --variant to choose)`);
  if (!faultsGiven && bugNeedsFaults(bug)) notes.push(`--bug ${bug}: faults on at ${DEFAULT_FAULT_RATE} (only the fault world shows it; --faults RATE to choose)`);
  return notes;
}

/** What a replay token fixes, in words (the values it kept). */
async function replayNotes(token: string): Promise<string[]> {
  const { decodeToken } = await import('../../conformance/token.ts');
  const c = decodeToken(token);
  return [`the replay token fixes variant ${c.workload.variant}, bug ${c.bug ?? 'none'}, faults ${c.schedule.faults === undefined ? 'off' : 'on'}, the workload and the schedule (no seed: it replays one run)`];
}

/** The counterexample's files, written after the result is printed; an error says which and why (exit 3). */
async function writeCounterexample(io: Io, r: CheckOutcome, emitTest: string | undefined, emitDiagram: string | undefined): Promise<{ lines: string[]; error?: string }> {
  const lines: string[] = [];
  const ce = r.counterexample;
  if (ce === undefined) return { lines };
  if (emitTest !== undefined) {
    const path = resolve(io.cwd, emitTest);
    try {
      const { writeCounterexampleTest } = await import('../../conformance/emit.ts');
      writeCounterexampleTest(ce.run, ce.token, path);
      lines.push(`counterexample written as a vitest file: ${emitTest}`);
    } catch (e) {
      return { lines, error: `--emit-test: ${describeWriteError(emitTest, e)}` };
    }
  }
  if (emitDiagram !== undefined) {
    try {
      await writeFile(resolve(io.cwd, emitDiagram), diagramFile(failureSequence(ce.run, ce.token), emitDiagram), 'utf8');
      lines.push(`counterexample written as a sequence diagram: ${emitDiagram}`);
    } catch (e) {
      return { lines, error: `--emit-diagram: ${describeWriteError(emitDiagram, e)}` };
    }
  }
  return { lines };
}

export function checkJson(r: CheckOutcome, notes: readonly string[], written: readonly string[], exitCode: number): string {
  return `${JSON.stringify(
    {
      exitCode,
      summary: r.summary,
      reasons: r.reasons.map((x) => x.text),
      seed: r.seed ?? null,
      notes,
      variants: r.variants,
      failures: r.failure === undefined ? [] : [r.failure],
      written,
    },
    null,
    2,
  )}\n`;
}

export const checkCommand: Command = {
  name: 'check',
  help: CHECK_HELP,
  flags: CHECK_FLAGS,
  summary: 'check the implementation against the model (random interleavings, shrinking, replay)',
  run: (argv, io) =>
    withArgs(CHECK_HELP, CHECK_FLAGS, argv, io, async (v) => {
      if (v.replay !== undefined) {
        const given = REPLAY_CONFLICTS.filter((name) => (name === 'no-shrink' || name === 'fold-streams' ? v[name] : v[name] !== undefined));
        if (given.length > 0) {
          return usageError(io, USAGE, `--replay: the token fixes the run; ${given.map((n) => `--${n}`).join(', ')} cannot change it (only --emit-test, --emit-diagram and --json go with --replay)`);
        }
      }
      const unwritable = outputFlagProblem(io.cwd, [
        ['--emit-test', v['emit-test']],
        ['--emit-diagram', v['emit-diagram']],
      ]);
      if (unwritable !== undefined) return usageError(io, USAGE, unwritable);
      let notes: string[];
      try {
        notes = v.replay !== undefined ? await replayNotes(v.replay) : v.bug !== undefined ? await bugNotes(v.bug, v.variant !== undefined, v.faults !== undefined) : [];
      } catch (e) {
        if (e instanceof Error && e.name === 'ReplayTokenError') return usageError(io, USAGE, `--replay: ${e.message}`);
        throw e;
      }
      if (!v.json) for (const n of notes) io.out(`note: ${n}\n`);
      const progress = createProgress(io, { json: v.json, title: 'check' });
      let r: CheckOutcome;
      try {
        r = await runConformance(
          {
            variant: v.variant ?? 'all',
            runs: v.runs,
            seed: v.seed,
            bug: v.bug,
            replay: v.replay,
            strategy: v.strategy,
            jobs: v.jobs ?? defaultJobs(),
            shard: v.shard,
            faults: v.faults,
            shrink: !v['no-shrink'],
            ...(v['fold-streams'] ? { fold: true } : {}),
          },
          progress,
        );
      } catch (e) {
        progress.done();
        if (e instanceof Error && e.name === 'ReplayTokenError') return usageError(io, USAGE, `--replay: ${e.message}`);
        return reportRunError(io, USAGE, e);
      }
      // The result first, so that a file that cannot be written never costs the counterexample.
      if (!v.json) io.out(`${r.output}\n`);
      const written = await writeCounterexample(io, r, v['emit-test'], v['emit-diagram']);
      const code = written.error === undefined ? exitCodeOf(r.reasons) : EXIT.internal;
      io.out(v.json ? checkJson(r, notes, written.lines, code) : `${written.lines.map((l) => `${l}\n`).join('')}${r.summary}\n`);
      if (written.error !== undefined) {
        exitWith(io, USAGE, r.reasons);
        io.err(`${USAGE}: ${written.error}\n`);
        return EXIT.internal;
      }
      return exitWith(io, USAGE, r.reasons);
    }),
};
