/**
 * `sbkit check`: many random workloads × schedules per variant through the harness; on the first
 * failure fast-check shrinks workload and schedule together, and the report is the reproduction.
 */
import fc from 'fast-check';
import { VARIANTS, type BugName, type Variant } from '../vocab/index.ts';
import { properties } from '../spec/properties.ts';
import { minimize } from './minimize.ts';
import { ordersReached } from './reach.ts';
import { formatEvent, runOnce, type RunReport } from './harness.ts';
import { decodeToken, encodeToken } from './token.ts';
import { DEFAULT_BOUNDS, workloadArb, type Workload } from './workload.ts';
import { describeSchedule, scheduleArb, type Schedule } from './schedule.ts';

/** Runs per variant when none are asked for: what `npm start` and `npm test` use. */
export const DEFAULT_RUNS = 500;

/** The variants on which each gallery bug can show (a barrier bug cannot show without a barrier). */
export const BUG_VARIANTS: Readonly<Record<BugName, readonly Variant[]>> = {
  'sweep-upgrade-race': ['best-effort'],
  'drop-without-finish': ['best-effort', 'barrier'],
  'late-handle-joins-finished-builder': ['best-effort'],
  'barrier-lost-wakeup': ['barrier'],
  'barrier-skip-double-count': ['barrier'],
  'append-keeps-batches-on-mismatch': ['off', 'best-effort', 'barrier'],
  'threshold-inclusive': ['best-effort', 'barrier'],
};

export interface CheckOptions {
  readonly variant: Variant | 'all';
  readonly runs?: number;
  readonly seed?: number;
  readonly bug?: BugName;
  readonly replay?: string;
  readonly onProgress?: (done: number, total: number) => void;
  /** Sees every run of the budget (not the shrinking runs after a failure), e.g. for model coverage. */
  readonly onRun?: (report: RunReport) => void;
}

export interface VariantOutcome {
  readonly variant: Variant;
  readonly runs: number;
  readonly failed: boolean;
  /** Runs executed until the first failure (1-based), when one failed. */
  readonly runsToFailure?: number;
  readonly msToFailure?: number;
  readonly shrinks?: number;
  readonly report?: RunReport;
  /** How many runs witnessed each `sometimes` property. */
  readonly witnessed: Readonly<Record<string, number>>;
  /** How many runs reached each interesting order (conformance/reach.ts). */
  readonly reached: Readonly<Record<string, number>>;
}

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
  let done = 0;
  for (const variant of variants) {
    const outcome = await checkVariant(variant, runs, seed, opts.bug, () => opts.onProgress?.(++done, runs * variants.length), opts.onRun);
    outcomes.push(outcome);
    if (outcome.failed) break;
  }
  const failed = outcomes.find((o) => o.failed);
  // A bug switched on where it cannot show must not read as "the check missed it".
  const misplaced = opts.bug !== undefined && variants.every((v) => !BUG_VARIANTS[opts.bug as BugName].includes(v));
  const note = misplaced ? `\nnote: ${opts.bug} lives in ${BUG_VARIANTS[opts.bug as BugName].join(', ')}; it cannot show on ${variants.join(', ')}` : '';
  const output = failed?.report === undefined ? passOutput(outcomes) + note : failureOutput(failed.report, { seed, variant: failed.variant, runsToFailure: failed.runsToFailure, shrinks: failed.shrinks });
  const totalRuns = outcomes.reduce((n, o) => n + o.runs, 0);
  const token = failed?.report === undefined ? undefined : tokenOf(failed.report);
  const summary = `sbkit check: ${failed ? 'FAILED' : 'ok'} — ${totalRuns} runs, variants ${outcomes.map((o) => o.variant).join(', ')}, ${propertyCount()} properties + refinement + audit checked, seed ${seed}${opts.bug ? `, bug ${opts.bug}` : ''}`;
  return { exitCode: failed ? 1 : 0, output, summary, variants: outcomes, ...(token === undefined ? {} : { token }) };
}

