/**
 * The conformance suite (test-support/conformance-suite.ts) on the default budget, the one `sbkit check`
 * and `npm start` use, and a fixed seed: reproducible in CI. conformance.deep.test.ts runs it long.
 */
import { DEFAULT_RUNS } from './check.ts';
import { conformanceSuite } from './test-support/conformance-suite.ts';

conformanceSuite(DEFAULT_RUNS, 20261130);
