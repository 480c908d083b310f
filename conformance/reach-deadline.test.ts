/** The reach counters of a barrier with a deadline (reach.ts), recognised on hand-written traces. */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { reachOf } from './multi-sink.ts';
import { DEADLINE_PATHS, limitsReached, requiredReach } from './reach.ts';
import { workloadOf } from './test-support/workload.ts';

const w = workloadOf('barrier', [['tiny', 'tiny', 'none']]);
const at = { replica: 0, process: 0, sharedId: 0 };
const mint: TraceEvent = { kind: 'mint', replica: 0, desc: { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 100, barrier: true } };
const open = (worker: number, created: boolean, participants: number | null): TraceEvent => ({ kind: 'open', ...at, worker, created, participants });
const begin = (worker: number, last: boolean): TraceEvent => ({ kind: 'finish-begin', ...at, worker, last });
const skip = (worker: number): TraceEvent => ({ kind: 'skip', ...at, worker, early: false });
const deadlinePaths = (trace: readonly TraceEvent[], timersIdle = 0): string[] =>
  [...reachOf({ trace, workload: w, timersIdle })].filter((p) => (DEADLINE_PATHS as readonly string[]).includes(p)).sort();

describe('reach counters of a barrier with a deadline', () => {
  it('a timer that completes the barrier, a late worker and its skip', () => {
    const trace = [mint, open(0, true, 3), begin(0, false), { kind: 'timeout', ...at, completes: true } as TraceEvent, open(1, true, null), skip(2)];
    expect(deadlinePaths(trace)).toEqual(['late-worker-after-timeout', 'skip-after-timeout', 'timeout-fired']);
  });

  it('a barrier that completed at its deadline by a finish (the timer fired while that handle pushed): a later skip is a late one', () => {
    const trace = [mint, open(0, true, 3), open(1, false, 3), begin(0, false), { kind: 'timeout', ...at, completes: false } as TraceEvent, begin(1, true), skip(2)];
    expect(deadlinePaths(trace)).toEqual(['skip-after-timeout', 'timeout-fired']);
    // every participant reported: a normal completion, no skip after it is late (nor enabled)
    expect([...limitsReached([mint, open(0, true, 3), open(1, false, 3), skip(2), begin(0, false), begin(1, true)], w)]).not.toContain('skip-after-timeout');
  });

  it('a timer that fired after its barrier completed is no event: the scheduler log counts it', () => {
    expect(deadlinePaths([mint], 1)).toEqual(['timeout-after-complete']);
    expect(deadlinePaths([mint], 0)).toEqual([]);
  });

  it('are required only where the variant’s barrier has a deadline', () => {
    for (const variant of ['off', 'best-effort', 'barrier']) for (const p of DEADLINE_PATHS) expect(requiredReach(variant)).not.toContain(p);
  });
});
