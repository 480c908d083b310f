/**
 * The symmetry and partial-order reductions held to the full search, shared by symmetry.test.ts (small
 * configurations, `npm test`) and symmetry.deep.test.ts (the large ones).
 */
import { expect } from 'vitest';
import type { TraceEvent } from '../../../vocab/index.ts';
import { properties } from '../../../spec/properties.ts';
import type { ModelConfig } from '../../config.ts';
import type { SystemState } from '../../state.ts';
import { initialState, serialize, step } from '../../system.ts';
import { checkPacked } from '../check.ts';
import { Engine } from '../engine.ts';
import { searchPacked, type PackedSearchResult } from '../search.ts';
import { SymmetryReducer } from '../symmetry.ts';

/** Every state of `trace` from the initial state, each step accepted by the model's `step` (else it throws). */
export function replay(cfg: ModelConfig, trace: readonly TraceEvent[]): SystemState[] {
  const states = [initialState(cfg)];
  for (const e of trace) {
    const r = step(cfg, states.at(-1) as SystemState, e);
    if (!r.ok) throw new Error(r.reason);
    states.push(r.state);
  }
  return states;
}

/** What the full and the reduced search must agree on: verdicts and shortest lengths. */
const verdicts = (r: PackedSearchResult) => ({
  violations: r.violations.map((v) => `${v.property}:${v.trace.length}`).sort(),
  witnesses: r.witnesses.map((w) => w.property).sort(),
  unreached: [...r.unreached].sort(),
  complete: r.complete,
});

/**
 * The symmetric search keeps the full search's verdicts, witnesses and shortest lengths, with no more
 * states, and its representatives' orbits add up to the full search's states; its traces are real runs.
 */
export function expectSymmetryKeepsVerdicts(cfg: ModelConfig): void {
  const full = searchPacked(cfg, { maxStates: 1_000_000, properties });
  expect(full.complete).toBe(true); // else "the same verdicts" could mean "both stopped"
  const engine = new Engine(cfg, properties);
  const reducer = new SymmetryReducer(engine);
  const sym = searchPacked(cfg, { maxStates: 1_000_000, reducer }, engine);
  expect(verdicts(sym)).toEqual(verdicts(full));
  expect(sym.states).toBeLessThanOrEqual(full.states);
  // the representatives' orbits hold every state of the full search, once (replica symmetry: not computed)
  expect(sym.unreduced).toBe(cfg.replicas === 1 ? full.states : null);
  // every printed trace is un-permuted into a real run (searchPacked replays each; check again here)
  for (const t of [...sym.violations, ...sym.witnesses]) expect(() => replay(cfg, t.trace)).not.toThrow();
}

/** The partial-order reduction keeps every final state and verdict in fewer states; with the re-search, counterexamples are shortest. */
export function expectPorKeepsFinals(cfg: ModelConfig): void {
  const finals = (por: boolean) => {
    const out = new Set<string>();
    const r = searchPacked(cfg, { maxStates: 1_000_000, properties, por, onFinal: (s) => out.add(serialize(s)) });
    return { r, out };
  };
  const full = finals(false);
  const reduced = finals(true);
  expect(reduced.out).toEqual(full.out);
  expect(reduced.r.states).toBeLessThan(full.r.states);
  const names = (r: PackedSearchResult) => ({ v: r.violations.map((v) => v.property).sort(), w: r.witnesses.map((w) => w.property).sort() });
  expect(names(reduced.r)).toEqual(names(full.r));
  // with the re-search, every counterexample is a shortest one again
  const checked = checkPacked(cfg, { properties, maxStates: 1_000_000, symmetry: true, por: true });
  expect(checked.violations.map((v) => `${v.property}:${v.trace.length}`).sort()).toEqual(full.r.violations.map((v) => `${v.property}:${v.trace.length}`).sort());
  expect(Object.values(checked.shortest).every((x) => x)).toBe(true);
}
