/**
 * metrics-match-trace: real runs agree with their trace and stores, and a counter off by one in either
 * direction — the kind of bug a mutant of impl/'s counting makes — is named.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { runSink, type RunResult } from '../impl/run.ts';
import type { Metrics } from '../impl/metrics.ts';
import { runConfigOf, runOnce, storeTally } from './harness.ts';
import { metricsDisagreements, type StoreTally } from './metrics-check.ts';
import { FIFO, schedulerFor, type Schedule } from './schedule.ts';
import { SchedulePlan } from './faults.ts';
import type { Workload } from './workload.ts';
import { workloadOf } from './test-support/workload.ts';

const base = workloadOf('best-effort', [
    ['medium', 'large'],
    ['tiny', 'boundary'],
    ['none', 'medium'],
  ], { replicas: 2, blobTargetSize: 6000 });

interface Recorded {
  readonly trace: readonly TraceEvent[];
  readonly result: RunResult;
  readonly store: StoreTally;
}

async function record(w: Workload, schedule: Schedule = FIFO): Promise<Recorded> {
  const scheduler = schedulerFor(schedule);
  const plan = schedule.faults === undefined ? undefined : new SchedulePlan(schedule.faults, () => scheduler.steps);
  const { config, trace } = runConfigOf(w, scheduler, undefined, plan);
  const outcome = await scheduler.drive(runSink(config));
  if (outcome.kind !== 'settled') throw new Error(`run did not settle: ${outcome.kind}`);
  const store = await storeTally(config);
  if (store === undefined) throw new Error('the harness ran on stores that count nothing');
  return { trace, result: outcome.value, store };
}

const bumped = (m: Metrics, k: keyof Metrics, by: number): Metrics => ({ ...m, [k]: m[k] + by });

describe('metrics-match-trace', () => {
  it('holds on real runs: two replicas racing, a shard behind the as-of (bumps), storage faults', async () => {
    const plain = await record(base);
    expect(plain.result.metrics.appends).toBeGreaterThan(0);
    expect(plain.result.metrics.blobPuts).toBeGreaterThan(0);
    expect(metricsDisagreements(plain.trace, plain.result.metrics, plain.store)).toEqual([]);

    const faulted = await record(base, { ...FIFO, faults: { storage: [1, 0, 2, 0, 3, 1, 0, 1], aborts: [], heal: 10_000 } });
    expect(faulted.result.metrics.faultsTransient + faulted.result.metrics.faultsIndeterminate).toBeGreaterThan(0);
    expect(metricsDisagreements(faulted.trace, faulted.result.metrics, faulted.store)).toEqual([]);
  });

  it('names every exact counter that is one off, either way', async () => {
    const r = await record(base);
    const exact: (keyof Metrics)[] = [
      'appends', 'emptyAppends', 'mismatches', 'partsHollow', 'partsInline', 'batchesAppended', 'updatesAppended',
      'batchesDeleted', 'bumps', 'faultsTransient', 'faultsIndeterminate', 'faultsPermanent', 'aborts', 'restarts',
      'cleanupRuns', 'blobsCollected', 'updatesWritten', 'inlineFlushedParts', 'blobPuts', 'batchesOrphaned',
      'blobPutBytes', 'blobDeletes', 'consensusCommands', 'writerRegistrations', 'consensusCasFailed', 'stateDiffBytes',
      'consensusHeads',
    ];
    for (const k of exact) {
      for (const by of [1, -1]) {
        const off = metricsDisagreements(r.trace, bumped(r.result.metrics, k, by), r.store);
        const name = k === 'consensusCommands' || k === 'writerRegistrations' ? 'consensusCommands + writerRegistrations' : k;
        // A counter at 0 cannot go below (the recorder never does); the upper side is enough there.
        if (by < 0 && r.result.metrics[k] === 0 && !['consensusCasFailed', 'batchesOrphaned'].includes(k)) continue;
        expect(off.join('; '), `${k} ${by > 0 ? '+' : ''}${by}`).toContain(name);
      }
    }
  });

  it('counts the append attempts of bumps in pairs', async () => {
    const ahead = await record({ ...base, replicas: 1, asOf: 2, loads: [['none', 'none'], ['none', 'none'], ['tiny', 'medium']] });
    expect(ahead.result.metrics.bumps).toBeGreaterThan(0);
    const m = ahead.result.metrics;
    expect(metricsDisagreements(ahead.trace, m, ahead.store)).toEqual([]);
    expect(metricsDisagreements(ahead.trace, bumped(m, 'appendAttempts', 1), ahead.store).join()).toMatch(/appendAttempts = \d+: not \d+ append events plus two per bump attempt/);
    expect(metricsDisagreements(ahead.trace, bumped(m, 'appendAttempts', -2), ahead.store).join()).toMatch(/appendAttempts = \d+, below the/);
  });

  it('bounds what faults make inexact, in the right direction', async () => {
    const r = await record(base, { ...FIFO, faults: { storage: [2, 2, 2, 3, 3, 1], aborts: [], heal: 10_000 } });
    const m = r.result.metrics;
    expect(m.faultsIndeterminate).toBeGreaterThan(0);
    // Fewer PUTs than reached the store is possible (an applied write reported failed); more is not.
    expect(metricsDisagreements(r.trace, bumped(m, 'blobPuts', r.store.blob.sets - m.blobPuts + 1), r.store).join()).toMatch(/blobPuts = \d+, above the \d+ the blob store allows/);
    expect(metricsDisagreements(r.trace, bumped(m, 'updatesWritten', -m.updatesWritten - 1), r.store).join()).toMatch(/updatesWritten = -1, below/);
    // A counter with only an upper bound under faults still may not count down.
    expect(metricsDisagreements(r.trace, bumped(m, 'retries', -m.retries - 1), r.store).join()).toMatch(/retries = -1: a counter below zero/);
    expect(metricsDisagreements(r.trace, bumped(m, 'batchesOrphaned', -m.batchesOrphaned - 1), r.store).join()).toMatch(/batchesOrphaned = -1: a counter below zero/);
  });

  it('is part of every judged run: a passing run reports no metrics failure', async () => {
    const report = await runOnce(base, FIFO);
    expect(report.failures).toEqual([]);
  });
});
