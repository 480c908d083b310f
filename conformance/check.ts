/**
 * `sbkit check`: many random workloads × schedules per variant through the harness; on the first
 * failure fast-check shrinks workload and schedule together, and the report is the reproduction.
 */
import { BUG_NAMES, FAULT_BUGS, type BugName, type Variant } from '../vocab/index.ts';
import { IMPL_VARIANTS, VARIANTS, sharesAtAll } from '../impl/variants/index.ts';
import { DEFAULT_FAULT_RATE, parseFaultRate } from './faults.ts';
import { properties } from '../spec/properties.ts';
import { policyOf } from '../model/variants/index.ts';
import type { VariantOutcome, VariantTask } from './check-variant.ts';
import { formatEvent, runOnce, type RunReport, type StreamCase } from './harness.ts';
import { CONFIG_CHECKS, configCheck, judgeStreamCase, streamReport } from './streams.ts';
import { CheckPool, checkJobs, seedFor, shares, WHOLE, type Shard } from './parallel.ts';
import { decodeToken, encodeToken } from './token.ts';
import type { Workload } from './workload.ts';
import { requiredReach } from './reach.ts';
import { describeSchedule, type Strategy } from './schedule.ts';

/** Runs per variant when none are asked for: what `npm start` and `npm test` use. */
export const DEFAULT_RUNS = 500;

/** The variants on which each gallery bug can show (a barrier bug cannot show without a barrier), in
 * registry order: each variant's meta lists its gallery bugs (vocab VariantMeta.galleryBugs). */
export const BUG_VARIANTS: Readonly<Record<BugName, readonly Variant[]>> = Object.fromEntries(
  BUG_NAMES.map((bug) => [bug, IMPL_VARIANTS.filter((v) => v.meta.galleryBugs.includes(bug)).map((v) => v.meta.name)]),
) as unknown as Record<BugName, readonly Variant[]>;

export interface CheckOptions {
  readonly variant: Variant | 'all';
  readonly runs?: number;
  readonly seed?: number;
  readonly bug?: BugName;
  readonly replay?: string;
  /** How runs are drawn (schedule.ts): uniform choices, PCT, either with a share steered (default), or
   * steered (steer.ts). */
  readonly strategy?: Strategy;
  /** Worker threads to split each variant's runs over (default 1: this thread). parallel.ts. */
  readonly jobs?: number;
  /** The slice of a multi-machine budget to run (default the whole: 0 of 1). parallel.ts. */
  readonly shard?: Shard;
  /** Storage faults and aborts at this rate per fault site (faults.ts); default none, or the default
   * rate for a gallery bug that only the fault world can show. */
  readonly faults?: number;
  readonly onProgress?: (done: number, total: number) => void;
  /** Sees every run of the budget (not the shrinking runs after a failure), e.g. for model coverage. */
  readonly onRun?: (report: RunReport) => void;
  /** False: report the first failing run as found, without shrinking or minimizing it (default true). */
  readonly shrink?: boolean;
  /** True: the checks derived from the configuration alone (streams.ts: bad input, misuse) ride on
   * every run instead of running as streams of their own (the side-by-side configuration). */
  readonly fold?: boolean;
}

export type { VariantOutcome } from './check-variant.ts';

export interface CheckResult {
  readonly exitCode: 0 | 1;
  /** The replay token of the failing run, when one failed. */
  readonly token?: string;
  readonly output: string;
  readonly summary: string;
  readonly variants: readonly VariantOutcome[];
}


