import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { DEFAULT_RUNS } from './check.ts';
import { runOnce } from './harness.ts';
import { downWithoutSink, reachOf, splitBySink } from './multi-sink.ts';
import { scheduleArb } from './schedule.ts';
import { DEFAULT_BOUNDS, workloadArb } from './workload.ts';

describe('several MV sinks: a replica that went down without a sink', () => {
  it('is one whose abort (the events the supervisor emits together) names other sinks only', () => {
    const abort = (replica: number, sink?: number): TraceEvent => ({ kind: 'abort', replica, reason: 'crash', ...(sink === undefined ? {} : { sink }) });
    const trace: TraceEvent[] = [
      abort(0),
      abort(0, 1),
      { kind: 'restart', replica: 0, lower: 1 },
      { kind: 'restart', replica: 0, lower: 1, sink: 1 },
      abort(1, 1),
      abort(0, 1),
    ];
    // Replica 0's first abort named both sinks; its second and replica 1's only sink 1.
    expect(downWithoutSink(trace, 0)).toEqual(new Set([0, 1]));
    expect(downWithoutSink(trace, 1)).toEqual(new Set());
    expect(downWithoutSink(trace.slice(0, 4), 0)).toEqual(new Set());
  });
});

describe('several MV sinks: splitting a run by sink', () => {
  it("gives each sink its events without the sink field, each sink its part of a shared sweep (the sweeper's own with its worker), and a visit of another sink's entry to that sink", () => {
    const trace: TraceEvent[] = [
      { kind: 'frontier', replica: 0, upper: 1 },
      { kind: 'frontier', replica: 0, upper: 1, sink: 1 },
      { kind: 'sweep-hold', replica: 0, process: 0, worker: 1, sharedId: 0, entrySink: 0, sink: 1 },
      { kind: 'sweep-release', replica: 0, process: 0, worker: 1, sharedId: 0, closed: false, entrySink: 0, sink: 1 },
      {
        kind: 'sweep',
        replica: 0,
        process: 0,
        worker: 1,
        removed: [0, 3],
        sinks: [
          { sink: 0, removed: [0] },
          { sink: 1, removed: [3] },
        ],
        sink: 1,
      },
    ];
    const [s0, s1] = splitBySink(trace, 2);
    expect(s0?.events).toEqual([
      trace[0],
      { kind: 'sweep-hold', replica: 0, process: 0, sharedId: 0 },
      { kind: 'sweep-release', replica: 0, process: 0, sharedId: 0, closed: false },
      { kind: 'sweep', replica: 0, process: 0, removed: [0] },
    ]);
    expect(s0?.at).toEqual([0, 2, 3, 4]);
    expect(s1?.events).toEqual([{ kind: 'frontier', replica: 0, upper: 1 }, { kind: 'sweep', replica: 0, process: 0, worker: 1, removed: [3] }]);
    expect(s1?.at).toEqual([1, 4]);
    expect(() => splitBySink([{ kind: 'frontier', replica: 0, upper: 1, sink: 2 }], 2)).toThrow(/names sink 2; the run has 2/);
  });
});

describe('several MV sinks: the cross-sink sweep race is reachable and found', () => {
  it(`with sweep-upgrade-race, over the default budget (${DEFAULT_RUNS} runs), a sweep one sink started breaks another sink's finish, and every such run fails`, async () => {
    const workloads = fc.sample(workloadArb('best-effort', DEFAULT_BOUNDS), { numRuns: DEFAULT_RUNS, seed: 20261130 });
    const schedules = fc.sample(scheduleArb(DEFAULT_BOUNDS.maxReplicas, DEFAULT_BOUNDS.maxWorkersPerProcess * DEFAULT_BOUNDS.maxProcesses, 'mixed'), { numRuns: DEFAULT_RUNS, seed: 20261131 });
    let crossSink = 0;
    let crossSinkFailed = 0;
    for (const [i, w] of workloads.entries()) {
      const r = await runOnce(w, schedules[i] ?? { choices: [], starve: [] }, 'sweep-upgrade-race');
      if (!reachOf(r).has('cross-sink-sweep')) continue;
      crossSink += 1;
      // The broken finish shows as a refinement or property failure of the sink it belongs to.
      if (r.failures.some((f) => /^sink \d: /.test(f.why) && (f.kind === 'refinement' || f.kind === 'property'))) crossSinkFailed += 1;
    }
    expect(crossSink).toBeGreaterThan(0);
    expect(crossSinkFailed).toBe(crossSink);
  });
});
