/**
 * Every transition of every machine is taken: xstate's graph utilities give a shortest path to every
 * reachable state under a sample of events; from those states the sample events must select every
 * transition definition of the machine — guarded branches included.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine, AnyTransitionDefinition, EventObject, Snapshot } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { appendMachine, type AppendEvent } from './append.ts';
import { builderMachine, type BuilderContext, type BuilderEvent } from './builder.ts';
import { handleMachine, type HandleEvent } from './handle.ts';
import { machines, stateNodesOf } from './mermaid.ts';
import { mintMachine, type MintContext, type MintEvent } from './mint.ts';
import type { Batch } from './parts.ts';
import { ENVIRONMENT, sweepMachine, type SweepEvent } from './sweep.ts';
import { workerMachine, type WorkerEvent } from './worker.ts';

const batch: Batch = { updates: [1], partBytes: [5] };
const persist = { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 1 << 20 };

interface Exploration {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly inputs: readonly unknown[];
  readonly events: readonly EventObject[];
  /** Keeps the explored state space finite. */
  readonly bound?: (context: never, event: EventObject) => boolean;
}

const mintEvents: MintEvent[] = [
  { type: 'FRONTIER' },
  { type: 'MINT', maxBytes: 0, barrier: false },
  { type: 'MINT', maxBytes: 7, barrier: false },
  { type: 'END', lower: 1 },
  { type: 'END', lower: 2 },
  { type: 'RESUME' },
  { type: 'SUPERSEDE', lower: 1, allowed: true, maxBytes: 0, barrier: false },
];

const stage = (updates: number[], bytes: number, reportsSkips: boolean, finishesEmpty = false): WorkerEvent => ({
  type: 'STAGE',
  updates,
  bytes,
  maxBytes: 10,
  sharing: true,
  reportsSkips,
  finishesEmpty,
});
const workerEvents: WorkerEvent[] = [
  stage([1], 5, false),
  stage([1], 50, true),
  stage([1], 50, false),
  stage([], 0, true),
  stage([], 0, false),
  stage([], 0, true, true),
  { type: 'OPEN' },
  { type: 'FINISH_END', batch: null },
  { type: 'SKIP' },
  { type: 'OWN_BATCH', batch },
  { type: 'HAND' },
  { type: 'SUPERSEDED', reportsSkips: true },
  { type: 'SUPERSEDED', reportsSkips: false },
];

const handleEvents: HandleEvent[] = [
  { type: 'PUSH', updates: [1] },
  { type: 'PUSH', updates: [2] },
  { type: 'PUSH', updates: [1, 2] },
  { type: 'PUSH', updates: [] },
  { type: 'FINISH_BEGIN', last: true },
  { type: 'FINISH_END', released: true, batch },
  { type: 'FINISH_END', released: true, batch: null },
  { type: 'FINISH_END', released: false, batch: null },
];

const builderEvents: BuilderEvent[] = [
  { type: 'OPEN' },
  { type: 'PUSH', updates: [1], sizes: new Map([[1, 10]]) },
  { type: 'FINISH_BEGIN', worker: 0 },
  { type: 'FINISH_BEGIN', worker: 1 },
  { type: 'FINISH_END', worker: 0, instance: 0 },
  { type: 'FINISH_END', worker: 1, instance: 0 },
  { type: 'SKIP' },
  { type: 'TIMEOUT' },
  { type: 'SWEEP_HOLD' },
  { type: 'SWEEP_RELEASE' },
  { type: 'SWEEP' },
];
const builderBound = (c: BuilderContext, e: EventObject): boolean => {
  const cur = c.instances[c.instances.length - 1];
  // With a deadline only the barrier's own events: the sweep's and the pushes' transitions are the same
  // as without one (the other inputs cover them), and three participants would multiply their states.
  if (c.timesOut && ['PUSH', 'SWEEP_HOLD', 'SWEEP_RELEASE', 'SWEEP'].includes(e.type)) return false;
  if (e.type === 'OPEN') return c.refs < 2 && c.instances.length < 2 && (cur?.handles ?? 0) < 3;
  if (e.type === 'PUSH') return (cur?.cut.updates.length ?? 0) < 1;
  if (e.type === 'SWEEP_HOLD') return c.refs < 3;
  if (e.type === 'FINISH_END') return c.instances.every((i) => i.receipts < 1);
  return true;
};

const sweepEvents: SweepEvent[] = [
  { type: 'OPEN', by: 0, size: 0 },
  { type: 'OPEN', by: 0, size: 1 },
  { type: 'OPEN', by: 1, size: 1 },
  { type: 'SWEEP_HOLD', by: 0, sharedId: 0, size: 1, liveIds: [0] },
  { type: 'SWEEP_HOLD', by: 0, sharedId: 1, size: 2, liveIds: [0, 1] },
  { type: 'SWEEP_HOLD', by: ENVIRONMENT, sharedId: 0, size: 1, liveIds: [0] },
  { type: 'SWEEP_RELEASE' },
  { type: 'SWEEP', by: 0, size: 1, left: 1, liveIds: [0] },
  { type: 'SWEEP', by: 0, size: 1, left: 0, liveIds: [] },
  { type: 'SWEEP', by: ENVIRONMENT, size: 1, left: 1, liveIds: [0] },
  { type: 'SWEEP', by: ENVIRONMENT, size: 1, left: 0, liveIds: [] },
];

