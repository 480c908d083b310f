/**
 * Deep: the reductions held to the full search on the larger worlds, where the full search alone visits
 * tens of thousands of states: the symmetric search on 3 workers, on 2 replicas and on 2 replicas in the
 * fault world, the pinned sizes of both searches where workers are interchangeable, and the partial-order
 * reduction with the review bug at 3 workers and in the fault world. symmetry.test.ts holds the small
 * worlds in `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { properties } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { alternating, config, twoReplicas } from '../test-support/driver.ts';
import { Engine } from './engine.ts';
import { searchPacked } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';
import { expectPorKeepsFinals, expectSymmetryKeepsVerdicts } from './test-support/reductions.ts';

describe('the symmetric search keeps verdicts, witnesses and shortest counterexample lengths, on the larger worlds', () => {
  it.each<[string, ModelConfig]>([
    ['best-effort, 3 workers', alternating('best-effort', 3)],
    ['2 replicas', twoReplicas('best-effort')],
    // an abort with two replicas needs more than 3 M states in the full search; an indeterminate commit
    // and cleanup complete in both (67,572 / 30,601 states)
    ['faults, 2 replicas', { ...twoReplicas('best-effort'), faults: { aborts: 0, indeterminate: 1, cleanup: true } }],
  ])('%s', (_name, cfg) => {
    expectSymmetryKeepsVerdicts(cfg);
  });

  it('reduces the state space where workers are interchangeable, the more when the append worker moves too', () => {
    const states = (cfg: ModelConfig, appendWorkers?: 'fixed') => {
      const engine = new Engine(cfg, properties);
      const reducer = new SymmetryReducer(engine, appendWorkers === undefined ? {} : { appendWorkers });
      return [searchPacked(cfg, { maxStates: 1_000_000, reducer }, engine).states, reducer.description];
    };
    const five = alternating('best-effort', 5, { maxBytesChoices: [50] });
    expect(searchPacked(five, { maxStates: 1_000_000 }).states).toBe(34_701);
    expect(states(five)).toEqual([3877, expect.stringMatching(/classes \{0,2,4\} \{1,3\}, append workers move too/)]);
    expect(states(five, 'fixed')).toEqual([11_087, expect.stringMatching(/classes \{0,2,4\} \{1,3\}, append workers fixed/)]);
    expect(searchPacked(twoReplicas('best-effort'), { maxStates: 1_000_000 }).states).toBe(20_272);
    expect(states(twoReplicas('best-effort'))).toEqual([2787, expect.stringMatching(/classes \{0,1\}, append workers move too\); 2 replicas/)]);
    expect(states(twoReplicas('best-effort'), 'fixed')).toEqual([9751, expect.stringMatching(/2 replicas/)]);
  });
});

describe('the partial-order reduction keeps every final state and every verdict, on the larger worlds', () => {
  it.each<[string, ModelConfig]>([
    ['review bug, 3 workers', alternating('best-effort', 3, { bugs: { sweepUpgradeRace: true } })],
    ['faults', { ...config({ variant: 'best-effort' }), faults: { aborts: 1, indeterminate: 1, cleanup: true } }],
  ])('%s', (_name, cfg) => {
    expectPorKeepsFinals(cfg);
  });
});
