/**
 * Scenario tests: whole runs of the sink, checked on metrics, trace and the shard's audit.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent, Variant } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import type { RunResult } from '../run.ts';
import { ofKind } from '../test-support/harness.ts';
import { recordRun, settled, steppedRun } from '../test-support/run-harness.ts';
import { seeded } from '../test-support/step-scheduler.ts';
import { perWorker, uniform } from '../test-support/workloads.ts';
import { partitionWorker } from '../update.ts';

const MiB = 1 << 20;

function expectExactlyOnce(result: RunResult, total: number): void {
  expect(result.upper).toBeGreaterThan(0);
  expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, expectedUpdates: total, foundUpdates: total });
  expect(result.metrics.updatesAppended).toBe(total);
}

describe('scenario: 8 workers in 1 process, 50 intervals, ~1000 updates of ~100 bytes each, threshold 1 MiB', () => {
  const intervals = 50;
  const updates = uniform(intervals, 1000, 80); // 80-byte values + key/time/diff ≈ 96 payload bytes
  const workersWithData = (() => {
    let sum = 0;
    for (let t = 0; t < intervals; t++) {
      sum += new Set(updates.filter((u) => u.time === t).map((u) => partitionWorker(u.key, 8))).size;
    }
    return sum / intervals;
  })();
  const results = new Map<Variant, RunResult>();
  const traces = new Map<Variant, TraceEvent[]>();

  for (const variant of VARIANTS) {
    it(`${variant}: every update appended exactly once, under a seeded random interleaving`, async () => {
      const run = await steppedRun(
        { variant, replicas: 1, processes: 1, workersPerProcess: 8, intervals, updates, maxBytes: MiB },
        seeded(1),
      );
      const result = settled(run);
      expectExactlyOnce(result, updates.length);
      expect(result.metrics.appends).toBe(intervals);
      expect(result.metrics.consensusCommands).toBe(intervals);
      results.set(variant, result);
      traces.set(variant, run.events);
    });
  }

  it('parts per append: off = workers with data, barrier = exactly 1.0, best-effort in between', () => {
    const off = results.get('off')?.metrics;
    const be = results.get('best-effort')?.metrics;
    const barrier = results.get('barrier')?.metrics;
    expect(workersWithData).toBe(8);
    expect(off?.partsPerAppend).toBe(workersWithData);
    expect(barrier?.partsPerAppend).toBe(1);
    expect(be?.partsPerAppend).toBeGreaterThan(1);
    expect(be?.partsPerAppend).toBeLessThan(workersWithData);
    // Best-effort: parts per append = the overlap groups of each description (one batch each).
    for (const a of ofKind(traces.get('best-effort') ?? [], 'append')) {
      expect(a.parts.hollow + a.parts.inline).toBe(a.batches);
    }
    // Sharing writes fewer, larger parts: fewer PUTs and smaller state diffs, same commands.
    expect(barrier?.blobPuts).toBeLessThan(be?.blobPuts ?? 0);
    expect(be?.blobPuts).toBeLessThan(off?.blobPuts ?? 0);
    expect(barrier?.stateDiffBytes).toBeLessThan(off?.stateDiffBytes ?? 0);
    expect(barrier?.consensusCommands).toBe(off?.consensusCommands);
  });

  it('the pass-through scheduler (production) completes every variant with no loss', async () => {
    for (const variant of ['off', 'barrier'] as const) {
      const { result } = await recordRun({ variant, replicas: 1, processes: 1, workersPerProcess: 8, intervals, updates, maxBytes: MiB });
      expectExactlyOnce(result, updates.length);
      expect(result.metrics.partsPerAppend).toBe(variant === 'off' ? 8 : 1);
    }
  });
});

describe('scenario: 2 replicas on one shard', () => {
  const intervals = 8;
  const updates = uniform(intervals, 60, 40);
  for (const variant of VARIANTS) {
    for (const seed of [3, 4]) {
      it(`${variant} (seed ${seed}): mismatches happen, the loser deletes its batches, no leaks, the shard equals the desired collection`, async () => {
        const run = await steppedRun(
          { variant, replicas: 2, processes: 2, workersPerProcess: 2, intervals, updates, maxBytes: MiB, persist: { inlineSingleMaxBytes: 256 } },
          seeded(seed),
        );
        const result = settled(run);
        expectExactlyOnce(result, updates.length);
        expect(result.upper).toBe(intervals);
        expect(result.metrics.mismatches).toBeGreaterThan(0);
        const lostAppends = ofKind(run.events, 'append').filter((a) => !a.result.ok && a.batches > 0);
        const deletes = ofKind(run.events, 'delete');
        expect(deletes.map((d) => d.batches)).toEqual(lostAppends.map((a) => a.batches));
        expect(deletes.every((d) => d.reason === 'mismatch')).toBe(true);
        expect(result.metrics.blobDeletes).toBe(lostAppends.reduce((n, a) => n + a.parts.hollow, 0));
        expect(result.metrics.blobDeletes).toBeGreaterThan(0);
        // Every interval was appended by exactly one replica.
        const ok = ofKind(run.events, 'append').filter((a) => a.result.ok);
        expect(ok.map((a) => [a.lower, a.upper])).toEqual(ok.map((a) => [a.lower, a.upper]).sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0)));
        expect(ok.reduce((n, a) => n + (a.upper - a.lower), 0)).toBe(intervals);
      });
    }
  }

  it('also under the pass-through scheduler', async () => {
    const { result, events } = await recordRun({ variant: 'best-effort', replicas: 2, processes: 1, workersPerProcess: 4, intervals, updates, maxBytes: MiB, persist: { inlineSingleMaxBytes: 256 } });
    expectExactlyOnce(result, updates.length);
    expect(result.metrics.mismatches).toBeGreaterThan(0);
    expect(ofKind(events, 'delete').length).toBeGreaterThan(0);
  });
});

describe('scenario: mixed sizes in one interval', () => {
  // 4 workers; workers 0 and 1 stage 100 × 24 B = 2400 B (≥ threshold 2000: own, one hollow part of
  // ≥ 2048 B); workers 2 and 3 stage 10 × 24 B = 240 B each (shared: one inline part of 480 B).
  const intervals = 5;
  const updates = perWorker(intervals, 4, [100, 100, 10, 10], 16);
  const persist = { inlineSingleMaxBytes: 2048 };

  it('barrier: both kinds are appended together in one compare-and-append, parts as predicted', async () => {
    const run = await steppedRun(
      { variant: 'barrier', replicas: 1, processes: 1, workersPerProcess: 4, intervals, updates, maxBytes: 2000, persist },
      seeded(7),
    );
    const result = settled(run);
    expectExactlyOnce(result, updates.length);
    const stages = ofKind(run.events, 'stage');
    expect(stages.filter((s) => s.route === 'own').map((s) => s.worker).sort()).toEqual(Array(intervals).fill([0, 1]).flat().sort());
    expect(stages.filter((s) => s.bytes >= 2000).every((s) => s.route === 'own')).toBe(true);
    for (const a of ofKind(run.events, 'append')) {
      expect(a).toMatchObject({ batches: 3, parts: { hollow: 2, inline: 1 }, result: { ok: true } });
      expect(a.updates).toHaveLength(220);
    }
    expect(result.metrics).toMatchObject({ appends: intervals, consensusCommands: intervals, partsHollow: 2 * intervals, partsInline: intervals, blobPuts: 2 * intervals });
    // Under the barrier, the workers that wrote their own batch reported a skip first.
    expect(ofKind(run.events, 'skip')).toHaveLength(2 * intervals);
  });

  it('off: every worker writes its own batch, inline below the inline limit', async () => {
    const { result } = await recordRun({ variant: 'off', replicas: 1, processes: 1, workersPerProcess: 4, intervals, updates, maxBytes: 2000, persist });
    expectExactlyOnce(result, updates.length);
    expect(result.metrics).toMatchObject({ partsHollow: 2 * intervals, partsInline: 2 * intervals, batchesPerAppend: 4 });
  });
});
