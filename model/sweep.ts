/**
 * Sweep: one process registry's lock and its cleanup of dead entries, as an XState machine.
 *
 * Source: Materialize `src/storage-operators/src/persist.rs`, `SharedBatches::builder` (both stored
 * versions, PR #37591): every builder() call takes the registry's one mutex and, before it looks the id
 * up, sweeps the map if `map.len() > last_retained_len * 2` (the length before this call's insert):
 * `map.retain(live); last_retained_len = map.len()`. The review bug on that PR: liveness tested with
 * `weak.upgrade()`, whose temporary strong reference can make another thread's `finish()` (it never takes
 * the mutex) see two references in `Arc::into_inner` — every handle returns `None` and the interval is
 * sealed without its data. The fix tests `strong_count() > 0`. `note_skip` (#37617) takes the mutex too.
 * vocab/PROTOCOL.md, "Sweep".
 *
 * Abstracted away: the map itself (builder.ts holds the entries), memory, the mutex's queue (a worker
 * whose call finds the lock held simply has no enabled open or skip).
 *
 * Invariants:
 * - `lock` is the worker whose builder() call is between its sweep's first step and its `open` (the
 *   lookup, which releases it); while it is held no other open or skip of the process is enabled.
 * - a call sweeps iff `size > 2·retained` at its start; the sweep removes every dead entry and sets
 *   `retained` to the entries left; the call's OPEN follows (the lock held in between: `swept`).
 * - clean (`upgradeRace` off): the sweep is one step. With the bug it first visits the live entries in
 *   ascending id order (the next live one above the last visited, read at each visit), holding each
 *   (`refs += 1`) across a scheduling point.
 * - a registry shared by several MV sinks (config.ts `sharedRegistry`): the size that triggers counts
 *   other sinks' entries too, so a call may sweep or not (registry-check.ts checks which); and a sweep
 *   another sink's worker ran is an environment step (`by` = ENVIRONMENT) that ends at its SWEEP.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { SharedId } from '../vocab/index.ts';
import { runner } from './local.ts';

/** `by` of a sweep that another sink's worker ran (sharedRegistry only). */
export const ENVIRONMENT = -1;

export interface SweepInput {
  readonly upgradeRace: boolean;
  /** The registry serves other sinks too (config.ts sharedRegistry). */
  readonly shared: boolean;
}

export interface SweepContext extends SweepInput {
  readonly retained: number;
  /** The worker whose builder() call holds the lock over its sweep (ENVIRONMENT: another sink's), or null. */
  readonly lock: number | null;
  /** Bug only: the last live entry visited (−1 before the first), and the one held now. */
  readonly visited: number;
  readonly holding: SharedId | null;
}

export type SweepEvent =
  /** `by` visits live entry `sharedId`; `size` = entries now (live or dead); `liveIds` = live entries now. */
  | { readonly type: 'SWEEP_HOLD'; readonly by: number; readonly sharedId: SharedId; readonly size: number; readonly liveIds: readonly SharedId[] }
  | { readonly type: 'SWEEP_RELEASE' }
  /** `by` removes the dead entries: `size` = entries before, `left` = after, `liveIds` = live entries now. */
  | { readonly type: 'SWEEP'; readonly by: number; readonly size: number; readonly left: number; readonly liveIds: readonly SharedId[] }
  /** `by`'s builder() call looks its id up (creating or joining): it needs no sweep, or swept already. */
  | { readonly type: 'OPEN'; readonly by: number; readonly size: number };

const nextLive = (ctx: SweepContext, liveIds: readonly SharedId[]): SharedId | undefined =>
  liveIds.filter((id) => id > ctx.visited).sort((a, b) => a - b)[0];

/** Whether a call that finds `size` entries sweeps first (unknown with a shared registry: either). */
const triggers = (ctx: SweepContext, size: number): boolean => ctx.shared || size > 2 * ctx.retained;

