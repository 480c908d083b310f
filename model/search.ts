/**
 * Exhaustive breadth-first search over the model's reachable states, with a hard state limit.
 *
 * Properties (spec/properties.ts) are checked on each state's SystemView: `always` on every state,
 * `eventually` on final states (no enabled action), `sometimes` until a witness is found. Because the
 * search is breadth-first, the first violation or witness found for a property comes with a shortest
 * trace. Parents are kept as indices, so memory is one (parent, event) pair per distinct state.
 */
import type { TraceEvent } from '../vocab/index.ts';
import type { Property } from '../spec/properties.ts';
import type { ModelConfig } from './config.ts';
import type { SystemState } from './state.ts';
import { initialState, serialize, successors } from './system.ts';
import { viewOf } from './view.ts';

export interface SearchOptions {
  /** Hard limit on distinct states; the search stops (complete = false) when it would exceed it. */
  readonly maxStates: number;
  readonly properties?: readonly Property[];
  /** Stop at the first `always`/`eventually` violation. */
  readonly stopAtFirstViolation?: boolean;
  /** Also stop when this holds for a state; its shortest trace is returned as `goal`. */
  readonly goal?: (state: SystemState) => boolean;
  /** Called after every `progressEvery` expanded states with (expanded, distinct states so far); the
   * search is synchronous, so this is the only way a caller can show it is alive. */
  readonly onProgress?: (expanded: number, states: number) => void;
  /** How often `onProgress` is called (default 1024 expanded states). */
  readonly progressEvery?: number;
}

export interface Violation {
  readonly property: string;
  readonly kind: Property['kind'];
  readonly why: string;
  readonly trace: readonly TraceEvent[];
}

export interface SearchResult {
  /** Distinct states visited (≤ maxStates). */
  readonly states: number;
  /** Final (terminal) states among them. */
  readonly finals: number;
  /** Every reachable state was visited. */
  readonly complete: boolean;
  readonly violations: readonly Violation[];
  readonly witnesses: readonly { readonly property: string; readonly trace: readonly TraceEvent[] }[];
  /** `sometimes` properties with no witness among the visited states. */
  readonly unreached: readonly string[];
  readonly goal: readonly TraceEvent[] | null;
}

export function search(cfg: ModelConfig, opts: SearchOptions): SearchResult {
  const properties = opts.properties ?? [];
  const start = initialState(cfg);
  const index = new Map<string, number>([[serialize(start), 0]]);
  const parents: number[] = [-1];
  const events: (TraceEvent | null)[] = [null];
  const queue: SystemState[] = [start];
  const violations: Violation[] = [];
  const witnesses: { property: string; trace: readonly TraceEvent[] }[] = [];
  const settled = new Set<string>();
  let finals = 0;
  let complete = true;
  let goal: readonly TraceEvent[] | null = null;

  const traceTo = (i: number): TraceEvent[] => {
    const out: TraceEvent[] = [];
    for (let at = i; at > 0; at = parents[at] as number) out.push(events[at] as TraceEvent);
    return out.reverse();
  };

  const progressEvery = Math.max(1, opts.progressEvery ?? 1024);
  for (let head = 0; head < queue.length; head++) {
    if (opts.onProgress !== undefined && head > 0 && head % progressEvery === 0) opts.onProgress(head, index.size);
    const state = queue[head] as SystemState;
    queue[head] = start; // let visited states be collected
    const next = successors(cfg, state);
    const final = next.length === 0;
    if (final) finals += 1;
    if (opts.goal?.(state) === true) {
      goal = traceTo(head);
      break;
    }
    if (properties.length > settled.size) {
      const view = viewOf(cfg, state, final);
      for (const prop of properties) {
        if (settled.has(prop.name)) continue;
        const verdict = prop.check(view);
        if (prop.kind === 'sometimes') {
          if (verdict.ok) {
            witnesses.push({ property: prop.name, trace: traceTo(head) });
            settled.add(prop.name);
          }
        } else if (!verdict.ok && (prop.kind === 'always' || final)) {
          violations.push({ property: prop.name, kind: prop.kind, why: verdict.why, trace: traceTo(head) });
          settled.add(prop.name);
        }
      }
      if (opts.stopAtFirstViolation === true && violations.length > 0) break;
    }
    for (const { event, next: s } of next) {
      const key = serialize(s);
      if (index.has(key)) continue;
      if (index.size >= opts.maxStates) {
        complete = false;
        continue;
      }
      index.set(key, parents.length);
      parents.push(head);
      events.push(event);
      queue.push(s);
    }
  }
  const stoppedEarly = goal !== null || (opts.stopAtFirstViolation === true && violations.length > 0);
  return {
    states: index.size,
    finals,
    complete: complete && !stoppedEarly,
    violations,
    witnesses,
    unreached: properties.filter((p) => p.kind === 'sometimes' && !settled.has(p.name)).map((p) => p.name),
    goal,
  };
}

/** The shortest trace to a state satisfying `goal`, or null if none within `maxStates`. */
export function shortestTrace(
  cfg: ModelConfig,
  goal: (state: SystemState) => boolean,
  maxStates: number,
): readonly TraceEvent[] | null {
  return search(cfg, { maxStates, goal }).goal;
}
