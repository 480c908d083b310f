/**
 * Steps one XState machine as plain data.
 *
 * A `Local` is a machine snapshot reduced to what identifies it (`value` + `context`), so the system
 * state stays plain data: cheap to serialize, compare and copy.
 *
 * `runner(machine)` steps a machine through its compiled form (compiled.ts): the same StateNode tree
 * and `setup()` guards and actions XState's pure `transition` uses, evaluated directly (~100× cheaper a
 * call). `xstateRunner(machine)` steps it through XState's own `initialTransition` / `transition`; it is
 * the reference the compiled form is held equal to (compiled.test.ts) and the "before" of `npm run bench`.
 * `SBKIT_MODEL_RUNNER=xstate` makes every machine use the reference (for diagnosis).
 */
import { initialTransition, transition, type AnyStateMachine, type StateValue } from 'xstate';
import { compileMachine } from './compiled.ts';

export interface Local<C> {
  readonly value: StateValue;
  readonly context: C;
}

/** A machine with typed context, events and input, stepped as `Local`s. */
export interface Runner<C, E extends { readonly type: string }, I> {
  start(input: I): Local<C>;
  /** The next local state, or `null` when no transition is enabled for `event` (a guarded no-op). */
  fire(local: Local<C>, event: E): Local<C> | null;
}

/**
 * Sees every `fire`: the machine, the local state, the event and the result (`null`:
 * no transition enabled). One at a time, process-wide; model/coverage.ts uses it to count transitions.
 */
export type FireObserver = (machine: AnyStateMachine, from: Local<unknown>, event: { readonly type: string }, to: Local<unknown> | null) => void;

let fireObserver: FireObserver | null = null;

/** Installs (or with `null` removes) the fire observer; returns the one it replaced. */
export function observeFires(observer: FireObserver | null): FireObserver | null {
  const previous = fireObserver;
  fireObserver = observer;
  return previous;
}

export function runner<C, E extends { readonly type: string }, I>(machine: AnyStateMachine): Runner<C, E, I> {
  if (process.env['SBKIT_MODEL_RUNNER'] === 'xstate') return xstateRunner(machine);
  const compiled = compileMachine<C, E, I>(machine);
  return {
    start: compiled.initial,
    fire: (local, event) => {
      const to = compiled.fire(local, event);
      if (fireObserver !== null) fireObserver(machine, local, event, to);
      return to;
    },
  };
}

/** XState's own pure transition functions: the reference semantics. */
export function xstateRunner<C, E extends { readonly type: string }, I>(machine: AnyStateMachine): Runner<C, E, I> {
  return {
    start(input) {
      const [snapshot] = initialTransition(machine, input);
      return { value: snapshot.value, context: snapshot.context as C };
    },
    fire(local, event) {
      const snapshot = machine.resolveState({ value: local.value, context: local.context as Record<string, unknown> });
      const [next] = transition(machine, snapshot, event);
      const to: Local<C> | null = next === snapshot ? null : { value: next.value, context: next.context as C };
      fireObserver?.(machine, local, event, to);
      return to;
    },
  };
}

const paths = new WeakMap<object, string>();

/** The active leaf of a single-region machine as a dotted path, e.g. `fallback.writing`. */
export function pathOf(value: StateValue): string {
  if (typeof value === 'string') return value;
  const hit = paths.get(value);
  if (hit !== undefined) return hit;
  const [key, child] = Object.entries(value)[0] ?? ['?', undefined];
  const path = child === undefined ? key : `${key}.${pathOf(child)}`;
  paths.set(value, path);
  return path;
}

export const isIn = (local: Local<unknown>, path: string): boolean => {
  const p = pathOf(local.value);
  return p === path || (p.length > path.length && p.startsWith(path) && p.charCodeAt(path.length) === 46);
};
