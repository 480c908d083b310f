/**
 * Sweep: the registry's cleanup of dead entries in one process, as an XState machine.
 *
 * Source: PR #37591 (`SharedBatches` sweeps its map of dead weak references once it has grown past twice
 * its last retained size) and the review bug on that PR: the sweep first tested liveness with
 * `weak.upgrade()`, whose temporary strong reference can make a concurrent `finish()` see "not last" —
 * every handle returns `None` and the interval is sealed without its data. The fix tests
 * `strong_count() > 0`. PR #37617 leaves the sweep unchanged; its barrier is immune to the race (the
 * deliverer is the last to arrive, whatever the reference count). vocab/PROTOCOL.md, "Sweep".
 *
 * Abstracted away: the background task that runs the sweep (a pending sweep is an enabled action), the
 * map itself (builder.ts holds the entries), memory.
 *
 * Invariants:
 * - a sweep becomes pending only when an open creates an entry, none is pending, and size > 2·retained;
 *   it removes every dead entry at once and then `retained = size`.
 * - clean (`upgradeRace` off): the sweep is one atomic step. With the bug: it first visits the live
 *   entries in ascending id order, holding each (`refs += 1`) across a scheduling point.
 * - a registry shared by several MV sinks (config.ts `sharedRegistry`): the system starts the sweep as an
 *   environment step (an ENTRY_CREATED of unbounded size: another sink's open), and a SWEEP marked
 *   `shared` may end while live entries of this sink above the cursor were never visited.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { SharedId } from '../vocab/index.ts';
import { runner } from './local.ts';

export interface SweepInput {
  readonly upgradeRace: boolean;
}

export interface SweepContext extends SweepInput {
  readonly retained: number;
  /** Bug only: the last live entry visited (−1 before the first), and the one held now. */
  readonly visited: number;
  readonly holding: SharedId | null;
}

export type SweepEvent =
  | { readonly type: 'ENTRY_CREATED'; readonly size: number }
  | { readonly type: 'SWEEP_HOLD'; readonly sharedId: SharedId; readonly liveIds: readonly SharedId[] }
  | { readonly type: 'SWEEP_RELEASE' }
  /** Remove dead entries; `size` = entries left; `liveIds` = live entries now; `shared`: the registry
   * serves other sinks too (config.ts sharedRegistry), so the sweep may end without having visited
   * live entries of this sink created after its cursor moved on to another sink's. */
  | { readonly type: 'SWEEP'; readonly size: number; readonly liveIds: readonly SharedId[]; readonly shared?: boolean };

const nextLive = (ctx: SweepContext, liveIds: readonly SharedId[]): SharedId | undefined =>
  liveIds.filter((id) => id > ctx.visited).sort((a, b) => a - b)[0];

export const sweepMachine = setup({
  types: { context: {} as SweepContext, events: {} as SweepEvent, input: {} as SweepInput },
  guards: {
    outgrewRetained: ({ context, event }) => {
      assertEvent(event, 'ENTRY_CREATED');
      return event.size > 2 * context.retained;
    },
    visitsNextLiveEntry: ({ context, event }) => {
      assertEvent(event, 'SWEEP_HOLD');
      return context.upgradeRace && nextLive(context, event.liveIds) === event.sharedId;
    },
    visitedEveryLiveEntry: ({ context, event }) => {
      assertEvent(event, 'SWEEP');
      return !context.upgradeRace || event.shared === true || nextLive(context, event.liveIds) === undefined;
    },
  },
  actions: {
    holdEntry: assign({
      holding: ({ event }) => {
        assertEvent(event, 'SWEEP_HOLD');
        return event.sharedId;
      },
    }),
    releaseEntry: assign(({ context }) => ({ visited: context.holding ?? context.visited, holding: null })),
    finishSweep: assign(({ event }) => {
      assertEvent(event, 'SWEEP');
      return { retained: event.size, visited: -1 };
    }),
  },
}).createMachine({
  id: 'sweep',
  context: ({ input }) => ({ ...input, retained: 0, visited: -1, holding: null }),
  initial: 'idle',
  states: {
    idle: { on: { ENTRY_CREATED: { guard: 'outgrewRetained', target: 'pending' } } },
    pending: {
      on: {
        SWEEP_HOLD: { guard: 'visitsNextLiveEntry', target: 'holding', actions: 'holdEntry' },
        SWEEP: { guard: 'visitedEveryLiveEntry', target: 'idle', actions: 'finishSweep' },
      },
    },
    holding: { on: { SWEEP_RELEASE: { target: 'pending', actions: 'releaseEntry' } } },
  },
});

export const sweep = runner<SweepContext, SweepEvent, SweepInput>(sweepMachine);