export async function runCheck(opts: CheckOptions): Promise<CheckResult> {
  if (opts.replay !== undefined) return replay(opts.replay);
  const seed = opts.seed ?? Date.now() % 2 ** 31;
  const runs = opts.runs ?? DEFAULT_RUNS;
  const variants = opts.variant === 'all' ? (opts.bug === undefined ? VARIANTS : BUG_VARIANTS[opts.bug]) : [opts.variant];
  const outcomes: VariantOutcome[] = [];
  const shard = opts.shard ?? WHOLE;
  // A run callback sees reports in this thread: with one, the runs stay here.
  const jobs = opts.onRun !== undefined ? 1 : Math.max(1, Math.min(opts.jobs ?? 1, runs));
  const strategy = opts.strategy ?? 'mixed';
  const faults = opts.faults ?? (opts.bug !== undefined && FAULT_BUGS.includes(opts.bug) ? DEFAULT_FAULT_RATE : undefined);
  if (faults !== undefined) parseFaultRate(faults);
  let done = 0;
  const pool = jobs > 1 ? new CheckPool(jobs) : undefined;
  try {
    for (const variant of variants) {
      const tasks: VariantTask[] = shares(runs, jobs).map((n, job) => ({ variant, runs: n, seed: seedFor(seed, shard.index, job), bug: opts.bug, strategy, faults, ...(opts.shrink === false ? { shrink: false } : {}), ...(opts.fold === true ? { fold: true } : {}) }));
      const outcome = await checkJobs(tasks, { tick: () => opts.onProgress?.(++done, runs * variants.length), ...(opts.onRun === undefined ? {} : { onRun: opts.onRun }) }, pool);
      outcomes.push(outcome);
      if (outcome.failed) break;
    }
  } finally {
    await pool?.close();
  }
  const failed = outcomes.find((o) => o.failed);
  // A bug switched on where it cannot show must not read as "the check missed it".
  const misplaced = opts.bug !== undefined && variants.every((v) => !BUG_VARIANTS[opts.bug as BugName].includes(v));
  const note = misplaced ? `\nnote: ${opts.bug} lives in ${BUG_VARIANTS[opts.bug as BugName].join(', ')}; it cannot show on ${variants.join(', ')}` : '';
  const unreached = failed === undefined && opts.bug === undefined ? unreachedPaths(outcomes) : [];
  const vacuous = runs >= DEFAULT_RUNS && unreached.length > 0;
  const passed = passOutput(outcomes) + note + (unreached.length === 0 ? '' : describeUnreached(unreached, vacuous, { ...opts, seed, runs }));
  const output = failed?.report === undefined ? passed : failureOutput(failed.report, { seed, variant: failed.variant, runsToFailure: failed.runsToFailure, shrinks: failed.shrinks, shrunk: opts.shrink !== false });
  const totalRuns = outcomes.reduce((n, o) => n + o.runs, 0);
  const token = failed?.report === undefined ? undefined : tokenOf(failed.report);
  const spread = `${jobs > 1 ? `, ${jobs} jobs` : ''}${shard.count > 1 ? `, shard ${shard.index + 1}/${shard.count}` : ''}`;
  const faultLine = faults === undefined ? '' : `, faults at ${faults}: ${describeTally(outcomes, failed !== undefined)}`;
  const verdict = failed ? 'FAILED' : vacuous ? 'FAILED (vacuous)' : 'ok';
  const streamRuns = CONFIG_CHECKS.map((c) => `${outcomes.reduce((n, o) => n + (o.streams?.[c.name] ?? 0), 0)} ${c.unit}`).join(', ');
  const streamLine = opts.fold === true ? ' (bad input and misuse folded into every run)' : ` + ${streamRuns} in streams of their own`;
  const summary = `sbkit check: ${verdict} — ${totalRuns} runs, variants ${outcomes.map((o) => o.variant).join(', ')}, ${propertyCount(outcomes.map((o) => o.variant))} properties + refinement + audit + metrics checked${streamLine}, seed ${seed}${spread}, strategy ${strategy}${opts.bug ? `, bug ${opts.bug}` : ''}${faultLine}`;
  return { exitCode: failed || vacuous ? 1 : 0, output, summary, variants: outcomes, ...(token === undefined ? {} : { token }) };
}

export interface Unreached {
  readonly variant: Variant;
  readonly runs: number;
  readonly paths: readonly string[];
}

/** Per variant, the required orders and paths (reach.ts) that no run of the budget took. */
export function unreachedPaths(outcomes: readonly VariantOutcome[]): Unreached[] {
  return outcomes.flatMap((o) => {
    const paths = requiredReach(o.variant).filter((p) => (o.reached[p] ?? 0) === 0);
    return paths.length === 0 ? [] : [{ variant: o.variant, runs: o.runs, paths }];
  });
}

/**
 * What the budget never reached. At the default budget or above it is a failure: every check held, but
 * on runs that never took a path the check exists to exercise, so an implementation that lost the path
 * passes (reach.ts requiredReach). Below it, a note: a small budget may miss them by chance.
 */
