/**
 * Shared builder: one process's `SharedBatches` registry entry for one batch id, as an XState machine.
 *
 * Source: PR #37591 (`SharedBatches`: batch id → weak reference to the builder state; a live reference
 * count; only the handle dropping the last strong reference receives the batch; a `builder(id)` after
 * every earlier handle finished starts a *new* builder — best-effort) and PR #37617 (barrier state
 * `{pending, deliverer, finalized}`, `noteSkip`, skips recorded before the state exists); a barrier with
 * a deadline (its timer fires, it completes with the handles that joined, late workers go best-effort).
 * vocab/PROTOCOL.md, "Best-effort", "Barrier", "Barrier with a deadline", "Sweep".
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
 * - deadline: the timer fires at most once, after the first report, while the barrier waits; the barrier
 *   completes early only when no joined handle is still pushing (`unfinished = 0`), and then for good
 *   (`late`): later opens are best-effort, later skips change nothing.
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
  /** The barrier has a deadline (its policy's ModelBarrier `deadline` is finite): it may time out
   * (TIMEOUT, an environment event: the model has no clock, so the timer may fire at any moment after
   * the first report while the barrier waits). */
  readonly timesOut: boolean;
  /** Persist's `blob_target_size`: where the builder cuts parts. */
  readonly blobTargetSize: number;
}

export interface BuilderContext extends BuilderInput {
  readonly refs: number;
  readonly pending: number;
  readonly deliverer: number | null;
  /** Barrier: handles that joined the current instance and have not begun their finish. */
  readonly unfinished: number;
  /** Barrier with a deadline: its timer fired (the barrier completes once `unfinished` reaches 0). */
  readonly expired: boolean;
  /** The barrier completed at its deadline: every later open starts or joins a best-effort instance of
   * this id (late workers share among themselves), every later skip changes nothing. */
  readonly late: boolean;
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
  | { readonly type: 'TIMEOUT' }
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
    // After the barrier completed at its deadline the entry's further instances are best-effort.
    isBarrier: ({ context }) => context.barrier && !context.late,
    isBestEffort: ({ context }) => !context.barrier || context.late,
    isLate: ({ context }) => context.late,
    finalizesBarrier: ({ context }) => context.barrier && !context.late && context.pending === 1,
    // The timer fired while a joined handle was still pushing: the last of them to begin its finish completes it.
    completesAtDeadline: ({ context }) => context.barrier && !context.late && context.expired && context.unfinished === 1,
    holdsLastRef: ({ context }) => context.refs === 1,
    completesEarlySkips: ({ context }) => context.barrier && !context.late && context.earlySkips + 1 === context.participants,
    // The timer fires once, after the first report (a finish, or a skip, also one recorded before the
    // entry existed), while some participant has not reported.
    timerFires: ({ context }) => context.barrier && context.timesOut && !context.late && !context.expired && context.pending > 0 && context.pending < context.participants,
    timerCompletes: ({ context }) => context.barrier && context.timesOut && !context.late && !context.expired && context.pending > 0 && context.pending < context.participants && context.unfinished === 0,
  },
  actions: {
    createInstance: assign(({ context }) => ({
      refs: 1,
      pending: context.participants - context.earlySkips,
      deliverer: null,
      unfinished: context.barrier ? 1 : 0,
      earlySkips: 0,
      instances: [...context.instances, { cut: NOTHING_CUT, handles: 1, receiver: null, receipts: 0, toNobody: false }],
    })),
    // A late worker (the barrier completed at its deadline): a new best-effort instance of the same id;
    // the completed barrier's handles still finishing hold the old instance, not this one.
    createLateInstance: assign(({ context }) => ({
      refs: 1,
      instances: [...context.instances, { cut: NOTHING_CUT, handles: 1, receiver: null, receipts: 0, toNobody: false }],
    })),
    addRef: assign(({ context }) => ({
      refs: context.refs + 1,
      instances: withCurrent(context, { handles: current(context).handles + 1 }),
    })),
    join: assign(({ context }) => ({
      refs: context.refs + 1,
      unfinished: context.unfinished + 1,
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
    arrive: assign(({ context, event }) => ({ pending: context.pending - 1, deliverer: workerOf(event), unfinished: context.unfinished - 1 })),
    arriveAndFinalize: assign(({ context, event }) => ({
      pending: 0,
      deliverer: workerOf(event),
      unfinished: context.unfinished - 1,
      instances: withCurrent(context, { receiver: workerOf(event) }),
    })),
    // The last joined handle begins its finish after the deadline: the barrier completes with what it has.
    arriveAtDeadline: assign(({ context, event }) => ({
      pending: context.pending - 1,
      deliverer: workerOf(event),
      unfinished: 0,
      late: true,
      instances: withCurrent(context, { receiver: workerOf(event) }),
    })),
    expire: assign({ expired: true }),
    // The timer fires with every joined handle finished: the barrier completes now, its batch to the last finisher.
    completeAtDeadline: assign(({ context }) => ({
      expired: true,
      late: true,
      instances: withCurrent(context, { receiver: context.deliverer }),
    })),
    // A late worker's skip: the barrier completed, nothing waits for it.
    ignoreLateSkip: assign(() => ({})),
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
  context: ({ input }) => ({ ...input, refs: 0, pending: 0, deliverer: null, unfinished: 0, expired: false, late: false, earlySkips: 0, instances: [] }),
  initial: 'notLive',
  states: {
    notLive: {
      initial: 'absent',
      on: {
        OPEN: [
          { guard: 'isLate', target: 'live', actions: 'createLateInstance' },
          { target: 'live', actions: 'createInstance' },
        ],
        SKIP: [
          { guard: 'isLate', actions: 'ignoreLateSkip' },
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
        OPEN: [{ guard: 'isBarrier', actions: 'join' }, { actions: 'addRef' }],
        PUSH: { actions: 'appendChunk' },
        FINISH_BEGIN: [
          { guard: 'finalizesBarrier', target: 'finalized', actions: 'arriveAndFinalize' },
          { guard: 'completesAtDeadline', target: 'finalized', actions: 'arriveAtDeadline' },
          { guard: 'isBarrier', actions: 'arrive' },
          { guard: 'holdsLastRef', target: 'notLive.dead', actions: 'dropLastRef' },
          { actions: 'dropRef' },
        ],
        FINISH_END: { guard: 'isBestEffort', actions: 'recordReceipt' },
        SKIP: [
          { guard: 'isLate', actions: 'ignoreLateSkip' },
          { guard: 'finalizesBarrier', target: 'finalized', actions: 'skipAndFinalize' },
          { guard: 'isBarrier', actions: 'countSkip' },
        ],
        TIMEOUT: [
          { guard: 'timerCompletes', target: 'finalized', actions: 'completeAtDeadline' },
          { guard: 'timerFires', actions: 'expire' },
        ],
        ...sweepUpgradeRace(),
      },
    },
    finalized: {
      on: {
        // After a completion at the deadline: a late worker starts a best-effort instance of the id; the
        // completed barrier's handles finish on theirs (their references are no longer the entry's).
        OPEN: { guard: 'isLate', target: 'live', actions: 'createLateInstance' },
        SKIP: { guard: 'isLate', actions: 'ignoreLateSkip' },
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
