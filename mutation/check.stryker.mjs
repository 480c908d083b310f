// `npm run mutation`: the killer is `sbkit check` alone, at its default budget (500 runs per variant),
// as the product runs it: the plain check, the fault world, and the gallery (`sbkit bugs --check`: each
// bug switched on must still be caught, so a mutant that makes the code behind a bug switch harmless is
// killed too). Fixed seed and one job, so every mutant meets the same workloads and schedules (the
// default seed is the clock's; `--jobs N` derives seeds per job); `--no-shrink`: only the verdict
// matters, and shrinking was most of a killed mutant's cost; `&&`: a mutant one stage kills is not run
// by the next. `sbkit check` exits 1 on any failed check (a vacuous budget included) and 3 on a broken
// run (a mutant that throws at import); `sbkit bugs --check` exits 1 when a bug is missed: all "killed".
import { base, out } from './base.mjs';

// The seed every mutant meets (SBKIT_MUTATION_SEED, default 1): a clean run at that seed must pass, or
// Stryker's dry run refuses to start.
const SEED = process.env.SBKIT_MUTATION_SEED ?? '1';
if (!/^\d+$/.test(SEED)) throw new Error(`SBKIT_MUTATION_SEED must be a non-negative integer, got ${JSON.stringify(SEED)}`);
const CHECK = `node bin/sbkit.js check --jobs 1 --seed ${SEED} --no-shrink`;
const GALLERY = `node bin/sbkit.js bugs --check --seed ${SEED} --no-shrink`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  testRunner: 'command',
  commandRunner: { command: `${CHECK} >/dev/null && ${CHECK} --faults >/dev/null && ${GALLERY} >/dev/null` },
  // The command runner reports no per-test coverage: every mutant runs the whole command.
  coverageAnalysis: 'off',
  // A mutant that makes the check spin (a loop that never ends) is a Timeout, never a stall: the
  // command is killed after 3 × the unmutated run + 120 s (each check has its own step limit, so a
  // scheduled run cannot spin; a synchronous loop can). SUBTLE: Stryker counts a Timeout as detected,
  // and on a shared machine a surviving mutant's run can take three times the dry run's: with a tight
  // timeout (1.5 × + 30 s, measured) load turned survivors into "killed". The margin costs only the
  // rare true spin.
  timeoutFactor: 3,
  timeoutMS: 120_000,
  dryRunTimeoutMinutes: 10,
  incrementalFile: out('check', 'incremental.json'),
  htmlReporter: { fileName: out('check', 'html') },
  jsonReporter: { fileName: out('check', 'json') },
};
