/**
 * Per-transition coverage of the model's XState machines.
 *
 * The transitions are the edges of the generated diagrams (mermaid.ts: one per source leaf, event, guard
 * and target leaf, e.g. `live --> finalized : FINISH_BEGIN [finalizesBarrier]`). A transition is *taken*
 * when a machine fires it while the model accepts an event: `replayCounting` replays a trace (an
 * implementation's, from conformance) and `exploreCounting` every reachable state of a configuration
 * (breadth-first), both counting only the transitions of events the model accepted — the fires of a
 * probe whose event then turned out not enabled are dropped.
 *
 * Fires are seen through local.ts's `observeFires` hook; which transition a fire took is XState's own
 * answer (`getTransitionData`), memoized per (machine, local state, event).
 */
import type { AnyStateMachine } from 'xstate';
import type { TraceEvent } from '../vocab/index.ts';
import type { ModelConfig } from './config.ts';
import { type Local, observeFires, pathOf } from './local.ts';
import { guardName, machineDiagrams, machines } from './mermaid.ts';
import { isStutteringStep } from './predict.ts';
import type { SystemState } from './state.ts';
import { firstDifference, initialState, predict, serialize, successors } from './system.ts';

/** One machine's transitions, in the order of its diagram. */
export interface MachineTransitions {
  readonly machine: string;
  /** `from --> to : EVENT [guard]`, exactly as the diagram's lines. */
  readonly transitions: readonly string[];
}

/** Every transition of every machine, from the diagrams generated from the machine definitions. */
export function machineTransitions(): MachineTransitions[] {
  return machineDiagrams().map(({ name, mermaid }) => ({
    machine: name,
    transitions: mermaid
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.includes(' --> ') && !l.includes('[*]')),
  }));
}

/** `machine|transition` → times taken. */
export class TransitionCounts {
  readonly counts = new Map<string, number>();

  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  get(machine: string, transition: string): number {
    return this.counts.get(`${machine}|${transition}`) ?? 0;
  }

  merge(other: TransitionCounts): void {
    for (const [k, n] of other.counts) this.add(k, n);
  }
}

const nameOf = new Map<AnyStateMachine, string>(machines.map((m) => [m.machine, m.name]));
const idOf = (local: Local<unknown>): string => pathOf(local.value).replace(/\./g, '_');
const edgeMemo = new Map<string, readonly string[]>();

/** The transition(s) a fire took, as `machine|line` keys. */
function edgesOf(machine: AnyStateMachine, from: Local<unknown>, event: { readonly type: string }, to: Local<unknown>): readonly string[] {
  const name = nameOf.get(machine) ?? machine.id;
  const memoKey = `${name}|${JSON.stringify(from.value)}|${JSON.stringify(from.context)}|${JSON.stringify(event)}|${JSON.stringify(to.value)}`;
  const hit = edgeMemo.get(memoKey);
  if (hit !== undefined) return hit;
  const snapshot = machine.resolveState({ value: from.value, context: from.context as Record<string, unknown> });
  const taken = machine.getTransitionData(snapshot, event as never);
  const edges = taken.map((t) => {
    const guard = guardName(t.guard);
    return `${name}|${idOf(from)} --> ${idOf(to)} : ${t.eventType}${guard === null ? '' : ` [${guard}]`}`;
  });
  if (edgeMemo.size > 100_000) edgeMemo.clear();
  edgeMemo.set(memoKey, edges);
  return edges;
}

/** Runs `f` with every fire buffered; returns its result and the transitions it fired. */
function recording<T>(f: () => T): { result: T; edges: string[] } {
  const edges: string[] = [];
  const previous = observeFires((machine, from, event, to) => {
    if (to !== null) edges.push(...edgesOf(machine, from, event, to));
  });
  try {
    return { result: f(), edges };
  } finally {
    observeFires(previous);
  }
}

/**
 * Replays `trace` on the model, counting the transitions of every accepted event into `counts`.
 * Returns how many events were accepted (stuttering steps skipped, as in predict.ts) and, if the model
 * rejected one, its index.
 */
export function replayCounting(cfg: ModelConfig, trace: readonly TraceEvent[], counts: TransitionCounts): { accepted: number; rejectedAt?: number } {
  let state = initialState(cfg);
  let accepted = 0;
  for (const [at, event] of trace.entries()) {
    if (isStutteringStep(cfg, event)) continue;
    const { result: p, edges } = recording(() => predict(cfg, state, event));
    if (!p.ok || firstDifference(p.expected, event, event.kind) !== null) return { accepted, rejectedAt: at };
    for (const e of edges) counts.add(e);
    state = p.next;
    accepted++;
  }
  return { accepted };
}

/**
 * Breadth-first over every reachable state of `cfg` (at most `maxStates`), counting the transitions of
 * every explored step (each enabled event of each state, replayed once more with fires recorded).
 */
export function exploreCounting(cfg: ModelConfig, counts: TransitionCounts, maxStates: number): { states: number; complete: boolean } {
  const start = initialState(cfg);
  const seen = new Set<string>([serialize(start)]);
  const queue: SystemState[] = [start];
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i] as SystemState;
    for (const { event, next } of successors(cfg, s)) {
      for (const e of recording(() => predict(cfg, s, event)).edges) counts.add(e);
      const key = serialize(next);
      if (seen.has(key)) continue;
      if (seen.size >= maxStates) return { states: seen.size, complete: false };
      seen.add(key);
      queue.push(next);
    }
  }
  return { states: seen.size, complete: true };
}
