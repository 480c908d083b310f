/**
 * The judge must be able to fail on each of its checks: canaries built from a real, passing run by
 * changing one thing the implementation reported.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import type { RunResult } from '../impl/run.ts';
import type { DriveOutcome } from './choice-scheduler.ts';
import { formatEvent, judge, refinementCheck, runOnce, RUN_PHASES, type RunPhases } from './harness.ts';
import { FIFO } from './schedule.ts';
import { workloadOf } from './test-support/workload.ts';

const base = workloadOf('best-effort', [
    ['medium', 'large'],
    ['tiny', 'tiny'],
  ]);

async function passing() {
  const report = await runOnce(base, FIFO);
  expect(report.failures).toEqual([]);
  return report;
}

/** A settled outcome with this audit (the real run's was clean; judge reads only these numbers). */
function settledWith(audit: { lost: number; duplicated: number; leakedBlobs: number }): DriveOutcome<RunResult> {
  const value = { audit: { ...audit, danglingKeys: [] }, metrics: { cleanupRuns: 0 }, leaks: { fromAborted: 0, fromLive: audit.leakedBlobs, collected: 0, collectedFromLiveWriters: 0 } };
  return { kind: 'settled', steps: 0, value: value as unknown as RunResult };
}

function settledClean(): DriveOutcome<RunResult> {
  return settledWith({ lost: 0, duplicated: 0, leakedBlobs: 0 });
}

function mutate(trace: readonly TraceEvent[], kind: TraceEvent['kind'], change: (e: never) => TraceEvent): TraceEvent[] {
  const i = trace.findIndex((e) => e.kind === kind);
  expect(i).toBeGreaterThanOrEqual(0);
  return trace.map((e, j) => (j === i ? change(e as never) : e));
}

