/**
 * Deep: the conformance suite (test-support/conformance-suite.ts) on eight times the default budget.
 * The seed is SBKIT_DEEP_SEED when set (CI sets one, so that its verdict is reproducible), else a fresh
 * one each time; either way it is printed in the suite's name so that a failure can be replayed
 * (`sbkit check --variant V --runs 4000 --seed S`, with `--faults` for the fault world). Eight times
 * the budget is eight times the time, too long for `npm test`, which runs the default budget on a fixed
 * seed (conformance.test.ts); new seeds are what find what a fixed one cannot.
 */
import { conformanceSuite } from './test-support/conformance-suite.ts';

function deepSeed(): number {
  const given = process.env['SBKIT_DEEP_SEED'];
  if (given === undefined || given === '') return Date.now() % 2 ** 31;
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 31) throw new Error(`SBKIT_DEEP_SEED must be an integer in [0, 2^31), got ${JSON.stringify(given)}`);
  return seed;
}

conformanceSuite(4000, deepSeed());
