/**
 * Deep: the conformance suite (test-support/conformance-suite.ts) on eight times the default budget and
 * a fresh seed each time, printed in the suite's name so that a failure can be replayed
 * (`sbkit check --variant V --runs 4000 --seed S`, with `--faults` for the fault world). Eight times
 * the budget is eight times the time, too long for `npm test`, which runs the default budget on a fixed
 * seed (conformance.test.ts); new seeds are what find what a fixed one cannot.
 */
import { conformanceSuite } from './test-support/conformance-suite.ts';

conformanceSuite(4000, Date.now() % 2 ** 31);
