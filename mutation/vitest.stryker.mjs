// `npm run mutation:vitest`: the vitest suite's own score over the same files, reported apart from
// `sbkit check`'s. The vitest runner uses per-test coverage: each mutant runs only the tests that reach it.
//
// `SBKIT_MUTATION_TESTS=unit` scores only the hand-written unit tests of impl/ (impl/test/): the
// contrast with `sbkit check` alone. The whole suite (the default) includes the conformance tests, which
// run `sbkit check` themselves and reach nearly every line: a mutant they do not kill runs all of them
// (minutes each on 2 cores), so a whole scope takes many hours. Measured figures: the lead's report.
import { base, out } from './base.mjs';

const tests = process.env.SBKIT_MUTATION_TESTS ?? 'all';
if (tests !== 'all' && tests !== 'unit') {
  throw new Error(`SBKIT_MUTATION_TESTS must be all or unit, got ${JSON.stringify(tests)}`);
}
const killer = tests === 'unit' ? 'vitest-unit' : 'vitest';
// vitest.config.ts as one project, every file isolated: the runner's per-test coverage hooks go into
// the config it is given.
process.env.SBKIT_VITEST_ISOLATE = '1';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  testRunner: 'vitest',
  // base's gallery ignorer too: both scores leave the same gallery-only code out.
  plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker', './mutation/gallery-ignorer.mjs'],
  vitest: { configFile: 'vitest.config.ts', ...(tests === 'unit' ? { dir: 'impl/test' } : {}) },
  coverageAnalysis: 'perTest',
  timeoutFactor: 1.5,
  timeoutMS: 30_000,
  // The dry run is the whole suite with per-test coverage: ~4 min alone on 2 cores, past Stryker's
  // 5-minute default as soon as anything else runs (measured beside the check killer).
  dryRunTimeoutMinutes: 30,
  incrementalFile: out(killer, 'incremental.json'),
  htmlReporter: { fileName: out(killer, 'html') },
  jsonReporter: { fileName: out(killer, 'json') },
};
