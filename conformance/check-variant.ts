/**
 * One variant's share of `sbkit check`: `runs` random workloads × schedules from one seed through the
 * harness; on the first failure fast-check shrinks workload and schedule together, then structural
 * minimization (minimize.ts), then, if it is still long, a re-search on small shapes (research.ts).
 * Runs in the main thread or in a worker thread (parallel.ts) alike.
 */
import fc from 'fast-check';
import type { BugName, Variant } from '../vocab/index.ts';
import { runOnce, type FaultTally, type RunReport } from './harness.ts';
import { minimize } from './minimize.ts';
import { researchSmaller } from './research.ts';
import { CONFIG_CHECKS, runStream, streamReport } from './streams.ts';
import { reachOf } from './multi-sink.ts';
import { runArb } from './rare.ts';
import type { Schedule, Strategy } from './schedule.ts';
import { Steering, steers } from './steer.ts';
import { DEFAULT_BOUNDS, type Workload } from './workload.ts';

export interface VariantTask {
  readonly variant: Variant;
  readonly runs: number;
  readonly seed: number;
  readonly bug?: BugName | undefined;
  readonly strategy: Strategy;
  /** Fault rate (faults.ts), or undefined: nothing fails. */
  readonly faults?: number | undefined;
  /** False: stop at the first failing run, neither shrunk nor minimized (canaries, mutation testing). */
  readonly shrink?: boolean | undefined;
  /** True: the checks derived from the configuration alone ride on every run, as the run's
   * configuration picks them, and no stream runs (streams.ts); default false: they run as streams. */
  readonly fold?: boolean | undefined;
}

export interface VariantOutcome {
  readonly variant: Variant;
  readonly runs: number;
  readonly failed: boolean;
  /** Runs executed until the first failure (1-based), when one failed. */
  readonly runsToFailure?: number;
  readonly msToFailure?: number;
  /** CPU time (this process, user + system) until the first failure: steadier than wall time on a
   * shared machine (the gallery's figures; with one job, the process is this check). */
  readonly cpuMsToFailure?: number;
  readonly shrinks?: number;
  /** Runs spent after the first failure: minimization's and the re-search's (not fast-check's shrinks). */
  readonly shrinkRuns?: number;
  readonly report?: RunReport;
  /** How many runs witnessed each `sometimes` property. */
  readonly witnessed: Readonly<Record<string, number>>;
  /** How many runs reached each interesting order (conformance/reach.ts). */
  readonly reached: Readonly<Record<string, number>>;
  /** What the fault world did over the runs (zeros without faults). */
  readonly faults: FaultTally;
  /** Runs of each stream of checks derived from the configuration alone (streams.ts); none when folded. */
  readonly streams?: Readonly<Record<string, number>>;
}

export interface VariantHooks {
  /** Called after every run (the progress bar). */
  tick(): void;
  /** True once another job found a failure: the remaining runs are skipped. */
  stopped?(): boolean;
  /** Sees every run of the budget (not the shrinking runs after a failure), e.g. for model coverage. */
  onRun?(report: RunReport): void;
}

export async function checkVariant(task: VariantTask, hooks: VariantHooks): Promise<VariantOutcome> {
  const { variant, runs, seed, bug, strategy } = task;
  const fold = task.fold === true;
  const tally = { injected: {} as Record<string, number>, aborts: 0, restarts: 0, leaked: 0, collected: 0 };
  const witnessed: Record<string, number> = {};
  const reached: Record<string, number> = {};
  let executed = 0;
  let firstFailure: { run: number; ms: number; cpuMs: number } | undefined;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  // Steered strategies (steer.ts) derive runs from earlier ones that reached something new.
  const steering = steers(strategy) ? new Steering(variant, DEFAULT_BOUNDS, strategy, task.faults, seed) : undefined;
  const drawn = steering?.arb ?? runArb(variant, DEFAULT_BOUNDS, strategy, task.faults);
  const property = fc.asyncProperty(drawn, async (run: { workload: Workload; schedule: Schedule }) => {
    const { workload, schedule } = run;
    if (firstFailure === undefined && hooks.stopped?.() === true) return;
    const report = await runOnce(workload, schedule, bug, { configChecks: fold });
    if (firstFailure === undefined) {
      executed += 1;
      steering?.observe(run, report);
      hooks.tick();
      hooks.onRun?.(report);
      for (const name of report.witnessed) witnessed[name] = (witnessed[name] ?? 0) + 1;
      for (const name of reachOf(report)) reached[name] = (reached[name] ?? 0) + 1;
      for (const [k, n] of Object.entries(report.faults.injected)) tally.injected[k] = (tally.injected[k] ?? 0) + n;
      tally.aborts += report.faults.aborts;
      tally.restarts += report.faults.restarts;
      tally.leaked += report.faults.leaked;
      tally.collected += report.faults.collected;
    }
    if (report.failures.length > 0) {
      if (firstFailure === undefined) {
        const cpu = process.cpuUsage(cpuStarted);
        firstFailure = { run: executed, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
      }
      throw new Error(report.failures.map((f) => `${f.check}: ${f.why}`).join('\n'));
    }
  });
  const shrink = task.shrink !== false;
  const details = await fc.check(property, { seed, numRuns: runs, ...(shrink ? {} : { endOnFailure: true }) });
  if (!details.failed || details.counterexample === null) {
    const passed = { variant, runs: executed, failed: false, witnessed, reached, faults: tally };
    return fold ? passed : withStreams(passed, task, hooks);
  }
  const [{ workload, schedule }] = details.counterexample;
  const first = await runOnce(workload, schedule, bug, { configChecks: fold });
  const minimized = shrink ? await minimize(first, bug) : { report: first, kept: 0, tried: 0 };
  // Still long: a shorter counterexample searched for on small shapes (research.ts).
  const researched = shrink ? await researchSmaller(minimized.report, { variant, seed, bug, strategy, faults: task.faults, fold }) : { report: minimized.report, tried: 0 };
  const report = researched.report;
  return {
    variant,
    runs: executed,
    failed: true,
    runsToFailure: firstFailure?.run ?? executed,
    msToFailure: firstFailure?.ms ?? 0,
    cpuMsToFailure: firstFailure?.cpuMs ?? 0,
    shrinks: details.numShrinks + minimized.kept,
    shrinkRuns: minimized.tried + researched.tried,
    report,
    witnessed,
    reached,
    faults: tally,
  };
}

/** The streams of checks derived from the configuration alone (streams.ts), after the runs passed:
 * their counts, or the first stream's failure as the variant's. */
async function withStreams(passed: VariantOutcome, task: VariantTask, hooks: VariantHooks): Promise<VariantOutcome> {
  const streams: Record<string, number> = {};
  for (const check of CONFIG_CHECKS) {
    if (hooks.stopped?.() === true) break;
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const s = await runStream(check, task.variant, check.budget(task.runs, check.cases(task.variant)), task.seed, task.bug, hooks.stopped);
    streams[check.name] = s.runs;
    if (s.failure === undefined) continue;
    const cpu = process.cpuUsage(cpuStarted);
    const f = s.failure;
    return {
      ...passed,
      failed: true,
      runsToFailure: f.runsToFailure,
      msToFailure: performance.now() - started,
      cpuMsToFailure: (cpu.user + cpu.system) / 1000,
      shrinks: f.shrinks,
      report: streamReport(check.name, f.pick, f.workload, f.why, task.bug),
      streams,
    };
  }
  return { ...passed, streams };
}
