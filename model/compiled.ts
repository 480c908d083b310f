/**
 * A compiled form of an XState machine: the transitions XState's pure `transition()` takes, evaluated
 * directly over the machine's own StateNode tree and its `setup()` implementations (guards, assign
 * actions), without building an actor scope per call.
 *
 * Why: `transition()` costs ~25 µs a call (it creates an inert actor scope, resolves the snapshot and
 * runs the action machinery); conformance replays ~100 events a run, each firing two or three machines.
 * This evaluator reads the same definitions — nothing is restated — and runs the same guard and action
 * functions, so the machines declared with `setup()` stay the one source of the model. compiled.test.ts
 * holds it equal to XState's `transition` / `initialTransition` on random walks of every machine.
 *
 * Supported subset (checked when compiling; anything else throws `UnsupportedMachineError`, so a
 * machine that grows a feature this evaluator does not know fails loudly instead of drifting):
 * - atomic, compound and top-level final states; no parallel or history states, no nested finals;
 * - no entry/exit actions, no `always`, `after`, `invoke` or wildcard transitions;
 * - transitions with at most one target and `reenter: false`, guards named in `setup({ guards })`
 *   (plain functions of `{ context, event }`), actions that are `assign(...)` (named in `setup` or
 *   inline), with a function or a property-map assignment.
 * Semantics mirrored from XState v5: the deepest active state's transitions for the event are tried
 * first, in declaration order, then its ancestors'; the first whose guard passes is taken; assign
 * actions run in order, each seeing the context the previous one produced, and each merges its partial
 * update into a fresh object (`Object.assign({}, context, partial)`); a targeted transition enters the
 * target's initial descendants; a machine in a top-level final state takes no transitions.
 */
import type { AnyStateMachine, StateValue } from 'xstate';

export class UnsupportedMachineError extends Error {
  override readonly name = 'UnsupportedMachineError';
  constructor(machineId: string, what: string) {
    super(`cannot compile machine '${machineId}': ${what}`);
  }
}

/** A machine snapshot reduced to what identifies it (see local.ts). */
export interface CompiledLocal<C> {
  readonly value: StateValue;
  readonly context: C;
}

export interface CompiledMachine<C, E extends { readonly type: string }, I> {
  readonly id: string;
  initial(input: I): CompiledLocal<C>;
  /** The next local state, or null when no transition is enabled for `event`. */
  fire(local: CompiledLocal<C>, event: E): CompiledLocal<C> | null;
  /** The dotted path of the active leaf of `value`, e.g. `fallback.writing`. */
  pathOf(value: StateValue): string;
}

type Guard = (args: { context: unknown; event: unknown }) => boolean;
type Assign = (context: Record<string, unknown>, event: unknown) => Record<string, unknown>;

interface Transition {
  readonly guard: Guard | undefined;
  readonly actions: readonly Assign[];
  /** The leaf entered (the target's initial descendants), or null for a targetless transition. */
  readonly to: Leaf | null;
}

interface Leaf {
  readonly value: StateValue;
  readonly path: string;
  readonly on: ReadonlyMap<string, readonly Transition[]>;
}

// XState's StateNode, as far as this evaluator reads it.
interface Node {
  readonly id: string;
  readonly key: string;
  readonly type: string;
  readonly path: readonly string[];
  readonly parent: Node | undefined;
  readonly states: Readonly<Record<string, Node>>;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly always: unknown;
  readonly config: Readonly<Record<string, unknown>>;
  readonly transitions: ReadonlyMap<string, readonly TransitionDefinition[]>;
  readonly initial: { readonly target: readonly Node[] } | undefined;
}

interface TransitionDefinition {
  readonly guard: unknown;
  readonly actions: readonly unknown[];
  readonly target: readonly Node[] | undefined;
  readonly reenter: boolean;
}

interface AssignAction {
  readonly type: string;
  readonly assignment: unknown;
}

/** XState's StateValue for a leaf path: `['idle']` → `'idle'`, `['shared', 'opening']` → `{ shared: 'opening' }`. */
function valueOfPath(path: readonly string[]): StateValue {
  const [head, ...rest] = path;
  if (head === undefined) throw new Error('unreachable: the root is never a leaf');
  return rest.length === 0 ? head : { [head]: valueOfPath(rest) };
}

