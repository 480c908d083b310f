/**
 * A fingerprint of what `sbkit check` does for a seed: for each variant, with and without faults, the
 * same sampled workloads and schedules as a check draws, each run through the harness; one hash per
 * configuration over every run's trace, failures, witnesses, reached paths, fault tally and scheduler log.
 *
 * For speed work: a change that only makes the check faster must leave every fingerprint as
 * it was. `npx tsx scripts/fingerprint.ts [RUNS] [SEED]` (default 400 runs, seed 1); compare the output
 * before and after the change.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { VARIANTS } from '../impl/variants/index.ts';
import { DEFAULT_FAULT_RATE } from '../conformance/faults.ts';
import { runOnce } from '../conformance/harness.ts';
import { reachOf } from '../conformance/multi-sink.ts';
import { scheduleArb } from '../conformance/schedule.ts';
import { DEFAULT_BOUNDS, workloadArb } from '../conformance/workload.ts';

const runs = Number(process.argv[2] ?? 400);
const seed = Number(process.argv[3] ?? 1);

for (const faults of [undefined, DEFAULT_FAULT_RATE]) {
  for (const variant of VARIANTS) {
    const hash = createHash('sha256');
    const schedules = scheduleArb(DEFAULT_BOUNDS.maxReplicas, DEFAULT_BOUNDS.maxWorkersPerProcess * DEFAULT_BOUNDS.maxProcesses, 'mixed', faults);
    let failed = 0;
    for (const [w, s] of fc.sample(fc.tuple(workloadArb(variant, DEFAULT_BOUNDS), schedules), { seed, numRuns: runs })) {
      const r = await runOnce(w, s);
      if (r.failures.length > 0) failed += 1;
      hash.update(JSON.stringify([r.trace, r.outcome, r.failures, r.witnessed, [...reachOf(r)].sort(), r.faults, r.casRacesLost, r.schedulerLog]));
    }
    console.log(`${variant.padEnd(12)} ${faults === undefined ? 'plain ' : 'faults'} ${runs} runs, ${failed} failed: ${hash.digest('hex').slice(0, 16)}`);
  }
}