const appendEvents: AppendEvent[] = [
  { type: 'HAND', worker: 0, hand: { route: 'own', batches: [batch] } },
  { type: 'HAND', worker: 0, hand: { route: 'none', batches: [] } },
  { type: 'HAND', worker: 1, hand: { route: 'none', batches: [] } },
  { type: 'APPEND', shardUpper: 0, shardInlineBytes: 0, persist },
  { type: 'APPEND', shardUpper: 1, shardInlineBytes: 0, persist },
  { type: 'DELETE' },
  { type: 'INDETERMINATE_APPLIED', shardUpper: 0, shardInlineBytes: 0, persist },
  { type: 'MISREAD', shardUpper: 1 },
  // inline backpressure (the batch's one part is inline; state is full), and a shard behind the lower
  { type: 'BACKPRESSURE', shardUpper: 0, shardInlineBytes: persist.inlineTotalMaxBytes, persist },
  { type: 'APPEND', shardUpper: 0, shardInlineBytes: persist.inlineTotalMaxBytes, persist },
  { type: 'BUMP', shardUpper: 0 },
  { type: 'BUMP_UNANSWERED', shardUpper: 0 },
  { type: 'APPEND', shardUpper: 2, shardInlineBytes: 0, persist },
];

const explorations: Exploration[] = [
  {
    name: 'mint',
    machine: mintMachine,
    inputs: [
      { intervals: 2, workers: 2, start: 0 },
      { intervals: 2, workers: 2, start: 2 },
    ],
    events: mintEvents,
    bound: ((c: MintContext) => c.seq < 3) as never,
  },
  { name: 'worker', machine: workerMachine, inputs: [undefined], events: workerEvents },
  { name: 'handle', machine: handleMachine, inputs: [{ staged: [1, 2], instance: 0 }, { staged: [], instance: 0 }], events: handleEvents },
  {
    name: 'builder',
    machine: builderMachine,
    inputs: [
      { barrier: false, participants: 2, timesOut: false, blobTargetSize: 64 },
      { barrier: true, participants: 2, timesOut: false, blobTargetSize: 64 },
      // a deadline: with three participants the timer can fire while a joined handle still pushes
      { barrier: true, participants: 3, timesOut: true, blobTargetSize: 64 },
    ],
    events: builderEvents,
    bound: builderBound as never,
  },
  {
    name: 'sweep',
    machine: sweepMachine,
    inputs: [
      { upgradeRace: false, shared: false },
      { upgradeRace: true, shared: false },
      { upgradeRace: false, shared: true },
      { upgradeRace: true, shared: true },
    ],
    events: sweepEvents,
  },
  {
    name: 'append',
    machine: appendMachine,
    inputs: [
      { lower: 0, upper: 1, workers: 2 },
      { lower: 1, upper: 2, workers: 2 },
    ],
    events: appendEvents,
  },
];

function allTransitions(machine: AnyStateMachine): AnyTransitionDefinition[] {
  return stateNodesOf(machine).flatMap((n) => [...n.transitions.values()].flat());
}

const describeTransition = (t: AnyTransitionDefinition): string =>
  `${t.source.path.join('.') || '(root)'} --${t.eventType}${t.guard === undefined ? '' : ` [${JSON.stringify(t.guard)}]`}--> ${
    t.target?.map((x) => x.path.join('.')).join(',') ?? '(self)'
  }`;

describe('every machine transition is covered by shortest paths', () => {
  it('explores every machine of the model', () => {
    expect(explorations.map((e) => e.name).sort()).toEqual(machines.map((m) => m.name).sort());
  });

  for (const ex of explorations) {
    it(`${ex.name}: every transition is taken from some shortest-path state`, () => {
      const covered = new Set<AnyTransitionDefinition>();
      let paths = 0;
      for (const input of ex.inputs) {
        const bound = ex.bound;
        const found = getShortestPaths(ex.machine, {
          input,
          events: ex.events,
          filterEvents: bound === undefined ? undefined : (s: Snapshot<unknown>, e: EventObject) => bound((s as unknown as { context: never }).context, e),
          limit: 50_000,
        });
        paths += found.length;
        for (const path of found) {
          const snapshot = path.state as Parameters<AnyStateMachine['getTransitionData']>[0];
          for (const event of ex.events) {
            for (const t of ex.machine.getTransitionData(snapshot, event)) covered.add(t);
          }
        }
      }
      expect(paths).toBeGreaterThan(1);
      const missing = allTransitions(ex.machine).filter((t) => !covered.has(t)).map(describeTransition);
      expect(missing).toEqual([]);
      expect(covered.size).toBe(allTransitions(ex.machine).length);
    });
  }
});
