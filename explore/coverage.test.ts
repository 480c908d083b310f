import { describe, expect, it } from 'vitest';
import { TransitionCounts, machineTransitions } from '../model/coverage.ts';
import { type CoverageCollector, coverageJson, coverageReasons, coverageResult, renderCoverage, runCoverage } from './coverage.ts';

const ALL = machineTransitions().reduce((n, m) => n + m.transitions.length, 0);

describe('model coverage', () => {
  it('counts the transitions of real conformance runs and explains each one never taken', async () => {
    const r = await runCoverage({ variants: ['best-effort'], runs: 60, seed: 1 });
    expect(r.runs).toEqual({ 'best-effort': 120 }); // 60 without faults, 60 with
    // one row per transition of the machines (model/mermaid.ts machineTransitions)
    expect(r.rows).toHaveLength(ALL);
    const cell = (machine: string, transition: string) => r.rows.find((x) => x.machine === machine && x.transition === transition)?.cells['best-effort'];
    expect(cell('worker', 'handing --> done : HAND')?.verdict).toBe('taken');
    expect(cell('worker', 'handing --> done : HAND')?.taken).toBeGreaterThan(60);
    // noData 'finish' (drawn by the workloads): a worker with no data opens and finishes an empty handle
    expect(cell('worker', 'idle --> shared_opening : STAGE [finishesEmpty]')?.verdict).toBe('taken');
    expect(cell('handle', 'opened --> finishing : FINISH_BEGIN [pushedEverything]')?.verdict).toBe('taken');
    expect(cell('sweep', 'idle --> holding : SWEEP_HOLD [beginsWithHold]')).toMatchObject({ verdict: 'bug-only', taken: 0 });
    expect(cell('sweep', 'idle --> swept : SWEEP [sweepsAtOnce]')?.verdict).toBe('taken');
    // the workloads flip the barrier flag, so best-effort runs finalize barrier builders too
    expect(cell('builder', 'live --> finalized : FINISH_BEGIN [finalizesBarrier]')?.verdict).toBe('taken');
    expect(cell('builder', 'notLive_dead --> notLive_dead : SKIP [isBarrier]')?.why).toContain('over-reporting');
    const text = renderCoverage(r);
    expect(text).toContain('best-effort: ');
    expect(text).toMatch(/^worker {3}handing --> done : HAND +\d[\d,]*$/m);
    expect(text.trimEnd().split('\n').pop()).toBe(r.summary);
    expect(coverageJson(r)).toMatchObject({ seed: 1, runs: { 'best-effort': 120 } });
    // The fault world's transitions are taken by the runs with faults, and misreading is a model bug.
    expect(cell('append', 'ready --> committed : INDETERMINATE_APPLIED [appliesAtShardUpper]')?.verdict).toBe('taken');
    expect(cell('append', 'committed --> mismatched : MISREAD [hasBatches]')).toMatchObject({ verdict: 'bug-only', taken: 0 });
  });

  it('reports a gap — a transition the model reaches that no run took — and fails', async () => {
    const empty: CoverageCollector = { onRun: () => undefined, runs: { off: 0 }, rejected: {}, counts: new Map([['off', new TransitionCounts()]]) };
    const r = await coverageResult(empty, 1);
    expect(r.exitCode).toBe(1);
    expect(r.gaps).toContainEqual({ variant: 'off', machine: 'append', transition: 'ready --> appended : APPEND [commits]' });
    // counted over what off can reach (not all of them), each transition once, named with the variants it is a gap in
    const reachable = r.rows.filter((x) => x.cells.off?.verdict === 'gap').length;
    expect(reachable).toBeLessThan(ALL);
    expect(r.summary).toMatch(new RegExp(`^sbkit model --coverage: GAPS — 0 conformance runs \\(seed 1\\) took off 0 of ${reachable} transitions the model reaches there \\(of ${ALL} in the machines\\); ${reachable} reachable transitions never taken: .*append: ready --> appended : APPEND \\[commits\\] \\(off\\)`));
    expect(coverageReasons(r, 3)).toEqual([{ exit: 4, text: expect.stringMatching(new RegExp(`^model coverage: ${reachable} reachable transitions never taken in 3 runs per variant \\(seed 1\\): .*, and ${reachable - 3} more \\(a small budget: --runs 500, the default, takes every one\\)$`)) }]);
    expect(coverageReasons(r, 500)).toEqual([{ exit: 1, text: expect.stringContaining('at the default budget: the generators or the implementation lost a path') }]);
  });
});
