/**
 * Deep: the parallel packed search (--jobs) on larger configurations, three threads, two replicas, two
 * processes and the fault world, and three searches at once. Each search starts its own threads (each
 * loading the model) and is held to a single-threaded search of the same configuration, with and without
 * the partial-order reduction: many seconds per case on two cores. parallel.test.ts keeps small
 * configurations on two threads in `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { alternating, config, tiny, twoReplicas, u } from '../test-support/driver.ts';
import { searchParallel } from './parallel.ts';
import { FAULTS, expectSameAsOneThread, expectShortestAsOneThread } from './test-support/threads.ts';

describe('the parallel packed search (--jobs) visits what one thread visits, on larger configurations', () => {
  it.each<[string, number, ModelConfig]>([
    ['tiny barrier', 3, tiny('barrier')],
    ['check best-effort, 4 workers', 2, alternating('best-effort', 4)],
    ['check barrier, 4 workers', 3, alternating('barrier', 4)],
    ['two replicas, two intervals (supersede)', 2, config({ variant: 'best-effort', replicas: 2, workersPerProcess: 1, intervals: 2, updates: [u(0, 0, 0, 5), u(1, 1, 0, 5)], knobs: { maxBytesByLower: [1000], barrierByDesired: [false] } })],
    ['two replicas × two workers (each replica its own roles in the shared history)', 2, twoReplicas('best-effort')],
    ['two processes', 2, config({ variant: 'barrier', processes: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 20), u(2, 0, 2, 10), u(3, 0, 3, 20)] })],
    ['the fault world', 2, { ...tiny('best-effort'), faults: FAULTS }],
  ])('%s on %i threads: the same states, finals, transitions, depth and verdicts', async (_name, jobs, cfg) => {
    await expectSameAsOneThread(cfg, jobs);
  });

  it('finds the review bug with a shortest counterexample, as checkPacked does (3 workers)', async () => {
    await expectShortestAsOneThread({ ...alternating('best-effort', 3), bugs: { sweepUpgradeRace: true } });
  });

  it('prints the same traces in every run, whatever the timing of the threads', async () => {
    const cfg: ModelConfig = { ...alternating('best-effort', 3), bugs: { sweepUpgradeRace: true } };
    const runs = await Promise.all([1, 2, 3].map(() => searchParallel(cfg, { jobs: 3, properties, maxStates: 10_000_000, symmetry: true, por: false })));
    expect(runs[0]?.violations.length).toBeGreaterThan(0);
    for (const r of runs.slice(1)) {
      expect(r.violations).toEqual(runs[0]?.violations);
      expect(r.witnesses).toEqual(runs[0]?.witnesses);
    }
  });
});