export function describeUnreached(unreached: readonly Unreached[], vacuous: boolean, opts: CheckOptions & { readonly seed: number; readonly runs: number }): string {
  const lines = unreached.map((u) => `  ${u.variant}: ${u.paths.join(', ')} (0 of ${u.runs} runs)`);
  const again = `sbkit check --seed ${opts.seed} --runs ${opts.runs}${opts.variant === 'all' ? '' : ` --variant ${opts.variant}`}${opts.faults === undefined ? '' : ` --faults ${opts.faults}`}${opts.strategy === undefined ? '' : ` --strategy ${opts.strategy}`}${opts.shard === undefined || opts.shard.count === 1 ? '' : ` --shard ${opts.shard.index + 1}/${opts.shard.count}`}${opts.jobs === undefined ? '' : ` --jobs ${opts.jobs}`}`;
  if (!vacuous) return `\nnote: paths a default budget (${DEFAULT_RUNS} runs per variant) must take were not reached in this smaller one:\n${lines.join('\n')}`;
  return (
    `\nFAILED (vacuous): every check held, but these paths, which a budget of ${DEFAULT_RUNS} runs per variant takes with near certainty, never happened:\n${lines.join('\n')}\n` +
    'An implementation that never takes a path still refines the model (it allows these paths, never requires them):\n' +
    'the implementation, or the generators, lost it.\n' +
    `rerun: ${again}`
  );
}

async function replay(token: string): Promise<CheckResult> {
  const c = decodeToken(token);
  const report = c.stream === undefined ? await runOnce(c.workload, c.schedule, c.bug) : await replayStream(c.stream, c.workload, c.bug);
  const failed = report.failures.length > 0;
  const output = failed ? failureOutput(report, {}) : `replayed ${describeWorkload(c.workload)}: every check holds`;
  const summary = `sbkit check --replay: ${failed ? 'FAILED' : 'ok'} — 1 run, variant ${c.workload.variant}${c.bug ? `, bug ${c.bug}` : ''}`;
  return {
    exitCode: failed ? 1 : 0,
    output,
    summary,
    ...(failed ? { token } : {}),
    variants: [{ variant: c.workload.variant, runs: 1, failed, report, witnessed: {}, reached: {}, faults: report.faults }],
  };
}

/** A stream's case from a token, judged again: a report that passes or fails like the stream's. */
async function replayStream(stream: StreamCase, workload: Workload, bug: BugName | undefined): Promise<RunReport> {
  const check = configCheck(stream.check);
  if (check === undefined) throw new Error(`no stream ${stream.check}`);
  const why = await judgeStreamCase(check, workload, stream.pick, bug);
  const report = streamReport(stream.check, stream.pick, workload, why ?? '', bug);
  return why === undefined ? { ...report, failures: [] } : report;
}

export function tokenOf(r: RunReport): string {
  return encodeToken({ workload: r.workload, schedule: r.schedule, ...(r.bug === undefined ? {} : { bug: r.bug }), ...(r.stream === undefined ? {} : { stream: r.stream }) });
}

/** The always/eventually properties the checked variants are judged by (model/variants/). */
function propertyCount(variants: readonly Variant[]): number {
  return new Set(variants.flatMap((variant) => policyOf({ variant }).properties(properties).filter((p) => p.kind !== 'sometimes').map((p) => p.name))).size;
}

function passOutput(outcomes: readonly VariantOutcome[]): string {
  return outcomes
    .map((o) => {
      const list = (counts: Readonly<Record<string, number>>) =>
        Object.entries(counts)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ');
      const seen = list(o.witnessed);
      const orders = list(o.reached);
      const f = o.faults;
      const faults = Object.keys(f.injected).length === 0 && f.aborts === 0 ? '' : `${list(f.injected)}; ${f.aborts} aborts, ${f.restarts} restarts, ${f.leaked} blobs leaked by aborts, ${f.collected} collected`;
      return (
        `${o.variant.padEnd(11)} ${o.runs} runs, every check held` +
        (orders ? `\n            orders, limits and paths reached (runs): ${orders}` : '') +
        (seen ? `\n            sometimes-properties witnessed (runs): ${seen}` : '') +
        (faults ? `\n            faults injected and survived: ${faults}` : '') +
        (o.streams === undefined ? '' : `\n            derived from the configuration alone, own streams (${CONFIG_CHECKS.map((c) => c.unit).join(', ')}): ${list(o.streams)}`)
      );
    })
    .join('\n');
}