export const sweepMachine = setup({
  types: { context: {} as SweepContext, events: {} as SweepEvent, input: {} as SweepInput },
  guards: {
    beginsWithHold: ({ context, event }) => {
      assertEvent(event, 'SWEEP_HOLD');
      return context.upgradeRace && triggers(context, event.size) && nextLive(context, event.liveIds) === event.sharedId;
    },
    holdsNextLiveEntry: ({ context, event }) => {
      assertEvent(event, 'SWEEP_HOLD');
      return event.by === context.lock && nextLive(context, event.liveIds) === event.sharedId;
    },
    sweepsAtOnce: ({ context, event }) => {
      assertEvent(event, 'SWEEP');
      return event.by !== ENVIRONMENT && triggers(context, event.size) && (!context.upgradeRace || nextLive(context, event.liveIds) === undefined);
    },
    environmentSweepsAtOnce: ({ context, event }) => {
      assertEvent(event, 'SWEEP');
      return event.by === ENVIRONMENT && context.shared && (!context.upgradeRace || nextLive(context, event.liveIds) === undefined);
    },
    endsVisits: ({ context, event }) => {
      assertEvent(event, 'SWEEP');
      return event.by !== ENVIRONMENT && event.by === context.lock && nextLive(context, event.liveIds) === undefined;
    },
    endsEnvironmentVisits: ({ context, event }) => {
      assertEvent(event, 'SWEEP');
      return event.by === ENVIRONMENT && context.lock === ENVIRONMENT && nextLive(context, event.liveIds) === undefined;
    },
    needsNoSweep: ({ context, event }) => {
      assertEvent(event, 'OPEN');
      return context.shared || event.size <= 2 * context.retained;
    },
    holdsLock: ({ context, event }) => {
      assertEvent(event, 'OPEN');
      return event.by === context.lock;
    },
  },
  actions: {
    lockAndHold: assign(({ event }) => {
      assertEvent(event, 'SWEEP_HOLD');
      return { lock: event.by, holding: event.sharedId };
    }),
    hold: assign({
      holding: ({ event }) => {
        assertEvent(event, 'SWEEP_HOLD');
        return event.sharedId;
      },
    }),
    release: assign(({ context }) => ({ visited: context.holding ?? context.visited, holding: null })),
    // The sweep removed the dead entries; the caller keeps the lock for its lookup.
    removeDead: assign(({ event }) => {
      assertEvent(event, 'SWEEP');
      return { retained: event.left, visited: -1, lock: event.by };
    }),
    // Another sink's call swept: its lookup is in that sink's trace, so the lock ends here.
    removeDeadForEnvironment: assign(({ event }) => {
      assertEvent(event, 'SWEEP');
      return { retained: event.left, visited: -1, lock: null };
    }),
    unlock: assign({ lock: null }),
  },
}).createMachine({
  id: 'sweep',
  context: ({ input }) => ({ ...input, retained: 0, lock: null, visited: -1, holding: null }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        // (an assign, so the taken transition is a new snapshot for XState too; the lock is free already)
        OPEN: { guard: 'needsNoSweep', actions: 'unlock' },
        SWEEP_HOLD: { guard: 'beginsWithHold', target: 'holding', actions: 'lockAndHold' },
        SWEEP: [
          { guard: 'environmentSweepsAtOnce', actions: 'removeDeadForEnvironment' },
          { guard: 'sweepsAtOnce', target: 'swept', actions: 'removeDead' },
        ],
      },
    },
    holding: { on: { SWEEP_RELEASE: { target: 'visiting', actions: 'release' } } },
    visiting: {
      on: {
        SWEEP_HOLD: { guard: 'holdsNextLiveEntry', target: 'holding', actions: 'hold' },
        SWEEP: [
          { guard: 'endsEnvironmentVisits', target: 'idle', actions: 'removeDeadForEnvironment' },
          { guard: 'endsVisits', target: 'swept', actions: 'removeDead' },
        ],
      },
    },
    swept: { on: { OPEN: { guard: 'holdsLock', target: 'idle', actions: 'unlock' } } },
  },
});

export const sweep = runner<SweepContext, SweepEvent, SweepInput>(sweepMachine);
