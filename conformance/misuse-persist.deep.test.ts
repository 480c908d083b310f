/**
 * The persist objects' own contracts in the misuse programs (misuse/: stores, faults, writers): each
 * program kills the mutants of impl/persist it exists for. Deep: each case copies the kit with the mutant
 * planted and runs the scenario's programs in a process of its own (seconds each).
 */
import { describe, expect, it } from 'vitest';
import { runScenario, type Scenario } from './misuse/index.ts';
import { plant, type Change } from './test-support/plant.ts';

/** A misuse scenario's programs (seeds 1 … 60) in a copy of the kit with `change` planted: some go wrong. */
function plantedScenario(change: Change, scenario: Scenario): string {
  const p = plant(change);
  try {
    const r = p.tsx('conformance/test-support/misuse-sweep.ts', [scenario, '60']);
    expect(r.output).toMatch(/^wrong in [1-9]\d* of 60$/m);
    return r.output;
  } finally {
    p.dispose();
  }
}

interface Case {
  readonly what: string;
  readonly scenario: Scenario;
  readonly change: Change;
  /** What a program says went wrong. */
  readonly says: RegExp;
}

const BLOB = 'impl/persist/blob.ts';
const CONSENSUS = 'impl/persist/consensus.ts';
const FAULTY = 'impl/persist/faulty.ts';
const STATE = 'impl/persist/state.ts';

const CASES: readonly Case[] = [
  { what: 'a blob store that keeps the bytes the caller PUT', scenario: 'stores', change: { file: BLOB, from: 'this.#objects.set(key, value.slice());', to: 'this.#objects.set(key, value);' }, says: /the bytes of copy-\d+ is \[255,255,255\]/ },
  { what: 'a blob store that hands out the bytes it holds', scenario: 'stores', change: { file: BLOB, from: 'return this.#objects.get(key)?.slice();', to: 'return this.#objects.get(key);' }, says: /the bytes of copy-\d+ after the caller overwrote the bytes it got is \[255,255,255\]/ },
  { what: 'a blob store that lists its keys in the order they came', scenario: 'stores', change: { file: BLOB, from: 'return [...this.#objects.keys()].sort();', to: 'return [...this.#objects.keys()];' }, says: /list\(\) is \[.*\], the model says/ },
  { what: 'a consensus that keeps the bytes the caller set', scenario: 'stores', change: { file: CONSENSUS, from: 'versions.push({ seqNo: next.seqNo, data: next.data.slice() });', to: 'versions.push({ seqNo: next.seqNo, data: next.data });' }, says: /the head of copy is \[255,255\]/ },
  { what: 'a consensus that hands out the bytes it holds', scenario: 'stores', change: { file: CONSENSUS, from: '({ seqNo: v.seqNo, data: v.data.slice() });', to: '({ seqNo: v.seqNo, data: v.data });' }, says: /the versions of copy is \[\[255,255\]\]/ },
  ...(
    [
      ['blob.get', "'blob.get', key, false,", 'the calls that reached the blob store'],
      ['blob.list', "'blob.list', '', false,", 'the calls that reached the blob store'],
      ['consensus.head', "'consensus.head', key, false,", 'the calls that reached consensus'],
      ['consensus.scan', "'consensus.scan', key, false,", 'the calls that reached consensus'],
    ] as const
  ).map(([op, from, says]) => ({
    what: `a fault injector whose ${op} that loses its answer reaches the store`,
    scenario: 'faults' as const,
    change: { file: FAULTY, from, to: from.replace('false', 'true') },
    says: new RegExp(`${says} is \\{`),
  })),
  { what: 'a fault injector that leaves stack traces off', scenario: 'faults', change: { file: FAULTY, from: 'Error.stackTraceLimit = limit;', to: '' }, says: /the stack trace limit after [a-z.]+ → [a-z-]+ is 0, the model says [1-9]/ },
  { what: "a writer whose own commit forgets the shard's batches", scenario: 'writers', change: { file: STATE, from: 'batches: diff.batch === null ? state.batches : [...state.batches, diff.batch],', to: 'batches: diff.batch === null ? state.batches : [],' }, says: /w\d's state after its commit is \{/ },
  { what: 'a writer whose re-read folds only the versions it read', scenario: 'writers', change: { file: STATE, from: 'const batches = [...state.batches];', to: 'const batches: StateBatch[] = [];' }, says: /w\d\.fetchState\(\) is \{/ },
];

describe("misuse: the persist objects' contracts (each program kills its mutant)", () => {
  it.each(['stores', 'faults', 'writers'] as const)('%s: 60 programs pass on the implementation as it is', async (scenario) => {
    const wrong: string[] = [];
    for (let seed = 1; seed <= 60; seed++) wrong.push(...(await runScenario(scenario, seed)).wrong.map((w) => `seed ${seed}: ${w}`));
    expect(wrong).toEqual([]);
  });

  it.each(CASES.map((c) => [c.what, c] as const))('%s is caught', (_, c) => {
    expect(plantedScenario(c.change, c.scenario)).toMatch(c.says);
  });
});
