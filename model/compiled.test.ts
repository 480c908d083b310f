import { assign, createMachine, setup } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { MODEL_VARIANT_NAMES as VARIANTS } from './variants/index.ts';
import { appendMachine } from './append.ts';
import { builderMachine } from './builder.ts';
import { compileMachine, UnsupportedMachineError } from './compiled.ts';
import type { ModelConfig } from './config.ts';
import { handleMachine } from './handle.ts';
import { mintMachine } from './mint.ts';
import { sweepMachine } from './sweep.ts';
import { rng, tiny, u, wide } from './test-support/driver.ts';
import { workerMachine } from './worker.ts';

type System = typeof import('./system.ts');

/** The system module twice: once with every machine stepped by XState itself, once compiled. */
async function bothSystems(): Promise<{ ref: System; fast: System }> {
  process.env['SBKIT_MODEL_RUNNER'] = 'xstate';
  vi.resetModules();
  const ref = await import('./system.ts');
  delete process.env['SBKIT_MODEL_RUNNER'];
  vi.resetModules();
  const fast = await import('./system.ts');
  return { ref, fast };
}

const configs: [string, ModelConfig][] = [
  ...VARIANTS.map((v): [string, ModelConfig] => [`${v} tiny`, tiny(v)]),
  ...VARIANTS.map((v): [string, ModelConfig] => [`${v} wide`, wide({ variant: v, maxBytesChoices: [0, 50, 1000] }, u(4, 0, 0, 30))]),
  ['best-effort with the sweep race', wide({ variant: 'best-effort', bugs: { sweepUpgradeRace: true } })],
  ['barrier, inline backpressure', wide({ variant: 'barrier', persist: { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 20 } })],
  ['best-effort, the fault world', wide({ variant: 'best-effort', faults: { aborts: 2, indeterminate: 2, cleanup: true }, bugs: { indeterminateAsMismatch: true } })],
];

describe('the compiled machines equal XState on random walks', () => {
  it('every successor (event and next state, key order included) is the same at every step', async () => {
    const { ref, fast } = await bothSystems();
    let steps = 0;
    for (const [name, cfg] of configs) {
      for (let seed = 1; seed <= 12; seed++) {
        const pick = rng(seed * 7919);
        let a = ref.initialState(cfg);
        let b = fast.initialState(cfg);
        expect(fast.serialize(b), name).toBe(ref.serialize(a));
        for (;;) {
          const sa = ref.successors(cfg, a);
          const sb = fast.successors(cfg, b);
          expect(sb.map((s) => s.event), `${name} seed ${seed} step ${steps}`).toEqual(sa.map((s) => s.event));
          expect(sb.map((s) => fast.serialize(s.next))).toEqual(sa.map((s) => ref.serialize(s.next)));
          if (sa.length === 0) break;
          const i = pick(sa.length);
          a = (sa[i] as (typeof sa)[number]).next;
          b = (sb[i] as (typeof sb)[number]).next;
          steps += 1;
        }
      }
    }
    expect(steps).toBeGreaterThan(1500);
  });

  it('rejects events it does not know the same way XState does (null, no throw)', () => {
    for (const m of [mintMachine, workerMachine, handleMachine, builderMachine, sweepMachine, appendMachine]) {
      const c = compileMachine<unknown, { type: string }, unknown>(m);
      expect(c.id).toBe(m.id);
    }
    const worker = compileMachine<unknown, { type: string }, undefined>(workerMachine);
    expect(worker.fire(worker.initial(undefined), { type: 'NO_SUCH_EVENT' })).toBeNull();
    expect(worker.pathOf(worker.initial(undefined).value)).toBe('idle');
  });
});

describe('features the compiled form does not evaluate are refused when compiling', () => {
  const cases: [string, () => unknown][] = [
    ['entry actions', () => createMachine({ id: 'm', initial: 'a', states: { a: { entry: assign({}) } } })],
    ['always', () => createMachine({ id: 'm', initial: 'a', states: { a: { always: 'b' }, b: {} } })],
    ['after', () => createMachine({ id: 'm', initial: 'a', states: { a: { after: { 10: 'b' } }, b: {} } })],
    ['parallel', () => createMachine({ id: 'm', type: 'parallel', states: { a: {}, b: {} } })],
    ['a non-assign action', () => setup({ actions: { log: () => {} } }).createMachine({ id: 'm', initial: 'a', states: { a: { on: { GO: { actions: 'log' } } } } })],
    ['reenter', () => createMachine({ id: 'm', initial: 'a', states: { a: { on: { GO: { target: 'a', reenter: true } } } } })],
    ['a nested final state', () => createMachine({ id: 'm', initial: 'a', states: { a: { initial: 'x', states: { x: { type: 'final' } } } } })],
  ];
  for (const [what, make] of cases) {
    it(what, () => {
      expect(() => compileMachine(make() as never)).toThrow(UnsupportedMachineError);
    });
  }
});
