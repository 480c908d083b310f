/**
 * Shared builder: one process's `SharedBatches` registry entry for one batch id, as an XState machine.
 *
 * Source: PR #37591 (`SharedBatches`: batch id → weak reference to the builder state; a live reference
 * count; only the handle dropping the last strong reference receives the batch; a `builder(id)` after
 * every earlier handle finished starts a *new* builder — best-effort) and PR #37617 (barrier state
 * `{pending, deliverer, finalized}`, `noteSkip`, skips recorded before the state exists).
 * vocab/PROTOCOL.md, "Best-effort", "Barrier", "Sweep".
 *
 * Abstracted away: Arc/Weak (a reference count), the builder task and its channel (an instance cuts
 * parts as updates arrive, keeping only what its future needs: the updates received, the parts cut and
 * the bytes buffered, parts.ts `Cutting`; the push order itself is not kept),
 * the condition variable of the barrier (waiting is "FINISH_END not yet enabled"), the description check
 * ("conflicting descriptions": one description per id by construction), blob writes.
 *
 * Invariants:
 * - the entry is live iff `refs > 0`; `notLive.dead` still counts toward the registry's size until a
 *   sweep removes it (`notLive.absent`).
 * - every instance has at most one receiver; best-effort: the handle whose finish dropped the last
 *   reference; barrier: the last to arrive (`deliverer`) when `pending` reached 0.
 * - barrier: `pending = participants − early skips` at creation and never goes below 0 (over-reporting
 *   is not enabled); handles keep their reference until their finish returns.
 * - an instance closed by a sweep's release with no receiver is delivered to nobody (`toNobody`): its
 *   parts leak and its updates are lost. Only the `sweepUpgradeRace` bug gets here.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { UpdateId } from '../vocab/index.ts';
import { runner } from './local.ts';
import { NOTHING_CUT, cutMore, type Cutting } from './parts.ts';

/** One builder instance (one shared batch in the making) of an entry. */
export interface InstanceRecord {
  /** What the updates pushed so far were cut into (parts are cut in push order, as they arrive). */
  readonly cut: Cutting;
  /** Handles that joined this instance (builder() calls that returned it). */
  readonly handles: number;
  /** The worker bound to receive the batch, once decided. */
  readonly receiver: number | null;
  /** Finishes that returned this batch (more than one would be a duplicate delivery). */
  readonly receipts: number;
  /** Closed by a sweep release with no receiver: the batch went to nobody. */
  readonly toNobody: boolean;
}

export interface BuilderInput {
  readonly barrier: boolean;
  /** Barrier participants: the workers of the process. */
  readonly participants: number;
  /** Persist's `blob_target_size`: where the builder cuts parts. */
  readonly blobTargetSize: number;
}

export interface BuilderContext extends BuilderInput {
  readonly refs: number;
  readonly pending: number;
  readonly deliverer: number | null;
  /** `skips[id]`: skips noted while no live entry existed, applied when one is created. */
  readonly earlySkips: number;
  /** Every instance this entry has had; the last one is current. */
  readonly instances: readonly InstanceRecord[];
}

export type BuilderEvent =
  | { readonly type: 'OPEN' }
  | { readonly type: 'PUSH'; readonly updates: readonly UpdateId[]; readonly sizes: ReadonlyMap<UpdateId, number> }
  | { readonly type: 'FINISH_BEGIN'; readonly worker: number }
  | { readonly type: 'FINISH_END'; readonly worker: number; readonly instance: number }
  | { readonly type: 'SKIP' }
  | { readonly type: 'SWEEP_HOLD' }
  | { readonly type: 'SWEEP_RELEASE' }
  | { readonly type: 'SWEEP' };

type Ctx = BuilderContext;

const current = (ctx: Ctx): InstanceRecord => ctx.instances[ctx.instances.length - 1] as InstanceRecord;
const withCurrent = (ctx: Ctx, change: Partial<InstanceRecord>): readonly InstanceRecord[] => [
  ...ctx.instances.slice(0, -1),
  { ...current(ctx), ...change },
];
const workerOf = (event: BuilderEvent): number => {
  assertEvent(event, ['FINISH_BEGIN', 'FINISH_END']);
  return event.worker;
};

/**
 * With the sweep-upgrade-race bug the sweep holds a live entry's reference across a scheduling point;
 * it does so the same way before and after a barrier finalized (both states are live).
 */
const sweepUpgradeRace = () =>
  ({
    SWEEP_HOLD: { actions: 'holdRef' },
    SWEEP_RELEASE: [
      { guard: 'holdsLastRef', target: 'notLive.dead', actions: 'closeToNobody' },
      { actions: 'dropRef' },
    ],
  }) as const;

