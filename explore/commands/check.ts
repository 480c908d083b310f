/**
 * `sbkit check`: the conformance check (conformance/check.ts) from the command line. All the checking
 * lives in conformance/; this file only maps flags to `runCheck` options and its result to output and
 * the exit code. conformance/ is imported lazily, so other subcommands do not load it.
 */
import { BUG_NAMES, VARIANTS, type BugName, type Variant } from '../../vocab/index.ts';
import { choiceFlag, intFlag, optional, rateFlag, shardFlag, stringFlag, switchFlag } from '../args.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { type Progress, createProgress } from '../progress.ts';
import { writeFile } from 'node:fs/promises';
import { type FailedRun, diagramFile, failureSequence } from '../sequence.ts';
import { reportRunError } from './errors.ts';
import { defaultJobs } from '../../conformance/parallel.ts';

const USAGE = 'sbkit check';

/** The strategies, repeated here so that `--help` does not load conformance/ (mirrors conformance/schedule.ts). */
const STRATEGIES = ['random', 'pct', 'mixed'] as const;
type Strategy = (typeof STRATEGIES)[number];

export const CHECK_VARIANTS = [...VARIANTS, 'all'] as const;
export type CheckVariant = (typeof CHECK_VARIANTS)[number];

export const CHECK_FLAGS = {
  variant: choiceFlag<CheckVariant>({ help: 'which variant to check', choices: CHECK_VARIANTS, defaultValue: 'all' }),
  runs: optional(intFlag({ help: 'random workloads × schedules per variant', defaultValue: 300, min: 1, max: 10_000_000 }), 'conformance DEFAULT_RUNS'),
  seed: optional(intFlag({ help: 'fast-check seed (printed; reuse it to reproduce)', defaultValue: 0, min: 0, max: 0x7fff_ffff }), 'from the clock'),
  bug: optional(choiceFlag<BugName>({ help: 'switch on a bug of the gallery: the check must then fail', choices: BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' })),
  replay: optional(stringFlag({ help: 'rerun one counterexample from the token a failure printed', placeholder: 'TOKEN', defaultValue: '' })),
  strategy: choiceFlag<Strategy>({ help: 'how schedules are drawn: uniform choices, PCT priorities (Burckhardt et al.), or both', choices: STRATEGIES, defaultValue: 'mixed' }),
  jobs: optional(intFlag({ help: 'jobs to split each variant\'s runs over (job 0 on this thread, the rest on worker threads)', defaultValue: 1, min: 1, max: 256 }), 'half the cores'),
  faults: rateFlag({
    help: 'storage faults and replica aborts at RATE per fault site (transient RATE, indeterminate RATE/4, permanent RATE/20; aborts in 4·RATE of runs), then a healed liveness phase',
    whenAlone: 0.1,
  }),
  shard: shardFlag('run one shard of a budget spread over N machines (each runs --runs per variant from its own seeds)', 'the whole budget'),
  'emit-test': optional(stringFlag({ help: 'on a failure, also write the counterexample as a standalone vitest file', placeholder: 'FILE', defaultValue: '' })),
  'emit-diagram': optional(stringFlag({ help: 'on a failure, also write the counterexample as a Mermaid sequenceDiagram (FILE.md: fenced in Markdown)', placeholder: 'FILE', defaultValue: '' })),
  'no-shrink': switchFlag('stop at the first failing run and report it as found, unshrunk (canaries, mutation testing: only the verdict matters)'),
  json: switchFlag('print one JSON object {exitCode, summary, variants} instead of text'),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Checks the implementation against the model under random worker interleavings: every event of\n' +
    "impl's trace must be enabled in the model with equal predicted fields, every property in spec/ must\n" +
    'hold, and the shard audit must find nothing lost, duplicated or leaked. A failure is shrunk and\n' +
    'printed with its replay token. Exit 0 = every check held, 1 = a check failed.',
  notes: [
    'Examples:\n  sbkit check\n  sbkit check --variant barrier --runs 2000 --seed 7\n  sbkit check --bug sweep-upgrade-race   # must fail: the canary\n  sbkit check --bug barrier-lost-wakeup --emit-diagram lost-wakeup.md\n  sbkit check --runs 10000 --shard 3/8   # the third machine of an 8-machine CI matrix',
    'Every seed is derived from (--seed, shard, job): the same flags run the same checks; a failure prints a\ntoken that replays it on one machine, whatever --jobs and --shard found it.',
  ],
};

export interface CheckRequest {
  readonly variant: Variant | 'all';
  readonly runs?: number | undefined;
  readonly seed?: number | undefined;
  readonly bug?: BugName | undefined;
  readonly replay?: string | undefined;
  readonly emitTest?: string | undefined;
  readonly strategy?: Strategy | undefined;
  /** Jobs; undefined: 1 (in-process). The CLI passes half the cores by default (parallel.ts defaultJobs). */
  readonly jobs?: number | undefined;
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
  /** Fault rate (conformance/faults.ts); undefined: none. */
  readonly faults?: number | undefined;
  /** False: the first failing run is reported unshrunk. */
  readonly shrink?: boolean | undefined;
  readonly emitDiagram?: string | undefined;
  /** Sees every run of the budget (explore/coverage.ts counts the model transitions it takes). */
  readonly onRun?: ((report: FailedRun & { readonly workload: { readonly variant: Variant } }) => void) | undefined;
}

export interface CheckOutcome {
  readonly exitCode: 0 | 1;
  /** Where the counterexample's vitest file was written, when asked for and one failed. */
  readonly emitted?: string;
  /** Where its sequence diagram was written, when asked for and one failed. */
  readonly diagram?: string;
  /** The shrunk failing run and its replay token (the report draws it). */
  readonly counterexample?: { readonly run: FailedRun; readonly token: string };
  readonly output: string;
  readonly summary: string;
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
  const { runCheck } = await import('../../conformance/check.ts');
  const r = await runCheck({
    variant: req.variant,
    ...(req.runs === undefined ? {} : { runs: req.runs }),
    ...(req.seed === undefined ? {} : { seed: req.seed }),
    ...(req.bug === undefined ? {} : { bug: req.bug }),
    ...(req.replay === undefined ? {} : { replay: req.replay }),
    ...(req.strategy === undefined ? {} : { strategy: req.strategy }),
    ...(req.jobs === undefined ? {} : { jobs: req.jobs }),
    ...(req.shard === undefined ? {} : { shard: req.shard }),
    ...(req.faults === undefined ? {} : { faults: req.faults }),
    ...(req.shrink === false ? { shrink: false } : {}),
    ...(req.onRun === undefined ? {} : { onRun: req.onRun }),
    onProgress: (done, total) => progress?.update(total === 0 ? 1 : done / total, `${done}/${total} runs`),
  });
  progress?.done();
  const failedReport = r.variants.find((o) => o.failed)?.report;
  let emitted: string | undefined;
  if (req.emitTest !== undefined && failedReport !== undefined && r.token !== undefined) {
    const { writeCounterexampleTest } = await import('../../conformance/emit.ts');
    writeCounterexampleTest(failedReport, r.token, req.emitTest);
    emitted = req.emitTest;
  }
  const counterexample = failedReport === undefined || r.token === undefined ? undefined : { run: failedReport, token: r.token };
  let diagram: string | undefined;
  if (req.emitDiagram !== undefined && counterexample !== undefined) {
    await writeFile(req.emitDiagram, diagramFile(failureSequence(counterexample.run, counterexample.token), req.emitDiagram), 'utf8');
    diagram = req.emitDiagram;
  }
  return {
    exitCode: r.exitCode,
    output: r.output,
    summary: r.summary,
    variants: r.variants.map((o) => ({ variant: o.variant, runs: o.runs, failed: o.failed, faults: o.faults })),
    ...(emitted === undefined ? {} : { emitted }),
    ...(diagram === undefined ? {} : { diagram }),
    ...(counterexample === undefined ? {} : { counterexample }),
  };
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'check the implementation against the model (random interleavings, shrinking, replay)',
  run: (argv, io) =>
    withArgs(HELP, CHECK_FLAGS, argv, io, async (v) => {
      const progress = createProgress(io, { json: v.json, title: 'check' });
      let r: CheckOutcome;
      try {
        const jobs = v.jobs ?? defaultJobs();
        r = await runConformance(
          {
            variant: v.variant,
            runs: v.runs,
            seed: v.seed,
            bug: v.bug,
            replay: v.replay,
            emitTest: v['emit-test'],
            emitDiagram: v['emit-diagram'],
            strategy: v.strategy,
            jobs,
            shard: v.shard,
            faults: v.faults,
            shrink: !v['no-shrink'],
          },
          progress,
        );
      } catch (e) {
        progress.done();
        if (e instanceof Error && e.name === 'ReplayTokenError') return usageError(io, USAGE, `--replay: ${e.message}`);
        return reportRunError(io, USAGE, e);
      }
      const emitted =
        (r.emitted === undefined ? '' : `counterexample written as a vitest file: ${r.emitted}\n`) +
        (r.diagram === undefined ? '' : `counterexample written as a sequence diagram: ${r.diagram}\n`);
      io.out(v.json ? `${JSON.stringify({ exitCode: r.exitCode, summary: r.summary, variants: r.variants, ...(r.emitted === undefined ? {} : { emitted: r.emitted }), ...(r.diagram === undefined ? {} : { diagram: r.diagram }) }, null, 2)}\n` : `${r.output}\n${emitted}${r.summary}\n`);
      return r.exitCode === 0 ? EXIT.ok : EXIT.failed;
    }),
};

