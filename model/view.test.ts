/** viewOf (model state) and viewFromTrace (trace alone) agree on every prefix of explored traces. */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { properties } from '../spec/properties.ts';
import { viewFromTrace, type SystemView } from '../spec/view.ts';
import type { ModelConfig } from './config.ts';
import { search } from './search.ts';
import { initialState, isFinal, step } from './system.ts';
import { config, Driver, ev, randomWalk, rng, u, wide } from './test-support/driver.ts';
import { viewOf } from './view.ts';

/** The model's view without its storage facts: a trace cannot show those (an implementation's audit does). */
function protocolView(cfg: ModelConfig, s: ReturnType<typeof initialState>): SystemView {
  const { storage: _storage, ...rest } = viewOf(cfg, s);
  return rest;
}

function expectAgreement(cfg: ModelConfig, trace: readonly TraceEvent[]): void {
  let s = initialState(cfg);
  expect(viewFromTrace(cfg, [], { final: isFinal(cfg, s) })).toEqual(protocolView(cfg, s));
  trace.forEach((e, i) => {
    const r = step(cfg, s, e);
    if (!r.ok) throw new Error(r.reason);
    s = r.state;
    expect(viewFromTrace(cfg, trace.slice(0, i + 1), { final: isFinal(cfg, s) })).toEqual(protocolView(cfg, s));
  });
}

const configs: [string, ModelConfig][] = [
  [
    'best-effort, 2 processes, 2 replicas, sweep race',
    wide({ variant: 'best-effort', maxBytesChoices: [0, 60, 1000], bugs: { sweepUpgradeRace: true } }, u(4, 0, 1, 30)),
  ],
  [
    'barrier, 2 processes, 2 replicas',
    wide({ variant: 'barrier', maxBytesChoices: [0, 60], bugs: { sweepUpgradeRace: true } }),
  ],
  ['off, 2 replicas', config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 0, 0, 10), u(1, 1, 1, 40)] })],
  [
    'best-effort, 2 replicas, the fault world',
    wide({ variant: 'best-effort', maxBytesChoices: [0, 60, 1000], faults: { aborts: 3, indeterminate: 2, cleanup: true } }, u(4, 0, 1, 30)),
  ],
  ['barrier, the fault world', wide({ variant: 'barrier', maxBytesChoices: [60, 1000], faults: { aborts: 2, indeterminate: 2, cleanup: true } })],
  [
    'off, the fault world with the indeterminate-as-mismatch bug',
    config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 0, 0, 10), u(1, 1, 1, 40)], faults: { aborts: 2, indeterminate: 2, cleanup: true }, bugs: { indeterminateAsMismatch: true } }),
  ],
];

describe('viewOf agrees with viewFromTrace', () => {
  it.each(configs)('on random walks: %s', (_, cfg) => {
    const pick = rng(11);
    for (let walk = 0; walk < (cfg.faults === undefined ? 5 : 12); walk++) expectAgreement(cfg, randomWalk(cfg, pick).trace);
  });

  it('on every witness and violation trace of a buggy search', () => {
    const cfg = config({ variant: 'best-effort', updates: [u(0, 0, 0, 10), u(1, 0, 1, 20)], bugs: { sweepUpgradeRace: true } });
    const r = search(cfg, { maxStates: 100_000, properties });
    expect(r.violations.length).toBeGreaterThan(0);
    for (const t of [...r.violations, ...r.witnesses]) expectAgreement(cfg, t.trace);
  });

  it('on an implementation-style trace with chunked pushes', () => {
    const cfg = config({ variant: 'best-effort', updates: [u(0, 0, 0, 30), u(2, 0, 0, 30), u(1, 0, 1, 10)] });
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1));
    d.all(ev.push(0, [0]), ev.push(1, [1]), ev.push(0, [2]), ev.finishBegin(0), ev.finishBegin(1));
    d.drain();
    expectAgreement(cfg, d.trace);
  });
});
