/**
 * Steps one XState machine as plain data.
 *
 * A `Local` is a machine snapshot reduced to what identifies it (`value` + `context`), so the system
 * state stays plain data: cheap to serialize, compare and copy. Stepping resolves the snapshot and calls
 * XState's pure `transition` / `initialTransition` (no actors, no clocks). Results are memoized per
 * (machine, value, context, event): local state spaces are tiny, while a `transition` call costs ~25 µs
 * (it builds an inert actor scope each time), so exhaustive search would otherwise spend its time there.
 */
import { initialTransition, transition, type AnyStateMachine, type StateValue } from 'xstate';

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

const MEMO_LIMIT = 200_000;

/**
 * Sees every `fire` (memo hits included): the machine, the local state, the event and the result (`null`:
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
  const starts = new Map<string, Local<C>>();
  const fires = new Map<string, Local<C> | null>();
  return {
    start(input) {
      const key = JSON.stringify(input);
      const hit = starts.get(key);
      if (hit !== undefined) return hit;
      const [snapshot] = initialTransition(machine, input);
      const local: Local<C> = { value: snapshot.value, context: snapshot.context as C };
      starts.set(key, local);
      return local;
    },
    fire(local, event) {
      const key = `${JSON.stringify(local.value)}|${JSON.stringify(local.context)}|${JSON.stringify(event)}`;
      const hit = fires.get(key);
      if (hit !== undefined) {
        fireObserver?.(machine, local, event, hit);
        return hit;
      }
      const snapshot = machine.resolveState({ value: local.value, context: local.context as Record<string, unknown> });
      const [next] = transition(machine, snapshot, event);
      const result: Local<C> | null = next === snapshot ? null : { value: next.value, context: next.context as C };
      if (fires.size >= MEMO_LIMIT) fires.clear();
      fires.set(key, result);
      fireObserver?.(machine, local, event, result);
      return result;
    },
  };
}

/** The active leaf of a single-region machine as a dotted path, e.g. `fallback.writing`. */
export function pathOf(value: StateValue): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value)[0] ?? ['?', undefined];
  return child === undefined ? key : `${key}.${pathOf(child)}`;
}

export const isIn = (local: Local<unknown>, path: string): boolean => {
  const p = pathOf(local.value);
  return p === path || p.startsWith(`${path}.`);
};
