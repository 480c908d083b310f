/**
 * A replica is sealed only when nothing of its sink is left to write (vocab/PROTOCOL.md "Faults"): its
 * lower reached K, no description is live and no superseded description waits for its stale delete.
 * Here that delete fails permanently after the replica's last append reached K; the replica must go
 * down (abort, restart at K) like any other, and the run must settle, judged by every check.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { predictAppends } from '../model/predict.ts';
import { isReplicaSealed } from '../model/system.ts';
import { SchedulePlan } from './faults.ts';
import { formatEvent, judge, judgeRun, modelConfigOf, runOnce, startRun } from './harness.ts';
import { downWithoutSink, sinkOutcome, splitBySink } from './multi-sink.ts';
import { schedulerFor, type Schedule } from './schedule.ts';
import { decodeToken } from './token.ts';
import { materializeSinks } from './workload.ts';
import { workloadOf } from './test-support/workload.ts';

// Two replicas of two workers, three intervals, every worker a medium load (hollow own batches: their
// deletes are blob deletes), free pacing (a description may span intervals, so a mint can supersede).
const workload = workloadOf('off', [
  ['medium', 'medium'],
  ['medium', 'medium'],
  ['medium', 'medium'],
], { replicas: 2, pacing: 'free' });

// Replica 1 mints [0, 1) and its workers hand their batches for it; replica 0 appends [0, 2) first, so
// replica 1's mint supersedes [0, 1) with [2, 3) (append worker 1) before its append began. Replica 1
// appends [2, 3) — its lower reaches K — while description 0's append worker has not yet deleted the
// stale batches; that delete's first blob delete is the run's second, which fails permanently.
const schedule: Schedule = {
  choices: [0, 1, 0, 3, 0, 0, 3, 1, 0, 1, 0, 0, 0, 0, 3, 2, 2, 0, 1, 1, 0, 1, 1, 4, 0, 0, 0, 1, 2, 1, 0, 0, 2, 1, 1, 1, 3, 0, 2, 2, 4, 3, 3, 0, 0, 1, 3, 3, 1, 1, 1],
  starve: [],
  faults: { storage: [], aborts: [], heal: 100_000, deletes: [0, 4] },
};

const at = (trace: readonly TraceEvent[], pred: (e: TraceEvent) => boolean): number => trace.findIndex(pred);

describe('a permanent failure of the stale delete after the lower reached K', () => {
  it('takes the replica down (abort, restart at K) and the run settles, every check holding', async () => {
    const r = await runOnce(workload, schedule);
    const trace = r.trace;
    expect(r.outcome, r.failures.map((f) => f.why).join('; ')).toBe('settled');
    // The situation, as the trace shows it.
    const supersede = at(trace, (e) => e.kind === 'mint' && e.replica === 1 && e.desc.sharedId === 1);
    const sealing = at(trace, (e) => e.kind === 'append' && e.replica === 1 && e.upper === 3 && e.result.ok);
    const failure = at(trace, (e) => e.kind === 'fault' && e.replica === 1 && e.op === 'blob.delete' && e.fault === 'permanent' && e.by === undefined);
    const abort = at(trace, (e) => e.kind === 'abort' && e.replica === 1);
    expect(trace[supersede], trace.map(formatEvent).join('\n')).toMatchObject({ desc: { lower: 2, upper: 3, appendWorker: 1 } });
    expect(supersede).toBeLessThan(sealing);
    expect(sealing).toBeLessThan(failure);
    expect(abort).toBe(failure + 1);
    expect(trace.filter((e) => e.kind === 'delete' && e.replica === 1 && e.reason === 'stale')).toEqual([]);
    expect(trace.find((e) => e.kind === 'restart' && e.replica === 1)).toEqual({ kind: 'restart', replica: 1, lower: 3 });
    // Judged clean by liveness, properties, audit, metrics and refinement.
    expect(r.failures).toEqual([]);
  });
});

// Two MV sinks on each replica. Replica 0's sink 0 appends [0, 2) and is refused (the shard is at K = 4
// already), its delete runs, its lower is K: sealed, its input still at desired 3. Then sink 1's append is
// refused too and its delete fails permanently: the replica goes down for sink 1 only (sink 0 sealed:
// no abort of its own) and restarts for sink 1 alone. Sink 0's input stopped with the process.
const TWO_SINKS = decodeToken(
  'sb1.eyJ2IjoiYmFycmllciIsInMiOlsyLDIsMiw0LDgxOTIsNTk5OSwxMDQ4NTc2LDI1Nl0sImsiOlswXSwiZyI6IjEiLCJsIjpbIjIyMjIiLCIyNDQyIiwiMjIyMiIsIjIyMjIiXSwicCI6ImZyZWUiLCJzbCI6W1siNjI0MiIsIjMyMzMiLCIyMjIyIiwiMjIyMiJdXSwiYyI6W10sInoiOltdLCJxIjpbXSwieCI6WzBdLCJmIjp7InMiOiIiLCJhIjpbXSwiaCI6MTM1LCJkIjoiMDEwMDAwMDQifX0',
);

describe('a replica of two sinks that goes down for one while the other is sealed', () => {
  it('settles judged clean: the sealed sink emits nothing more, and the end of the run does not wait for its frontier', async () => {
    const { workload, schedule } = TWO_SINKS;
    const scheduler = schedulerFor(schedule);
    const plan = new SchedulePlan(schedule.faults ?? { storage: [], aborts: [], heal: 0 }, () => scheduler.steps);
    const { run, trace, updates } = startRun(workload, scheduler, undefined, plan);
    const outcome = await scheduler.drive(run);
    expect(outcome.kind).toBe('settled');
    const abort = at(trace, (e) => e.kind === 'abort' && e.replica === 0);
    expect(trace[abort]).toMatchObject({ sink: 1 });
    expect(trace.filter((e) => e.kind === 'abort' && e.replica === 0 && (e.sink ?? 0) === 0)).toEqual([]);
    expect(trace.filter((e) => e.kind === 'restart' && e.replica === 0).map((e) => e.sink)).toEqual([1]);
    const lastFrontier = trace.filter((e) => e.kind === 'frontier' && e.replica === 0 && e.sink === undefined).at(-1);
    expect(lastFrontier).toMatchObject({ upper: 3 });
    expect(judgeRun(workload, trace, outcome, updates, true).failures).toEqual([]);

    // What is not waited for, and only there: sink 0's model holds replica 0 sealed with its frontier
    // event to K still enabled, and sink 0 judged as if its replica had not gone down fails on it.
    const own = materializeSinks(workload, updates)[0] ?? [];
    const cfg = { ...modelConfigOf(workload, own, true), sharedRegistry: true };
    const part = splitBySink(trace, 2)[0]?.events ?? [];
    const replay = predictAppends(cfg, part);
    expect(replay.ok && isReplicaSealed(replay.state, 0)).toBe(true);
    expect(replay.ok && replay.pending.map(formatEvent)).toEqual(['r0 frontier: desired upper 4']);
    expect(downWithoutSink(trace, 0)).toEqual(new Set([0]));
    expect(downWithoutSink(trace, 1)).toEqual(new Set());
    const unexcused = judge(workload, part, sinkOutcome(outcome, 0), cfg, false);
    expect(unexcused.failures.map((f) => f.why)).toEqual(['the implementation ended but the model still has enabled: r0 frontier: desired upper 4']);
  });
});
