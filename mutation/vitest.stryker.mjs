// `npm run mutation:vitest`: the vitest suite's own score over the same files, reported apart from
// `sbkit check`'s. The vitest runner uses per-test coverage: each mutant runs only the tests that reach it.
import { base, out } from './base.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker'],
  vitest: { configFile: 'vitest.config.ts' },
  coverageAnalysis: 'perTest',
  timeoutFactor: 1.5,
  timeoutMS: 30_000,
  incrementalFile: out('vitest', 'incremental.json'),
  htmlReporter: { fileName: out('vitest', 'html') },
  jsonReporter: { fileName: out('vitest', 'json') },
};