async function checkVariant(
  variant: Variant,
  runs: number,
  seed: number,
  bug: BugName | undefined,
  tick: () => void,
  onRun?: (report: RunReport) => void,
): Promise<VariantOutcome> {
  const witnessed: Record<string, number> = {};
  const reached: Record<string, number> = {};
  let executed = 0;
  let firstFailure: { run: number; ms: number } | undefined;
  const started = performance.now();
  const schedules = scheduleArb(DEFAULT_BOUNDS.maxReplicas, DEFAULT_BOUNDS.maxWorkersPerProcess * DEFAULT_BOUNDS.maxProcesses);
  const property = fc.asyncProperty(workloadArb(variant, DEFAULT_BOUNDS), schedules, async (workload: Workload, schedule: Schedule) => {
    const report = await runOnce(workload, schedule, bug);
    if (firstFailure === undefined) {
      executed += 1;
      tick();
      onRun?.(report);
      for (const name of report.witnessed) witnessed[name] = (witnessed[name] ?? 0) + 1;
      for (const order of ordersReached(report.trace)) reached[order] = (reached[order] ?? 0) + 1;
    }
    if (report.failures.length > 0) {
      firstFailure ??= { run: executed, ms: performance.now() - started };
      throw new Error(report.failures.map((f) => `${f.check}: ${f.why}`).join('\n'));
    }
  });
  const details = await fc.check(property, { seed, numRuns: runs });
  if (!details.failed || details.counterexample === null) return { variant, runs: executed, failed: false, witnessed, reached };
  const [workload, schedule] = details.counterexample;
  const minimized = await minimize(await runOnce(workload, schedule, bug), bug);
  const report = minimized.report;
  return {
    variant,
    runs: executed,
    failed: true,
    runsToFailure: firstFailure?.run ?? executed,
    msToFailure: firstFailure?.ms ?? 0,
    shrinks: details.numShrinks + minimized.kept,
    report,
    witnessed,
    reached,
  };
}

async function replay(token: string): Promise<CheckResult> {
  const c = decodeToken(token);
  const report = await runOnce(c.workload, c.schedule, c.bug);
  const failed = report.failures.length > 0;
  const output = failed ? failureOutput(report, {}) : `replayed ${describeWorkload(c.workload)}: every check holds`;
  const summary = `sbkit check --replay: ${failed ? 'FAILED' : 'ok'} — 1 run, variant ${c.workload.variant}${c.bug ? `, bug ${c.bug}` : ''}`;
  return {
    exitCode: failed ? 1 : 0,
    output,
    summary,
    ...(failed ? { token } : {}),
    variants: [{ variant: c.workload.variant, runs: 1, failed, report, witnessed: {}, reached: {} }],
  };
}

export function tokenOf(r: RunReport): string {
  return encodeToken({ workload: r.workload, schedule: r.schedule, ...(r.bug === undefined ? {} : { bug: r.bug }) });
}

function propertyCount(): number {
  return properties.filter((p) => p.kind !== 'sometimes').length;
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
      return (
        `${o.variant.padEnd(11)} ${o.runs} runs, every check held` +
        (orders ? `\n            orders reached (runs): ${orders}` : '') +
        (seen ? `\n            sometimes-properties witnessed (runs): ${seen}` : '')
      );
    })
    .join('\n');
}

export function describeWorkload(w: Workload): string {
  const loads = w.loads.map((row, t) => `t${t}:[${row.join(' ')}]`).join(' ');
  return (
    `${w.variant}, ${w.replicas} replica(s) × ${w.processes} process(es) × ${w.workersPerProcess} worker(s), ${w.intervals} interval(s); ` +
    `knob by lower ${JSON.stringify(w.knob)}; loads ${loads}; blobTarget ${w.blobTargetSize}, inlineTotalMax ${w.inlineTotalMaxBytes}, pushChunk ${w.pushChunkUpdates}, pacing ${w.pacing}`
  );
}

function failureOutput(
  r: RunReport,
  ctx: { seed?: number; variant?: Variant; runsToFailure?: number | undefined; shrinks?: number | undefined },
): string {
  const token = tokenOf(r);
  const lines: string[] = [];
  lines.push(`FAILED ${r.workload.variant}${r.bug ? ` with bug ${r.bug}` : ''} (run ended: ${r.outcome})`);
  lines.push(
    ctx.seed === undefined
      ? 'seed: none, replayed from a token (the report that printed it names the seed that found it)'
      : `seed ${ctx.seed}; failed on run ${ctx.runsToFailure ?? '?'}; shrunk in ${ctx.shrinks ?? 0} steps`,
  );
  lines.push(`workload: ${describeWorkload(r.workload)}`);
  lines.push(`schedule: ${describeSchedule(r.schedule)}`);
  lines.push('what failed:');
  for (const f of r.failures) lines.push(`  - [${f.kind}] ${f.check}: ${f.why}`);
  const at = r.failures.find((f) => f.at !== undefined)?.at;
  lines.push(`executed protocol events (${r.trace.length}):`);
  r.trace.forEach((e, i) => lines.push(`  ${i === at ? '>>' : '  '}${String(i).padStart(3)} ${formatEvent(e)}`));
  lines.push(`scheduler log (${r.schedulerLog.split('\n').length} resumes):`);
  lines.push(r.schedulerLog.replace(/^/gm, '  '));
  lines.push(`replay: sbkit check --replay ${token}`);
  return lines.join('\n');
}