export const builderMachine = setup({
  types: { context: {} as BuilderContext, events: {} as BuilderEvent, input: {} as BuilderInput },
  guards: {
    isBarrier: ({ context }) => context.barrier,
    isBestEffort: ({ context }) => !context.barrier,
    finalizesBarrier: ({ context }) => context.barrier && context.pending === 1,
    holdsLastRef: ({ context }) => context.refs === 1,
    completesEarlySkips: ({ context }) => context.barrier && context.earlySkips + 1 === context.participants,
  },
  actions: {
    createInstance: assign(({ context }) => ({
      refs: 1,
      pending: context.participants - context.earlySkips,
      deliverer: null,
      earlySkips: 0,
      instances: [...context.instances, { cut: NOTHING_CUT, handles: 1, receiver: null, receipts: 0, toNobody: false }],
    })),
    addRef: assign(({ context }) => ({
      refs: context.refs + 1,
      instances: withCurrent(context, { handles: current(context).handles + 1 }),
    })),
    appendChunk: assign(({ context, event }) => {
      assertEvent(event, 'PUSH');
      const cut = cutMore(current(context).cut, event.updates, event.sizes, context.blobTargetSize);
      return { instances: withCurrent(context, { cut }) };
    }),
    // best-effort finish: drop this handle's reference; the last one binds the receiver.
    dropRef: assign({ refs: ({ context }) => context.refs - 1 }),
    dropLastRef: assign(({ context, event }) => ({
      refs: 0,
      instances: withCurrent(context, { receiver: workerOf(event) }),
    })),
    // barrier finish: arrive (keeping the reference); the arrival that brings pending to 0 delivers.
    arrive: assign(({ context, event }) => ({ pending: context.pending - 1, deliverer: workerOf(event) })),
    arriveAndFinalize: assign(({ context, event }) => ({
      pending: 0,
      deliverer: workerOf(event),
      instances: withCurrent(context, { receiver: workerOf(event) }),
    })),
    countSkip: assign({ pending: ({ context }) => context.pending - 1 }),
    skipAndFinalize: assign(({ context }) => ({
      pending: 0,
      instances: withCurrent(context, { receiver: context.deliverer }),
    })),
    recordEarlySkip: assign({ earlySkips: ({ context }) => context.earlySkips + 1 }),
    forgetEarlySkips: assign({ earlySkips: 0 }),
    recordReceipt: assign(({ context, event }) => {
      assertEvent(event, 'FINISH_END');
      const record = context.instances[event.instance];
      if (record === undefined || record.receiver !== event.worker) return {};
      const instances = [...context.instances];
      instances[event.instance] = { ...record, receipts: record.receipts + 1 };
      return { instances };
    }),
    holdRef: assign({ refs: ({ context }) => context.refs + 1 }),
    // SUBTLE: the sweep's temporary reference was the last one: the batch is finished for nobody.
    closeToNobody: assign(({ context }) => ({
      refs: 0,
      instances: withCurrent(context, { toNobody: current(context).receiver === null }),
    })),
  },
}).createMachine({
  id: 'builder',
  context: ({ input }) => ({ ...input, refs: 0, pending: 0, deliverer: null, earlySkips: 0, instances: [] }),
  initial: 'notLive',
  states: {
    notLive: {
      initial: 'absent',
      on: {
        OPEN: { target: 'live', actions: 'createInstance' },
        SKIP: [
          { guard: 'completesEarlySkips', actions: 'forgetEarlySkips' },
          { guard: 'isBarrier', actions: 'recordEarlySkip' },
        ],
        FINISH_END: { guard: 'isBestEffort', actions: 'recordReceipt' },
      },
      states: {
        absent: {},
        dead: { on: { SWEEP: 'absent' } },
      },
    },
    live: {
      on: {
        OPEN: { actions: 'addRef' },
        PUSH: { actions: 'appendChunk' },
        FINISH_BEGIN: [
          { guard: 'finalizesBarrier', target: 'finalized', actions: 'arriveAndFinalize' },
          { guard: 'isBarrier', actions: 'arrive' },
          { guard: 'holdsLastRef', target: 'notLive.dead', actions: 'dropLastRef' },
          { actions: 'dropRef' },
        ],
        FINISH_END: { guard: 'isBestEffort', actions: 'recordReceipt' },
        SKIP: [
          { guard: 'finalizesBarrier', target: 'finalized', actions: 'skipAndFinalize' },
          { guard: 'isBarrier', actions: 'countSkip' },
        ],
        ...sweepUpgradeRace(),
      },
    },
    finalized: {
      on: {
        FINISH_END: [
          { guard: 'holdsLastRef', target: 'notLive.dead', actions: ['recordReceipt', 'dropRef'] },
          { actions: ['recordReceipt', 'dropRef'] },
        ],
        ...sweepUpgradeRace(),
      },
    },
  },
});

export const builder = runner<BuilderContext, BuilderEvent, BuilderInput>(builderMachine);

export const isLive = (path: string): boolean => path === 'live' || path === 'finalized';
export const isEntry = (path: string): boolean => path !== 'notLive.absent';
