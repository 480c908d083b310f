import { assign, createMachine, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { appendMachine } from './append.ts';
import { builderMachine } from './builder.ts';
import { compileMachine, UnsupportedMachineError } from './compiled.ts';
import { handleMachine } from './handle.ts';
import { mintMachine } from './mint.ts';
import { sweepMachine } from './sweep.ts';
import { walkBoth } from './test-support/compiled-walks.ts';
import { workerMachine } from './worker.ts';

describe('the compiled machines equal XState on random walks', () => {
  // Three walks per configuration here; compiled.deep.test.ts walks twelve.
  it('every successor (event and next state, key order included) is the same at every step', async () => {
    expect(await walkBoth(3)).toBeGreaterThan(1500);
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