export function compileMachine<C, E extends { readonly type: string }, I>(machine: AnyStateMachine): CompiledMachine<C, E, I> {
  const root = (machine as unknown as { root: Node }).root;
  const impl = (machine as unknown as { implementations: { guards: Record<string, unknown>; actions: Record<string, unknown> } })
    .implementations;
  const id = root.id;
  const unsupported = (what: string): never => {
    throw new UnsupportedMachineError(id, what);
  };

  const guardOf = (guard: unknown, where: string): Guard | undefined => {
    if (guard === undefined) return undefined;
    const fn = typeof guard === 'string' ? impl.guards[guard] : guard;
    if (typeof fn !== 'function' || 'check' in fn) return unsupported(`${where}: guard ${JSON.stringify(guard)} is not a plain named guard`);
    return fn as Guard;
  };

  const assignOf = (action: unknown, where: string): Assign => {
    const a = (typeof action === 'string' ? impl.actions[action] : action) as AssignAction | undefined;
    if (a === undefined || a === null || a.type !== 'xstate.assign') {
      return unsupported(`${where}: action ${typeof action === 'string' ? `'${action}'` : String(action)} is not an assign`);
    }
    const assignment = a.assignment;
    if (typeof assignment === 'function') {
      const f = assignment as (args: { context: unknown; event: unknown }, params: undefined) => Record<string, unknown>;
      // A spread is Object.assign({}, context, partial) for plain data (own enumerable keys, in order),
      // and V8 clones the first spread's shape in one step.
      return (context, event) => ({ ...context, ...f({ context, event }, undefined) });
    }
    if (typeof assignment !== 'object' || assignment === null) return unsupported(`${where}: assign with ${String(assignment)}`);
    const entries = Object.entries(assignment as Record<string, unknown>);
    return (context, event) => {
      // Every value is computed from the context before any is set (XState's order), then merged.
      const args = { context, event };
      const values = entries.map(([, v]) => (typeof v === 'function' ? (v as (a: unknown, params: undefined) => unknown)(args, undefined) : v));
      const next: Record<string, unknown> = { ...context };
      for (let i = 0; i < entries.length; i++) next[(entries[i] as [string, unknown])[0]] = values[i];
      return next;
    };
  };

  // Check the whole tree once.
  const visit = (node: Node): void => {
    const where = `state '${node.id}'`;
    if (node.type !== 'atomic' && node.type !== 'compound' && node.type !== 'final') unsupported(`${where} is ${node.type}`);
    if (node.type === 'final' && node.parent !== root) unsupported(`${where} is a nested final state`);
    if (node.entry.length > 0 || node.exit.length > 0) unsupported(`${where} has entry or exit actions`);
    if (node.always !== undefined) unsupported(`${where} has eventless (always) transitions`);
    for (const key of ['after', 'invoke', 'onDone', 'history'] as const) {
      if (node.config[key] !== undefined) unsupported(`${where} uses '${key}'`);
    }
    for (const type of node.transitions.keys()) {
      if (type === '*' || type.includes('*') || type.startsWith('xstate.')) unsupported(`${where} has a transition on '${type}'`);
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(root);

  const descend = (node: Node): Node => {
    let n = node;
    while (n.type === 'compound') {
      const next = n.initial?.target[0];
      if (next === undefined) return unsupported(`state '${n.id}' has no initial state`);
      n = next;
    }
    return n;
  };

  // Leaves are built lazily (transitions refer to leaves, possibly cyclically).
  const leaves = new Map<Node, Leaf>();
  const pending: [Node, Map<string, Transition[]>][] = [];
  const leafOfNode = (node: Node): Leaf => {
    let leaf = leaves.get(node);
    if (leaf === undefined) {
      const on = new Map<string, Transition[]>();
      leaf = { value: valueOfPath(node.path), path: node.path.join('.'), on };
      leaves.set(node, leaf);
      pending.push([node, on]);
    }
    return leaf;
  };
  const fill = (leafNode: Node, on: Map<string, Transition[]>): void => {
    if (leafNode.type === 'final') return; // a done machine takes no transitions
    for (let n: Node | undefined = leafNode; n !== undefined; n = n.parent) {
      for (const [type, defs] of n.transitions) {
        const list = on.get(type) ?? [];
        for (const [i, def] of defs.entries()) {
          const where = `state '${n.id}' on ${type} #${i}`;
          if (def.reenter) unsupported(`${where} re-enters its target`);
          if ((def.target?.length ?? 0) > 1) unsupported(`${where} has several targets`);
          const target = def.target?.[0];
          list.push({
            guard: guardOf(def.guard, where),
            actions: def.actions.map((a) => assignOf(a, where)),
            to: target === undefined ? null : leafOfNode(descend(target)),
          });
        }
        on.set(type, list);
      }
    }
  };
  const initialLeaf = leafOfNode(descend(root));
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) fill(...next);
  const allLeaves = [...leaves.values()];

  // Values this evaluator produced are the leaves' own (stable identity); others are resolved once.
  const byValue = new WeakMap<object, Leaf>();
  const byString = new Map<string, Leaf>();
  for (const leaf of allLeaves) {
    if (typeof leaf.value === 'string') byString.set(leaf.value, leaf);
    else byValue.set(leaf.value, leaf);
  }
  const leafOf = (value: StateValue): Leaf => {
    if (typeof value === 'string') {
      const hit = byString.get(value);
      if (hit === undefined) return unsupported(`unknown state value ${JSON.stringify(value)}`);
      return hit;
    }
    const hit = byValue.get(value);
    if (hit !== undefined) return hit;
    const path = JSON.stringify(value);
    const found = allLeaves.find((l) => JSON.stringify(l.value) === path);
    if (found === undefined) return unsupported(`unknown state value ${path}`);
    byValue.set(value, found);
    return found;
  };

  const contextConfig = root.config['context'];
  return {
    id,
    initial(input) {
      const context = typeof contextConfig === 'function' ? (contextConfig as (a: { input: I }) => C)({ input }) : (contextConfig as C);
      return { value: initialLeaf.value, context };
    },
    fire(local, event) {
      const leaf = leafOf(local.value);
      const candidates = leaf.on.get(event.type);
      if (candidates === undefined) return null;
      const args = { context: local.context as unknown, event: event as unknown }; // guards only read it
      for (const t of candidates) {
        if (t.guard !== undefined && !t.guard(args)) continue;
        let context = local.context as Record<string, unknown>;
        for (const a of t.actions) context = a(context, event);
        return { value: (t.to ?? leaf).value, context: context as C };
      }
      return null;
    },
    pathOf: (value) => leafOf(value).path,
  };
}
