/**
 * runSink with a recording observer, under the pass-through or a step scheduler.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import { runSink, type RunConfig, type RunResult } from '../run.ts';
import { StepScheduler, fifo, type Outcome, type Pick } from './step-scheduler.ts';

export async function recordRun(config: RunConfig): Promise<{ result: RunResult; events: TraceEvent[] }> {
  const events: TraceEvent[] = [];
  const result = await runSink({ ...config, observer: { event: (e) => events.push(e) } });
  return { result, events };
}

export interface SteppedRun {
  readonly out: Outcome<RunResult>;
  readonly events: TraceEvent[];
  /** For each event, the scheduler step during which it was emitted. */
  readonly eventSteps: number[];
  readonly sched: StepScheduler;
}

export async function steppedRun(config: RunConfig, pick: Pick = fifo, maxSteps?: number): Promise<SteppedRun> {
  const sched = new StepScheduler();
  const events: TraceEvent[] = [];
  const eventSteps: number[] = [];
  const observer = {
    event: (e: TraceEvent) => {
      events.push(e);
      eventSteps.push(sched.step);
    },
  };
  const out = await sched.run(() => runSink({ ...config, scheduler: sched, observer }), { pick, ...(maxSteps === undefined ? {} : { maxSteps }) });
  return { out, events, eventSteps, sched };
}

/** The settled result, or a thrown error describing the outcome. */
export function settled(run: SteppedRun): RunResult {
  if (run.out.kind === 'settled') return run.out.value;
  throw new Error(`run did not settle: ${run.out.kind}${run.out.kind === 'rejected' ? ` (${String(run.out.error)})` : ''}`);
}