describe('judge', () => {
  it('passes a clean run of both kinds of batch in one append', async () => {
    const r = await passing();
    expect(r.trace.some((e) => e.kind === 'own-batch')).toBe(true);
    expect(r.trace.some((e) => e.kind === 'open')).toBe(true);
  });

  it('fails part counts the model did not predict', async () => {
    const r = await passing();
    const trace = mutate(r.trace, 'append', (e: Extract<TraceEvent, { kind: 'append' }>) => ({ ...e, parts: { ...e.parts, hollow: e.parts.hollow + 1 } }));
    const out = judge(base, trace, settledClean());
    expect(out.failures.map((f) => f.check)).toContain('part-counts-as-predicted');
  });

  it('fails a receiver the model did not predict', async () => {
    const r = await passing();
    const trace = mutate(r.trace, 'finish-begin', (e: Extract<TraceEvent, { kind: 'finish-begin' }>) => ({ ...e, last: !e.last }));
    const out = judge(base, trace, settledClean());
    expect(out.failures.map((f) => f.check)).toContain('receiver-as-predicted');
  });

  it('fails a run that ends early, and names what the model still expected', async () => {
    const r = await passing();
    const out = judge(base, r.trace.slice(0, -1), settledClean());
    const f = out.failures.find((x) => x.kind === 'refinement');
    expect(f?.why).toMatch(/the implementation ended but the model still has enabled: r0 append/);
  });

  it('reports the audit, a deadlock, an error and a step limit each under its own name', async () => {
    const r = await passing();
    const audit = judge(base, r.trace, settledWith({ lost: 1, duplicated: 2, leakedBlobs: 3 }));
    expect(audit.failures.filter((f) => f.kind === 'audit').map((f) => f.check)).toEqual(['shard-has-every-update', 'shard-has-no-duplicate', 'no-leaked-blobs']);
    // The same storage facts reach the blob-level properties.
    expect(audit.failures.filter((f) => f.kind === 'property').map((f) => f.check)).toEqual(['nothing-duplicated', 'converges-after-faults', 'leaks-only-from-aborts']);

    const finishOnly = r.trace.slice(0, r.trace.findIndex((e) => e.kind === 'finish-begin') + 1);
    const dead = judge(base, finishOnly, { kind: 'deadlock', steps: 9 });
    expect(dead.failures[0]).toMatchObject({ kind: 'liveness', check: 'no-deadlock' });
    expect(dead.failures[0]?.why).toMatch(/deadlock after 9 steps: .*finish of r0 w\d id 0 never returned/);
    expect(judge(base, [], { kind: 'deadlock', steps: 0 }).failures[0]?.why).toMatch(/no finish is waiting/);

    const threw = judge(base, r.trace, { kind: 'threw', steps: 1, error: new TypeError('boom') });
    expect(threw.failures[0]).toMatchObject({ kind: 'impl-error', why: 'TypeError: boom' });
    expect(judge(base, r.trace, { kind: 'threw', steps: 1, error: 'plain' }).failures[0]?.why).toBe('plain');

    const limit = judge(base, r.trace, { kind: 'step-limit', steps: 5, pending: [{ label: 'sweep', replica: 0 }] });
    expect(limit.failures[0]).toMatchObject({ kind: 'liveness', check: 'terminates' });
    expect(limit.failures[0]?.why).toMatch(/points still waiting: sweep\); pending: /);
    expect(dead.failures[0]?.why).toMatch(/pending: replica 0's append of \[0, 1\) waits for hands from workers/);
  });

  it('names refinement failures by what users ask about', () => {
    expect(refinementCheck('predicted field differs: append.parts.hollow expected 1, got 2')).toBe('part-counts-as-predicted');
    expect(refinementCheck('predicted field differs: hand.batches.0.parts.inline expected 1, got 0')).toBe('part-counts-as-predicted');
    expect(refinementCheck('predicted field differs: finish-end.received expected null, got {…}')).toBe('receiver-as-predicted');
    expect(refinementCheck('not enabled: drop')).toBe('trace-refines-model');
  });

  it('formats events as one readable line (no JSON), naming the MV sink of several, a blob key one way', () => {
    expect(formatEvent({ kind: 'frontier', replica: 1, upper: 3 })).toBe('r1 frontier: desired upper 3');
    expect(formatEvent({ kind: 'sweep', replica: 0, process: 1, removed: [2] })).toBe('r0 p1 sweep → removed [2]');
    expect(formatEvent({ kind: 'skip', replica: 0, process: 0, worker: 2, sharedId: 4, early: true })).toBe('r0 w2 skip id=4 → early');
    expect(formatEvent({ kind: 'mint', replica: 0, sink: 1, desc: { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 8192, barrier: false } })).toBe('r0 s1 mint id=0 [0, 1) append-worker=w0 knob=8192 B');
    expect(formatEvent({ kind: 'fault', replica: 0, op: 'consensus.cas', fault: 'indeterminate-applied', by: 'supervisor' })).toBe('r0 fault consensus.cas → indeterminate-applied (seen by the supervisor)');
    expect(formatEvent({ kind: 'abort', replica: 1, reason: 'permanent storage failure: injected fault: blob.delete "w1-r1/part-2" failed (permanent)' })).toBe(
      'r1 abort (permanent storage failure: injected fault: blob.delete w1-r1/part-2 failed (permanent))',
    );
  });
});

describe('runOnce phases', () => {
  it('adds each phase of a run to the record given, and together no more than the run took', async () => {
    const phases = Object.fromEntries(RUN_PHASES.map((p) => [p, 0])) as RunPhases;
    const started = performance.now();
    const report = await runOnce(base, FIFO, undefined, { phases });
    const took = performance.now() - started;
    expect(report.failures).toEqual([]);
    expect(Object.keys(phases).sort()).toEqual([...RUN_PHASES].sort());
    for (const p of RUN_PHASES) expect(phases[p]).toBeGreaterThanOrEqual(0);
    // The implementation ran under the scheduler and the run was judged: both took some time.
    expect(phases.implementation).toBeGreaterThan(0);
    expect(phases.judge).toBeGreaterThan(0);
    const sum = RUN_PHASES.reduce((n, p) => n + phases[p], 0);
    expect(sum).toBeLessThanOrEqual(took);
    // A second run adds to the same record.
    const before = phases.implementation;
    await runOnce(base, FIFO, undefined, { phases });
    expect(phases.implementation).toBeGreaterThan(before);
  });
});