export function describeWorkload(w: Workload): string {
  const loads = w.loads.map((row, t) => `t${t}:[${row.join(' ')}]`).join(' ');
  return (
    `${w.variant}, ${w.replicas} replica(s) × ${w.processes} process(es) × ${w.workersPerProcess} worker(s), ${w.intervals} interval(s)` +
    `${w.asOf === 0 ? '' : `, as-of ${w.asOf}`}; knob by lower ${JSON.stringify(w.knob)}` +
    `${!sharesAtAll(w.variant) ? '' : `; barrier flag by desired frontier ${w.barrierFlags.map((b) => (b ? 'on' : 'off')).join(',')}`}; loads ${loads}; ` +
    `blobTarget ${w.blobTargetSize}, inlineSingleMax ${w.inlineSingleMaxBytes}, inlineTotalMax ${w.inlineTotalMaxBytes}${w.maxRuns === undefined ? '' : `, maxRuns ${w.maxRuns}`}, pushChunk ${w.pushChunkUpdates}, pacing ${w.pacing}, noData ${w.noData}, sink ${w.sink}` +
    (w.idOrder === 'reversed' ? '; update ids numbered from the last interval back' : '') +
    Object.entries(w.variantOptions ?? {}).map(([k, x]) => `; ${k} ${x === Number.POSITIVE_INFINITY ? 'inf' : `${x} ms`}`).join('') +
    (w.sinkLoads ?? []).map((l, i) => `; sink ${i + 1}'s loads ${l.map((row, t) => `t${t}:[${row.join(' ')}]`).join(' ')}`).join('')
  );
}

function failureOutput(
  r: RunReport,
  ctx: { seed?: number; variant?: Variant; runsToFailure?: number | undefined; shrinks?: number | undefined; shrunk?: boolean },
): string {
  const token = tokenOf(r);
  const lines: string[] = [];
  lines.push(
    r.stream === undefined
      ? `FAILED ${r.workload.variant}${r.bug ? ` with bug ${r.bug}` : ''} (run ended: ${r.outcome})`
      : `FAILED ${r.workload.variant}${r.bug ? ` with bug ${r.bug}` : ''}: stream ${r.stream.check}, case ${r.stream.pick} (a check derived from the configuration alone: no run was started)`,
  );
  lines.push(
    ctx.seed === undefined
      ? 'seed: none, replayed from a token (the report that printed it names the seed that found it)'
      : `seed ${ctx.seed}; failed on ${r.stream === undefined ? 'run' : `the stream's run`} ${ctx.runsToFailure ?? '?'}; ${ctx.shrunk === false ? 'not shrunk (--no-shrink)' : `shrunk in ${ctx.shrinks ?? 0} steps`}`,
  );
  lines.push(`workload: ${describeWorkload(r.workload)}`);
  if (r.stream === undefined) lines.push(`schedule: ${describeSchedule(r.schedule)}`);
  lines.push('what failed:');
  for (const f of r.failures) lines.push(`  - [${f.kind}] ${f.check}: ${f.why}`);
  const at = r.failures.find((f) => f.at !== undefined)?.at;
  if (r.stream === undefined) {
    lines.push(`executed protocol events (${r.trace.length}):`);
    r.trace.forEach((e, i) => lines.push(`  ${i === at ? '>>' : '  '}${String(i).padStart(3)} ${formatEvent(e)}`));
    lines.push(`scheduler log (${r.schedulerLog.split('\n').length} resumes):`);
    lines.push(r.schedulerLog.replace(/^/gm, '  '));
  }
  lines.push(`replay: sbkit check --replay ${token}`);
  return lines.join('\n');
}

/** Faults injected over the runs, by kind, and what the runs did about them; all survived unless a check failed. */
function describeTally(outcomes: readonly VariantOutcome[], failed: boolean): string {
  const injected: Record<string, number> = {};
  let aborts = 0;
  let restarts = 0;
  let leaked = 0;
  let collected = 0;
  for (const o of outcomes) {
    for (const [k, n] of Object.entries(o.faults.injected)) injected[k] = (injected[k] ?? 0) + n;
    aborts += o.faults.aborts;
    restarts += o.faults.restarts;
    leaked += o.faults.leaked;
    collected += o.faults.collected;
  }
  const kinds = Object.entries(injected)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return `${kinds || 'no storage faults'} injected, ${aborts} aborts, ${restarts} restarts, ${leaked} blobs leaked by aborts, ${collected} collected${failed ? '' : ' — all survived'}`;
}
