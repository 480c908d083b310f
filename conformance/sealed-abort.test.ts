/**
 * A replica is sealed only when nothing of its sink is left to write (vocab/PROTOCOL.md "Faults"): its
 * lower reached K, no description is live and no superseded description waits for its stale delete.
 * Here that delete fails permanently after the replica's last append reached K; the replica must go
 * down (abort, restart at K) like any other, and the run must settle, judged by every check.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { formatEvent, runOnce } from './harness.ts';
import type { Schedule } from './schedule.ts';
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
