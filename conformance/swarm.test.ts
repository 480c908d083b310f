import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { swarmArb, swarmFlags, swarmLoad, swarmPersist, swarmShape, type Swarm } from './swarm.ts';
import { CUT_EDGE, INLINE_EDGE, LOAD_CLASSES, workloadArb } from './workload.ts';

const none: Swarm = {
  oneReplica: false,
  oneProcess: false,
  fewWorkers: false,
  fewIntervals: false,
  idleWorker: false,
  flagFlips: false,
  persistEdges: false,
  singleEdge: 0,
  targetEdge: 0,
  omitLoads: LOAD_CLASSES.map(() => false),
};

describe('swarm testing (swarm.ts)', () => {
  it('the all-false swarm, what every bit shrinks to, restricts nothing', () => {
    const shape = { replicas: 2, processes: 2, workersPerProcess: 8, intervals: 6 };
    expect(swarmShape(none, shape)).toEqual(shape);
    for (const l of LOAD_CLASSES) expect(swarmLoad(none, l, 0, 2)).toBe(l);
    expect(swarmPersist(none, { inlineSingleMaxBytes: 1, blobTargetSize: 2 })).toEqual({ inlineSingleMaxBytes: 1, blobTargetSize: 2 });
    expect(swarmFlags(none, [true, false], 3, false)).toEqual([false]);
  });

  it('each feature does what it says', () => {
    const all: Swarm = { ...none, oneReplica: true, oneProcess: true, fewWorkers: true, fewIntervals: true };
    expect(swarmShape(all, { replicas: 2, processes: 2, workersPerProcess: 8, intervals: 6 })).toEqual({ replicas: 1, processes: 1, workersPerProcess: 2, intervals: 3 });
    expect(swarmLoad({ ...none, idleWorker: true }, 'large', 2, 2)).toBe('none');
    expect(swarmLoad({ ...none, idleWorker: true }, 'large', 3, 2)).toBe('large');
    const omitted = { ...none, omitLoads: LOAD_CLASSES.map((l) => l === 'large') };
    expect(swarmLoad(omitted, 'large', 1, 2)).toBe('none');
    expect(swarmLoad({ ...none, omitLoads: LOAD_CLASSES.map((l) => l === 'large' || l === 'none') }, 'large', 1, 2)).toBe('tiny');
    const edges: Swarm = { ...none, persistEdges: true, singleEdge: 1, targetEdge: -1 };
    expect(swarmPersist(edges, { inlineSingleMaxBytes: 1, blobTargetSize: 2 })).toEqual({ inlineSingleMaxBytes: INLINE_EDGE + 1, blobTargetSize: CUT_EDGE - 1 });
    expect(swarmLoad(edges, 'large', 1, 2)).toBe('inline-edge');
    expect(swarmLoad(edges, 'boundary', 1, 2)).toBe('cut-edge');
  });

  it('a flipping flag flips within the frontiers the run reads', () => {
    const flips = { ...none, flagFlips: true };
    expect(swarmFlags(flips, [true, true, true, true], 2, false)).toEqual([true, true, false, true]);
    expect(swarmFlags(flips, [false, true], 5, false)).toEqual([false, true]);
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 7 }), fc.integer({ min: 1, max: 6 }), (drawn, intervals) => {
        const f = swarmFlags(flips, drawn, intervals, true);
        expect(new Set(f.slice(0, intervals + 1)).size).toBe(2);
      }),
    );
  });

  it('draws every feature on and off across a budget, and the workloads stay in bounds', () => {
    const swarms = fc.sample(swarmArb(), { numRuns: 200, seed: 1 });
    for (const key of ['oneReplica', 'oneProcess', 'fewWorkers', 'fewIntervals', 'idleWorker', 'flagFlips', 'persistEdges'] as const) {
      expect(new Set(swarms.map((s) => s[key])).size, key).toBe(2);
    }
    for (const w of fc.sample(workloadArb('barrier'), { numRuns: 200, seed: 2 })) {
      expect(w.loads.length).toBe(w.intervals);
      for (const row of w.loads) expect(row.length).toBe(w.processes * w.workersPerProcess);
      expect(w.barrierFlags.length).toBeGreaterThan(0);
    }
  });
});
